// SPDX-License-Identifier: MIT
#include "phase0_basics/tests/histogram_grading.h"

#include <cstring>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase0_basics/harness/reference.h"

namespace {

// Guard bytes on each side of the input: more than any block reads past its share.
constexpr std::size_t kInputGuard = 256;

// The input `offset` bytes past a 256-byte boundary, between guard bytes of value kGuardByte: a
// kernel that counts a byte it read past either end adds to the guard value's bin, which the judge
// recognises. Under WB_EXACT_INPUTS (the memcheck run of the grade) nothing follows the input, so
// memcheck reports a read past n even when the kernel throws the value away (wb::guard_layout).
class GuardedBytes {
 public:
  GuardedBytes(const std::vector<unsigned char>& bytes, std::size_t offset)
      : n_(bytes.size()), layout_(wb::guard_layout(kInputGuard + offset, 1, wb::exact_inputs_mode())) {
    all_.reserve(layout_.front + n_ + layout_.back);
    all_.assign(layout_.front, kGuardByte);
    all_.insert(all_.end(), bytes.begin(), bytes.end());
    all_.insert(all_.end(), layout_.back, kGuardByte);
    storage_ = wb::DeviceBuffer<unsigned char>(all_);
  }
  const unsigned char* data() const { return storage_.data() + layout_.front; }
  // "" when the input and its guards are byte for byte what was uploaded.
  std::string changes() const {
    if (all_.empty()) return "";
    const std::vector<unsigned char> now = storage_.download();
    if (std::memcmp(now.data(), all_.data(), all_.size()) == 0) return "";
    std::size_t first = 0;
    while (now[first] == all_[first]) ++first;
    const long long index = static_cast<long long>(first) - static_cast<long long>(layout_.front);
    return "Input modified: data[" + std::to_string(index) + "] changed (n = " + std::to_string(n_) +
           "). A histogram only reads its input: keep counts in shared memory and in bins, never in data.\n";
  }

 private:
  std::size_t n_;
  wb::GuardLayout layout_;
  std::vector<unsigned char> all_;
  wb::DeviceBuffer<unsigned char> storage_;
};

}  // namespace

const char* describe(ByteInput kind) {
  switch (kind) {
    case ByteInput::Uniform:
      return "uniformly random";
    case ByteInput::AllSame:
      return "all-equal (every byte 90)";
    case ByteInput::TwoValues:
      return "two-valued (127 or 128)";
  }
  return "?";
}

std::vector<unsigned char> make_bytes(ByteInput kind, std::size_t n, std::uint64_t seed) {
  switch (kind) {
    case ByteInput::Uniform:
      return p0::random_bytes(n, seed);
    case ByteInput::AllSame:
      return std::vector<unsigned char>(n, kHotByte);
    case ByteInput::TwoValues: {
      std::vector<unsigned char> bytes = p0::random_bytes(n, seed);
      for (unsigned char& b : bytes) b = (b & 1) ? 128 : 127;
      return bytes;
    }
  }
  return {};
}

std::string grade_histogram(const char* launcher, HistogramLauncher launch, const std::vector<unsigned char>& data,
                            const HistogramRun& run) {
  const std::size_t n = data.size();
  GuardedBytes input(data, run.offset);
  // The grader itself: the pointer really is as misaligned as the case says.
  if (reinterpret_cast<std::uintptr_t>(input.data()) % 256 != run.offset)
    return "grader defect: the input is not " + std::to_string(run.offset) + " bytes past a 256-byte boundary\n";
  wb::GuardedDeviceBuffer<unsigned int> bins(static_cast<std::size_t>(run.num_bins));  // poisoned, canaries around
  for (int c = 0; c < run.calls; ++c) {
    const std::string failed =
        wb::test::launch_and_explain(launcher, [&] { launch(input.data(), n, bins.data(), run.num_bins, nullptr); });
    if (!failed.empty()) return failed;
  }
  p0::HistogramCase hc;
  hc.data = data.data();
  hc.n = n;
  hc.offset = run.offset % 16;
  hc.num_bins = run.num_bins;
  hc.calls = run.calls;
  hc.guard_byte = kGuardByte;
  const std::string verdict =
      p0::judge_histogram(hc, p0::histogram_reference(data.data(), n, run.num_bins), bins.download());
  if (!verdict.empty()) return verdict;
  const wb::GuardReport guards = bins.check_guards();
  if (!guards.ok()) return guards.describe(std::string(launcher) + " bins");
  return input.changes();
}

void check_histogram(const char* launcher, HistogramLauncher launch, ByteInput kind, std::size_t n, std::uint64_t seed,
                     const std::vector<std::size_t>& offsets, int num_bins, int calls) {
  const std::vector<unsigned char> data = make_bytes(kind, n, seed);
  for (std::size_t offset : offsets) {
    HistogramRun run;
    run.offset = offset;
    run.num_bins = num_bins;
    run.calls = calls;
    const std::string verdict = grade_histogram(launcher, launch, data, run);
    if (!verdict.empty())
      FAIL(launcher << " with n = " << n << ", num_bins = " << num_bins << ", " << describe(kind) << " bytes, data "
                    << offset << " bytes past a 16-byte boundary, " << calls
                    << (calls == 1 ? " call" : " calls on the same bins") << ", seed " << seed
                    << " (replay with WB_SEED=" << seed << "):\n"
                    << verdict);
  }
}
