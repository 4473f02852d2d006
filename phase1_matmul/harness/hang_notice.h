// SPDX-License-Identifier: MIT
// What makes the mbarrier rungs (1.12, 1.13) hang, said in one place: their graded tests print it
// before the first case (tests/grading.cpp, watch_for_hangs) and their lessons before the first launch
// (bf16_lesson.cpp, warn_mbarrier_hangs), so a learner who sees nothing more knows why.
#pragma once

namespace p1 {

inline constexpr const char kMbarrierHangCauses[] =
    "The usual causes: a wait on a phase (parity) bit that never flips (the parity must toggle each time the "
    "ring of stages wraps around, and producer and consumer must agree on it), or an expect_tx byte count that "
    "differs from the bytes the TMA loads deliver (a box counts in full even where it hangs over the edge of the "
    "matrix).";

}  // namespace p1
