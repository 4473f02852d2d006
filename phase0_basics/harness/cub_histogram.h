// SPDX-License-Identifier: MIT
// CUB's DeviceHistogram::HistogramEven, the yardstick of 0.11's lesson. It lives here, outside the file
// learners edit, and cub_histogram.cu is the only phase 0 file that includes CUB.
#pragma once

#include <cstddef>
#include <vector>

#include "common/timer.h"

namespace p0 {

// cub::DeviceHistogram::HistogramEven over n device bytes into num_bins equal-width bins of [0, 256)
// (levels 0 and 256: the bins of histogram_bins), timed with `options` on the default stream. CUB's
// temporary storage is allocated once, outside the timed region. The counts of the last run go to
// *bins_out when it is given.
wb::TimingStats time_cub_histogram(const unsigned char* data, std::size_t n, int num_bins,
                                   const wb::BenchOptions& options, std::vector<unsigned int>* bins_out = nullptr);

}  // namespace p0
