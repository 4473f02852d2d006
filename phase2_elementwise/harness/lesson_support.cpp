// SPDX-License-Identifier: MIT
#include "phase2_elementwise/harness/lesson_support.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/data.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "phase2_elementwise/harness/reference.h"

namespace p2 {
namespace {

std::string shape_text(int rows, int cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

bool rmsnorm_shape(wb::Lesson& lesson, const char* kernel, RmsnormLauncher launch, int rows, int cols) {
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  const float eps = 1e-5f;
  const std::vector<float> in = wb::random_floats(count, lesson.seed());
  const std::vector<float> weight = wb::random_floats(static_cast<std::size_t>(cols), lesson.seed() + 1, 0.5f, 1.5f);
  std::vector<float> expected(count);
  {
    const std::vector<double> exact = p2::rmsnorm_reference(in, weight, rows, cols, eps);
    for (std::size_t i = 0; i < count; ++i) expected[i] = static_cast<float>(exact[i]);
  }
  wb::DeviceBuffer<float> din(in), dweight(weight);
  wb::GuardedDeviceBuffer<float> dout(count);
  const wb::Tolerance tol = p2::rmsnorm_tolerance(cols);
  const double bytes = 8.0 * static_cast<double>(count) + 4.0 * cols;
  return lesson
      .run_memory_bound(
          kernel, shape_text(rows, cols), bytes, dout, expected, tol,
          [&] { launch(din.data(), dweight.data(), dout.data(), rows, cols, eps, nullptr); },
          static_cast<std::size_t>(cols))
      .pass;
}

}  // namespace

int rmsnorm_lesson(wb::Lesson& lesson, const char* kernel, RmsnormLauncher launch) {
  std::vector<std::vector<std::size_t>> shapes = {{262144, 256}, {65536, 1024}, {16384, 4096}, {2048, 32768}};
  if (!lesson.options().size.empty()) shapes = {lesson.dims_or({16384, 4096})};
  std::size_t largest = 0;
  for (const std::vector<std::size_t>& s : shapes) {
    if (s[0] == 0 || s[1] == 0 || s[0] > INT_MAX || s[1] > INT_MAX) {
      throw wb::UsageError("--size: rows and cols must each be between 1 and 2^31 - 1");
    }
    largest = std::max(largest, s[0] * s[1]);
  }
  // Device: in + out; host: in, the double reference, expected and one download per check.
  lesson.require_memory(8.0 * static_cast<double>(largest), 20.0 * static_cast<double>(largest));
  bool pass = true;
  for (const std::vector<std::size_t>& s : shapes) {
    pass = rmsnorm_shape(lesson, kernel, launch, static_cast<int>(s[0]), static_cast<int>(s[1])) && pass;
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

int softmax_lesson(wb::Lesson& lesson, const char* kernel, SoftmaxLauncher launch, double sum_units_per_col) {
  const std::vector<std::size_t> dims = lesson.dims_or({16384, 4096});
  if (dims[0] > INT_MAX || dims[1] > INT_MAX) throw wb::UsageError("--size: rows and cols must each be below 2^31");
  const int rows = static_cast<int>(dims[0]);
  const int cols = static_cast<int>(dims[1]);
  const std::size_t n = dims[0] * dims[1];
  // Device: in and out. Host: in, the double reference, its float copy, and the downloads.
  lesson.require_memory(8.0 * static_cast<double>(n), 28.0 * static_cast<double>(n));
  const std::vector<float> in = wb::random_floats(n, lesson.seed(), -8.0f, 8.0f);
  const std::vector<double> reference = p2::softmax_reference(in, rows, cols);
  const std::vector<float> expected(reference.begin(), reference.end());

  // The test derives this bound per element; here one bound for all (|x - max| < 16 with inputs in
  // [-8, 8)): expf 4u and the rounded x - max 16u, the sum's growth with cols (the kernel's own),
  // 1 / sum and the product 2u, the reference rounded to float 1u; a small absolute term for denormals.
  const wb::Tolerance tolerance{std::ldexp(1.0, -140), (28.0 + sum_units_per_col * cols) * wb::kFloatEpsilon};

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  const double bytes = 8.0 * static_cast<double>(n);  // read once, written once
  const bool pass = lesson
                        .run_memory_bound(
                            kernel, shape_text(rows, cols), bytes, dout, expected, tolerance,
                            [&] { launch(din.data(), dout.data(), rows, cols, nullptr); }, dims[1])
                        .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

int layernorm_lesson(wb::Lesson& lesson, const char* kernel, LayernormLauncher launch) {
  const std::vector<std::size_t> dims = lesson.dims_or({16384, 4096});
  if (dims[0] == 0 || dims[1] == 0 || dims[0] > INT_MAX || dims[1] > INT_MAX)
    throw wb::UsageError("--size: rows and cols must each be between 1 and 2^31 - 1");
  const int rows = static_cast<int>(dims[0]);
  const int cols = static_cast<int>(dims[1]);
  const std::size_t count = dims[0] * dims[1];
  // Device: x and y. Host: x, the double reference, expected values and one download per check.
  lesson.require_memory(8.0 * static_cast<double>(count), 28.0 * static_cast<double>(count));
  const float eps = 1e-5f;
  std::vector<float> x = wb::random_floats(count, lesson.seed());
  const std::vector<float> offsets = wb::random_floats(dims[0], lesson.seed() + 3, -64.0f, 64.0f);
  for (std::size_t i = 0; i < count; ++i) x[i] += offsets[i / dims[1]];
  const std::vector<float> gamma = wb::random_floats(dims[1], lesson.seed() + 1, 0.5f, 1.5f);
  const std::vector<float> beta = wb::random_floats(dims[1], lesson.seed() + 2, -0.5f, 0.5f);
  const p2::LayernormReference ref = p2::layernorm_reference(x, gamma, beta, rows, cols, eps);
  const std::vector<float> want_y(ref.y.begin(), ref.y.end());
  const std::vector<float> want_mean(ref.mean.begin(), ref.mean.end());
  const std::vector<float> want_rstd(ref.rstd.begin(), ref.rstd.end());
  auto y_tolerance = [&](std::size_t i) {
    const std::size_t r = i / dims[1];
    return p2::layernorm_y_tolerance(ref.bound[r], x[i] - ref.mean[r], ref.rstd[r], gamma[i % dims[1]], ref.y[i]);
  };
  auto mean_tolerance = [&](std::size_t r) { return p2::layernorm_mean_tolerance(ref.bound[r], ref.mean[r]); };
  auto rstd_tolerance = [&](std::size_t r) { return p2::layernorm_rstd_tolerance(ref.bound[r], ref.rstd[r]); };

  wb::DeviceBuffer<float> dx(x), dgamma(gamma), dbeta(beta);
  wb::GuardedDeviceBuffer<float> dy(count), dmean(dims[0]), drstd(dims[0]);
  // Poisoned outputs, one launch, checked; then timed with L2 flushed and checked again (the last
  // timed launch's output: a kernel that breaks on later calls is caught).
  wb::MeasureSteps steps;
  steps.poison = [&] {
    dy.fill(wb::poison_value<float>());
    dmean.fill(wb::poison_value<float>());
    drstd.fill(wb::poison_value<float>());
  };
  steps.launch = [&] {
    launch(dx.data(), dgamma.data(), dbeta.data(), dy.data(), dmean.data(), drstd.data(), rows, cols, eps, nullptr);
  };
  steps.verify = [&](const std::string& when) {
    bool ok = wb::check_output(kernel + when + " y", want_y, dy, y_tolerance, dims[1]);
    ok = wb::check_output(kernel + when + " mean", want_mean, dmean, mean_tolerance) && ok;
    return wb::check_output(kernel + when + " rstd", want_rstd, drstd, rstd_tolerance) && ok;
  };
  steps.options = lesson.bench_options(true);
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  const bool pass = measured.pass;
  const double bytes = 8.0 * static_cast<double>(count) + 8.0 * cols + 8.0 * rows;
  lesson.report(lesson.memory_bound_line(kernel, shape_text(rows, cols), time, bytes, pass));
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p2
