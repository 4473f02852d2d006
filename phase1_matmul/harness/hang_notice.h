// SPDX-License-Identifier: MIT
// What makes the mbarrier rungs (1.12-1.14) hang (1.14's waits are bounded: they stop the kernel
// instead), said in one place: their graded tests print it before the first case (tests/grading.cpp,
// watch_for_hangs, watch_for_stopped_waits) and 1.12's and 1.13's lessons before the first launch
// (bf16_lesson.cpp, warn_mbarrier_hangs), so a learner who sees nothing more knows why.
#pragma once

namespace p1 {

inline constexpr const char kMbarrierHangCauses[] =
    "The usual causes: a wait on a phase (parity) bit that never flips (the parity must toggle each time the "
    "ring of stages wraps around, and producer and consumer must agree on it), or an expect_tx byte count that "
    "differs from the bytes the TMA loads deliver (a box counts in full even where it hangs over the edge of the "
    "matrix).";

// What a cluster adds (1.14): a stage refilled by two producers and read by two blocks.
inline constexpr const char kClusterHangCauses[] =
    "With clusters also: a stage released in this block's empty barrier only (the peer's producer waits for "
    "arrivals that never come, or its count was set too low and it refills early), a multicast whose CTA mask "
    "leaves out a block (that block's full barrier never gets those bytes), or two blocks of one cluster that "
    "walk different numbers of steps.";
}  // namespace p1
