// SPDX-License-Identifier: MIT
// The main() of every phase 6 lesson: NVLink multicast off (NCCL_NVLS_ENABLE=0) before anything can
// start NCCL, then the common lesson main.
#include "common/lesson.h"
#include "phase6_multi_gpu/harness/ranks.h"

int main(int argc, char** argv) {
  p6::disable_nvls();
  return wb::lesson_main(argc, argv);
}
