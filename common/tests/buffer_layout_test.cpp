// SPDX-License-Identifier: MIT
// The layout of guarded buffers in both modes: guarded (canaries on both sides, 256-byte aligned
// data) and exact (WB_EXACT_INPUTS: nothing after the data, so memcheck sees a read past the end).
#include <cstdlib>

#include "common/buffer.h"
#include "common/testing.h"

TEST_CASE("guarded layout: canaries on both sides, at least 256 bytes' worth", "[host][buffer]") {
  const wb::GuardLayout floats = wb::guard_layout(1024, sizeof(float), false);
  CHECK(floats.front == 1024);
  CHECK(floats.back == 1024);
  // A small guard grows to 256 bytes so data() stays as aligned as cudaMalloc's pointer.
  const wb::GuardLayout small = wb::guard_layout(3, sizeof(double), false);
  CHECK(small.front == 32);
  CHECK(small.back == 32);
}

TEST_CASE("exact layout: nothing after the data, the front keeps data()'s offset from 256 bytes", "[host][buffer]") {
  const wb::GuardLayout plain = wb::guard_layout(1024, sizeof(float), true);
  CHECK(plain.front == 0);
  CHECK(plain.back == 0);
  // 2.03 shifts its data by k floats (a guard of 1024 + k): the shift must survive the exact mode.
  const wb::GuardLayout shifted = wb::guard_layout(1024 + 3, sizeof(float), true);
  CHECK(shifted.front == 3);
  CHECK(shifted.back == 0);
  // phase 3's 4096-element input guard is a whole number of 256-byte blocks: no front either.
  CHECK(wb::guard_layout(4096, sizeof(double), true).front == 0);
}

TEST_CASE("WB_EXACT_INPUTS switches the exact mode on; unset, empty or 0 leaves it off", "[host][buffer]") {
  const char* saved = std::getenv("WB_EXACT_INPUTS");
  const std::string restore = saved ? saved : "";
  ::unsetenv("WB_EXACT_INPUTS");
  CHECK_FALSE(wb::exact_inputs_mode());
  ::setenv("WB_EXACT_INPUTS", "0", 1);
  CHECK_FALSE(wb::exact_inputs_mode());
  ::setenv("WB_EXACT_INPUTS", "", 1);
  CHECK_FALSE(wb::exact_inputs_mode());
  ::setenv("WB_EXACT_INPUTS", "1", 1);
  CHECK(wb::exact_inputs_mode());
  if (saved)
    ::setenv("WB_EXACT_INPUTS", restore.c_str(), 1);
  else
    ::unsetenv("WB_EXACT_INPUTS");
}
