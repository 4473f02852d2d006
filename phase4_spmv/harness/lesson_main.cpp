// SPDX-License-Identifier: MIT
// The main() of phase 4's lesson executables: takes the matrix options (--matrix, --gen, --rows) out
// of the command line, then hands the rest to the common lesson main (common/lesson_main.cpp's twin).
#include <cstdio>
#include <string>
#include <vector>

#include "common/gpu.h"
#include "common/lesson.h"
#include "phase4_spmv/harness/lesson_support.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  const bool ok = p4::take_spmv_matrix_options(args, &p4::spmv_matrix_options(), &error);
  bool help = false;
  for (const std::string& a : args) help = help || a == "--help" || a == "-h";
  if (!ok) {
    std::fprintf(stderr, "%s: %s\n", argc > 0 ? argv[0] : "lesson", error.c_str());
    args = {"--help"};  // the usage text, then exit 2
  }
  std::vector<char*> rest = {argv[0]};
  for (std::string& a : args) rest.push_back(&a[0]);
  rest.push_back(nullptr);
  const int status = wb::lesson_main(static_cast<int>(rest.size()) - 1, rest.data());
  if (!ok || help || status == wb::kExitUsage)
    std::fprintf(ok && help ? stdout : stderr, "%s", p4::spmv_matrix_usage().c_str());
  return ok ? status : wb::kExitUsage;
}
