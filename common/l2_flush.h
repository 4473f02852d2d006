// SPDX-License-Identifier: MIT
// The L2 flush between timed repeats of memory-bound work: a read of a buffer twice the size of L2.
// Reading, not writing: a memset of the same buffer evicts the kernel's data too, but leaves L2 full of
// dirty lines whose write-back then lands inside the next timed region (about 3% of a copy's time on an
// H100). After a read the lines are clean, and the next timed region starts from DRAM with nothing owed.
// What stays uncounted is the other end: the last L2-full of the timed kernel's own output can still be
// dirty when its stop event fires, and is written back during the next flush: at most one L2 size of
// write-back (50 MB on an H100, beside the 512 MB a copy of 256 MiB moves). Every line and its yardstick
// (the copy, CUB, cuSPARSE) are timed the same way, so the percentages carry the same bias.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include "common/buffer.h"

namespace wb {

class L2Flush {
 public:
  L2Flush();  // allocates and zeroes the buffer (twice the current device's L2, at least 2 MiB)
  void run(cudaStream_t stream) const;  // enqueues the read on `stream`
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer<uint4> buffer_;
  int sm_count_ = 1;
};

}  // namespace wb
