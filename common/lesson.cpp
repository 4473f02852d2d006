// SPDX-License-Identifier: MIT
#include "common/lesson.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "common/gpus_used.h"

namespace wb {
namespace {

std::vector<LessonRegistration>& registrations() {
  static std::vector<LessonRegistration> all;
  return all;
}

std::string program_name(const char* argv0) {
  std::string path = argv0 ? argv0 : "lesson";
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The first check_output failure since the last result line (note_check_failure).
std::string& pending_check_failure() {
  static std::string failure;
  return failure;
}

int& largest_gpu_group() {
  static int gpus = 1;
  return gpus;
}

}  // namespace

void note_gpus_used(int gpus) {
  if (gpus > largest_gpu_group()) largest_gpu_group() = gpus;
}

int gpus_used() {
  return largest_gpu_group();
}

void note_check_failure(const std::string& what, const std::string& reason) {
  if (pending_check_failure().empty()) pending_check_failure() = what + ": " + reason;
}

std::string memory_kind_label(const DeviceInfo& device) {
  // HBM stacks sit on buses of 1024 bits and more; GDDR boards use 384 bits or fewer.
  return device.bus_width_bits >= 1024 ? "HBM" : "DRAM";
}

LessonRegistrar::LessonRegistrar(LessonFn fn, const char* id, const char* name, const char* variant, const char* title,
                                 const char* requires_arch) {
  registrations().push_back(LessonRegistration{fn, id, name, variant, title, requires_arch});
}

std::vector<LessonRegistration> registered_lessons() {
  // The order static objects are made in across object files is the linker's: sort by id.
  std::vector<LessonRegistration> lessons = registrations();
  std::stable_sort(lessons.begin(), lessons.end(),
                   [](const LessonRegistration& a, const LessonRegistration& b) { return a.id < b.id; });
  return lessons;
}

Lesson::Lesson(std::string id, std::string name, std::string variant, LessonOptions options, DeviceInfo device)
    : id_(std::move(id)),
      name_(std::move(name)),
      variant_(std::move(variant)),
      options_(std::move(options)),
      device_(std::move(device)) {
  // A benchmark runs many lessons in one process: a check failure noted by one that then stopped
  // without a result line (a refused shape, say) must not become the next lesson's failure text.
  pending_check_failure().clear();
}

std::size_t Lesson::size_or(std::size_t fallback) const {
  if (options_.size.empty()) return fallback;
  std::size_t n = 0;
  if (!parse_count(options_.size, &n))
    throw SizeFormError("--size needs a count like 1000 or 64M, got '" + options_.size + "'");
  return n;
}

std::vector<std::size_t> Lesson::dims_or(const std::vector<std::size_t>& fallback) const {
  if (options_.size.empty()) return fallback;
  std::vector<std::size_t> dims;
  if (!parse_dims(options_.size, &dims) || dims.size() != fallback.size()) {
    std::string shape = "R";
    if (fallback.size() >= 2) shape += "xC";
    if (fallback.size() == 3) shape = "MxNxK";
    throw SizeFormError("--size needs " + std::to_string(fallback.size()) + " dimensions (" + shape + "), got '" +
                        options_.size + "'");
  }
  return dims;
}

void Lesson::require_memory(double device_bytes, double host_bytes) const {
  auto gib = [](double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / static_cast<double>(GiB));
    return std::string(text);
  };
  const std::string size = options_.size.empty() ? std::string("the default size") : "--size " + options_.size;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (device_bytes > static_cast<double>(free_bytes)) {
    throw UsageError(size + " needs about " + gib(device_bytes) + " of GPU memory and " + device_.name + " has " +
                     gib(static_cast<double>(free_bytes)) + " free: try a smaller --size");
  }
  const double host_total = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (host_total > 0 && host_bytes > 0.9 * host_total) {
    throw UsageError(size + " needs about " + gib(host_bytes) + " of host memory for inputs and references, and " +
                     "this machine has " + gib(host_total) + ": try a smaller --size");
  }
}

BenchOptions Lesson::bench_options(bool flush_l2) const {
  return BenchOptions{options_.warmup, options_.repeat, flush_l2};
}

double Lesson::memcpy_gbs(std::size_t bytes) {
  auto it = memcpy_cache_.find(bytes);
  if (it != memcpy_cache_.end()) return it->second;
  const double gbs = measure_memcpy_d2d_gbs(bytes, options_.repeat);
  memcpy_cache_[bytes] = gbs;
  return gbs;
}

double Lesson::dram_peak_gbs() const {
  return wb::dram_peak_gbs(device_);
}
double Lesson::fp32_peak_gflops() const {
  return wb::fp32_peak_gflops(device_);
}

ResultLine Lesson::memory_bound_line(const std::string& launcher, const std::string& problem, const TimingStats& time,
                                     double bytes_moved, bool pass) {
  // The reference copy moves the same total bytes (half read, half written).
  const MeasuredReference copy{"memcpy", memcpy_gbs(static_cast<std::size_t>(bytes_moved / 2))};
  return memory_bound_line(launcher, problem, time, bytes_moved, pass, copy);
}

ResultLine Lesson::memory_bound_line(const std::string& launcher, const std::string& problem, const TimingStats& time,
                                     double bytes_moved, bool pass, const MeasuredReference& reference) {
  ResultLine line;
  line.id = id_;
  line.name = launcher;
  line.problem = problem;
  line.time = time;
  line.rate = gb_per_s(bytes_moved, time.median_ms);
  line.bytes = bytes_moved;
  set_peak(line, dram_peak_gbs());
  line.peak_label = memory_kind_label(device_) + " peak";
  line.ref_value = reference.gbs > 0 ? 100.0 * line.rate / reference.gbs : 0.0;
  line.ref_label = reference.label;
  line.cache_resident = cache_resident(line.rate, bytes_moved);
  line.pass = pass;
  return line;
}

bool Lesson::cache_resident(double rate, double bytes_moved) {
  // Above the copy's bandwidth, a working set that fits in L2 is being served by the cache. A large
  // one is real DRAM traffic: a kernel that mostly reads (or only writes) can beat a copy's mix. So
  // the copy is only timed (once per size) for working sets small enough to matter.
  if (bytes_moved > 2.0 * static_cast<double>(device_.l2_bytes)) return false;
  return rate > 1.05 * memcpy_gbs(static_cast<std::size_t>(bytes_moved / 2));
}

void Lesson::report(const ResultLine& result) {
  ResultLine line = result;
  if (!line.pass && line.failure.empty()) line.failure = pending_check_failure();
  pending_check_failure().clear();  // the next line starts with a clean slate
  if (row_sink_) {
    ResultRow row = result_row(line);
    row.device = device_.name;
    row.date = utc_date();
    row.variant = variant_;
    row.gpus = gpus_used();
    row_sink_(row);
  } else if (options_.csv) {
    if (!csv_header_printed_) std::printf("%s\n", result_csv_header().c_str());
    csv_header_printed_ = true;
    ResultRow row = result_row(line);
    row.device = device_.name;
    row.date = utc_date();
    row.variant = variant_;
    row.gpus = gpus_used();
    std::printf("%s\n", format_result_csv(row).c_str());
  } else {
    std::printf("%s\n", format_result_line(line).c_str());
  }
  std::fflush(stdout);
}

int lesson_main(int argc, char** argv) {
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
  const std::vector<LessonRegistration> lessons = registered_lessons();
  if (lessons.size() != 1) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(),
                 lessons.empty() ? "no lesson registered (WB_LESSON missing from the exercise file)"
                                 : "more than one lesson registered (a lesson executable links one exercise)");
    return kExitFail;
  }
  const LessonRegistration& reg = lessons.front();
  const std::string title = reg.id + " " + reg.name + ": " + reg.title;
  ParseResult parsed = parse_lesson_args(argc, argv);
  if (parsed.status == ParseStatus::Help) {
    std::printf("%s", lesson_usage(program, title).c_str());
    return kExitPass;
  }
  if (parsed.status == ParseStatus::Error) {
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), parsed.error.c_str(), lesson_usage(program, title).c_str());
    return kExitUsage;
  }
  // A --size that no lesson can read is a usage error here, before the GPU probe: bad arguments exit 2
  // on any machine, with a GPU or without. (Whether its dimensions fit is the lesson's to say.)
  // Any number of parts: 5.06 takes four (HEADSxSEQQxSEQKxD).
  std::vector<std::size_t> dims;
  if (!parsed.options.size.empty() && !parse_dim_list(parsed.options.size, &dims)) {
    std::fprintf(stderr, "%s: --size needs a count like 1000 or 64M, or dimensions like 4096x1024, got '%s'\n%s",
                 program.c_str(), parsed.options.size.c_str(), lesson_usage(program, title).c_str());
    return kExitUsage;
  }
  bool seed_given = false;
  for (int i = 1; i < argc; ++i) seed_given = seed_given || std::string(argv[i]).rfind("--seed", 0) == 0;
  if (!seed_given) parsed.options.seed = seed_from_env(parsed.options.seed);

  return run_on_gpu(program, lesson_usage(program, title), [&] {
    DeviceInfo device = query_device(0);
    if (!parsed.options.csv) {
      std::printf("%s (%s)  seed %llu\n%s\n", title.c_str(), reg.variant.c_str(),
                  static_cast<unsigned long long>(parsed.options.seed), describe(device).c_str());
    }
    Lesson lesson(reg.id, reg.name, reg.variant, parsed.options, device);
    return reg.fn(lesson);
  });
}

}  // namespace wb
