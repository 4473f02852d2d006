// SPDX-License-Identifier: MIT
// The L2 flush between timed repeats of memory-bound work: a read of a buffer twice the size of L2.
// Reading, not writing: a memset of the same buffer evicts the kernel's data too, but leaves L2 full of
// dirty lines whose write-back then lands inside the next timed region (about 3% of a copy's time on an
// H100). After a read the lines are clean, and the next timed region starts from DRAM with nothing owed.
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
