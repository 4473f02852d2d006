// SPDX-License-Identifier: MIT
// 6.03's lesson main: takes its own options out of argv (--net-gbps G: the network bandwidth per GPU in
// Gb/s; --net-us U: one network hop's latency in microseconds; both for the all-reduce model past one
// host), then runs as every phase 6 lesson: NVLink multicast off, the common lesson main.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/gpu.h"
#include "common/lesson.h"
#include "phase6_multi_gpu/harness/collectives.h"

int main(int argc, char** argv) {
  p6::disable_nvls();
  std::vector<char*> rest;
  p6::NetworkModelOptions& net = p6::network_model_options();
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && (arg == "--net-gbps" || arg == "--net-us")) {
      char* end = nullptr;
      const double value = i + 1 < argc ? std::strtod(argv[i + 1], &end) : 0.0;
      if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || !(value > 0) || value > 1e6) {
        std::fprintf(stderr, "%s takes a positive number (e.g. --net-gbps 400, --net-us 5)\n", arg.c_str());
        return wb::kExitUsage;
      }
      (arg == "--net-gbps" ? net.gbps : net.hop_us) = value;
      ++i;
      continue;
    }
    rest.push_back(argv[i]);
  }
  rest.push_back(nullptr);
  return wb::lesson_main(static_cast<int>(rest.size()) - 1, rest.data());
}
