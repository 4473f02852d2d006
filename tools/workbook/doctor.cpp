// SPDX-License-Identifier: MIT
// workbook doctor: checks what most often breaks a CUDA set-up and names the exact fix.
#include <unistd.h>

#include <cstdio>
#include <map>

#include "tools/workbook/commands.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/manifest.h"
#include "tools/workbook/ncu.h"
#include "tools/workbook/runner.h"
#include "tools/workbook/text.h"

namespace wbcli {
namespace {

struct Doctor {
  int failures = 0, warnings = 0;
  bool no_gpu = false;  // a machine without an NVIDIA GPU: a situation with a next step, not a fault

  void ok(const std::string& what) { std::printf("[ ok ] %s\n", what.c_str()); }
  void info(const std::string& what) { std::printf("[info] %s\n", what.c_str()); }
  void skip(const std::string& what) { std::printf("[skip] %s\n", what.c_str()); }
  void note(const std::string& what, const std::string& next) {
    std::printf("[note] %s\n       next: %s\n", what.c_str(), next.c_str());
  }
  void warn(const std::string& what, const std::string& fix) {
    ++warnings;
    std::printf("[warn] %s\n       fix: %s\n", what.c_str(), fix.c_str());
  }
  void fail(const std::string& what, const std::string& fix) {
    ++failures;
    std::printf("[FAIL] %s\n       fix: %s\n", what.c_str(), fix.c_str());
  }
};

std::string output_of(const std::vector<std::string>& argv, int* exit_code = nullptr) {
  RunOptions options;
  options.timeout_s = 60;
  const ProcessResult run = run_process(argv, options);
  if (exit_code != nullptr) *exit_code = run.started ? run.exit_code : -1;
  return run.started ? run.output : "";
}

std::map<std::string, std::string> key_values(const std::string& text) {
  std::map<std::string, std::string> values;
  for (const std::string& line : split_lines(text)) {
    const std::string::size_type equals = line.find('=');
    if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return values;
}

std::optional<Version> catch2_version(const std::string& catch2_dir) {
  for (const char* file : {"Catch2ConfigVersion.cmake", "catch2-config-version.cmake"}) {
    const std::optional<std::string> text = read_file(join_path(catch2_dir, file));
    if (!text) continue;
    const std::string::size_type at = text->find("PACKAGE_VERSION \"");
    if (at != std::string::npos) return parse_dotted_version(text->substr(at + 17, 16));
  }
  return std::nullopt;
}

// What the checks share: the report, the build's cache, and what the earlier checks found.
struct DoctorRun {
  Doctor doctor;
  std::string source_dir, build_dir;
  std::optional<std::string> cache;  // CMakeCache.txt, when the build is configured
  std::string nvcc;                  // the nvcc later checks ask ("" when there is none)
  std::optional<Version> cuda;       // its version
  bool wsl = false, smi_ok = false;
  std::map<std::string, std::string> probe;  // workbook_gpu_probe's name=value lines, when it ran
  std::string cached(const std::string& name) const {
    return cache ? cmake_cache_value(*cache, name).value_or("") : std::string();
  }
};

const char* const kWslCauses =
    "under WSL2: install the NVIDIA driver on Windows only (never a Linux driver inside WSL, which "
    "hides /usr/lib/wsl/lib/libcuda.so), update Windows and WSL (wsl --update), and check that "
    "/usr/lib/wsl/lib is on the library path; WSL1 has no GPU (wsl --set-version <distro> 2)";

// CMake 3.25 or newer.
void check_cmake(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  // CMake: the presets are version 6, which CMake 3.25 introduced.
  const std::optional<Version> cmake = parse_cmake_version(output_of({"cmake", "--version"}));
  if (!cmake)
    doctor.fail("cmake not found on PATH", "install CMake 3.25 or newer: pip install cmake, or apt.kitware.com");
  else if (*cmake < Version{3, 25, 0})
    doctor.fail("cmake " + cmake->text() + " is too old for CMakePresets.json (version 6 needs 3.25)",
                "install a newer CMake: pip install --user cmake (puts cmake 3.30+ in ~/.local/bin)");
  else
    doctor.ok("cmake " + cmake->text());
}

// The CUDA toolkit: nvcc on PATH, its version, and the one CMake found.
void check_nvcc(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  const std::string& build_dir = run.build_dir;
  const std::optional<std::string>& cache = run.cache;
  auto cached = [&run](const std::string& name) { return run.cached(name); };
  std::string& nvcc = run.nvcc;
  std::optional<Version>& cuda = run.cuda;
  // nvcc, on PATH and as CMake found it.
  nvcc = find_program("nvcc");
  const std::string nvcc_off_path = nvcc.empty() ? find_program("nvcc", {"/usr/local/cuda/bin"}) : "";
  const std::string cmake_nvcc = cached("CMAKE_CUDA_COMPILER");
  if (nvcc.empty() && nvcc_off_path.empty() && cmake_nvcc.empty())
    doctor.fail("nvcc not found (no CUDA toolkit on PATH or in /usr/local/cuda)",
                "install the CUDA toolkit 12.4 or newer (https://developer.nvidia.com/cuda-downloads), then "
                "export PATH=/usr/local/cuda/bin:$PATH");
  else if (nvcc.empty())
    doctor.warn("nvcc is installed (" + (nvcc_off_path.empty() ? cmake_nvcc : nvcc_off_path) + ") but not on PATH",
                "add to ~/.bashrc: export PATH=/usr/local/cuda/bin:$PATH (CMake also finds it with "
                "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)");
  if (nvcc.empty()) nvcc = !cmake_nvcc.empty() ? cmake_nvcc : nvcc_off_path;
  if (!nvcc.empty()) {
    cuda = parse_nvcc_version(output_of({nvcc, "--version"}));
    if (!cuda)
      doctor.fail(nvcc + " does not run", "reinstall the CUDA toolkit");
    else if (*cuda < Version{12, 4, 0})
      doctor.fail("CUDA " + cuda->text() + " is older than the 12.4 the workbook needs",
                  "install CUDA 12.4 or newer and put its bin/ first on PATH");
    else
      doctor.ok("nvcc " + cuda->text() + " (" + nvcc + ")");
    if (cache && cmake_nvcc.empty())
      doctor.fail("the build in " + build_dir + " did not find nvcc",
                  "rm -rf " + build_dir +
                      " && ./workbook (with nvcc on PATH), or configure with "
                      "-DCMAKE_CUDA_COMPILER=" +
                      nvcc);
  }
}

// Catch2 2.13 or 3.x.
void check_catch2(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  auto cached = [&run](const std::string& name) { return run.cached(name); };
  // Catch2 2.13 or 3.x.
  std::string catch2_dir = cached("Catch2_DIR");
  if (catch2_dir.empty() || contains(catch2_dir, "NOTFOUND"))
    for (const char* dir :
         {"/usr/lib/cmake/Catch2", "/usr/local/lib/cmake/Catch2", "/usr/lib/x86_64-linux-gnu/cmake/Catch2",
          "/usr/share/Catch2/cmake", "/usr/lib64/cmake/Catch2"})
      if (is_directory(dir)) {
        catch2_dir = dir;
        break;
      }
  const std::optional<Version> catch2 = catch2_dir.empty() ? std::nullopt : catch2_version(catch2_dir);
  if (!catch2)
    doctor.fail("Catch2 not found",
                "sudo apt-get install catch2 (Debian/Ubuntu) or sudo dnf install catch-devel; "
                "or -DCatch2_DIR=<prefix>/lib/cmake/Catch2");
  else if (catch2->major == 3 || (catch2->major == 2 && catch2->minor >= 13))
    doctor.ok("Catch2 " + catch2->text() + " (" + catch2_dir + ")");
  else
    doctor.fail("Catch2 " + catch2->text() + " is not 2.13+ or 3.x",
                "install Catch2 3 (or 2.13) from your OS packages");
}

// The host compiler nvcc will call, against the newest this CUDA accepts.
void check_host_compiler(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  const std::string& build_dir = run.build_dir;
  auto cached = [&run](const std::string& name) { return run.cached(name); };
  std::optional<Version>& cuda = run.cuda;
  std::string cxx = cached("CMAKE_CUDA_HOST_COMPILER");
  if (cxx.empty()) cxx = cached("CMAKE_CXX_COMPILER");
  if (cxx.empty()) cxx = find_program("g++");
  if (cxx.empty()) {
    doctor.fail("no C++ compiler found", "sudo apt-get install g++");
  } else if (cuda) {
    const std::string banner = output_of({cxx, "--version"});
    const bool clang = contains(banner, "clang");
    const std::optional<Version> version =
        parse_dotted_version(output_of({cxx, clang ? "-dumpversion" : "-dumpfullversion"}));
    const int newest = clang ? newest_clang_for_cuda(*cuda) : newest_gcc_for_cuda(*cuda);
    const std::string kind = clang ? "clang" : "gcc";
    if (version && newest > 0 && version->major > newest)
      doctor.fail(kind + " " + version->text() + " (" + cxx + ") is newer than CUDA " + cuda->text() +
                      " accepts (up to " + kind + " " + std::to_string(newest) + ")",
                  std::string("install ") + (clang ? "clang-" : "g++-") + std::to_string(newest) +
                      " and configure with -DCMAKE_CUDA_HOST_COMPILER=" + (clang ? "clang++-" : "g++-") +
                      std::to_string(newest) + " (e.g. rm -rf " + build_dir +
                      " && WORKBOOK_CMAKE_ARGS=-DCMAKE_CUDA_HOST_COMPILER=g++-" + std::to_string(newest) +
                      " ./workbook)");
    else if (version)
      doctor.ok("host compiler " + kind + " " + version->text() + " (" + cxx + ")");
  }
}

// The driver and the GPU, from nvidia-smi (no CUDA runtime involved); a machine without a GPU is a situation, not a
// fault.
void check_driver(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  std::optional<Version>& cuda = run.cuda;
  bool& wsl = run.wsl;
  bool& smi_ok = run.smi_ok;
  const std::string wsl_causes = kWslCauses;
  // Driver and GPU: nvidia-smi first (no CUDA runtime involved).
  wsl = is_wsl(read_file("/proc/version").value_or(""));
  std::string smi = find_program("nvidia-smi", {"/usr/lib/wsl/lib"});
  int smi_status = -1;
  const std::string smi_output = smi.empty() ? "" : output_of({smi}, &smi_status);
  smi_ok = !smi.empty() && smi_status == 0;
  doctor.no_gpu = !smi_ok && !wsl && !pci_lists_nvidia_gpu("/sys/bus/pci/devices");
  if (doctor.no_gpu) {
    doctor.note("no NVIDIA GPU on this machine: lessons, graded tests and benchmarks need one, and say so when run",
                "until then, ./workbook check N.NN compiles your file and shows the compiler's errors;\n"
                "       ./workbook hint N.NN and ./workbook solution N.NN --force work; ctest --preset default runs "
                "the host tests.\n"
                "       For grading: any NVIDIA GPU of compute capability 7.5 or newer (1.09, 1.10 and 5.05 need "
                "8.0;\n       1.11-1.14 and 5.08 need 9.0, a Hopper GPU). Clone the project there and run ./workbook.");
  } else if (!smi_ok) {
    doctor.fail(
        smi.empty() ? "nvidia-smi not found: no NVIDIA driver installed" : "nvidia-smi fails: the driver sees no GPU",
        wsl ? wsl_causes
            : "install the NVIDIA driver (ubuntu-drivers install, or the .run/.deb from nvidia.com) and "
              "reboot; on a server check that the GPU is passed through to this machine or container "
              "(docker run --gpus all)");
  } else {
    const std::optional<Version> driver_cuda = parse_driver_cuda_version(smi_output);
    if (driver_cuda && cuda && driver_cuda->major < cuda->major)
      doctor.fail(
          "the driver supports CUDA up to " + driver_cuda->text() + ", older than the toolkit's " + cuda->text(),
          "update the NVIDIA driver to one for CUDA " + std::to_string(cuda->major) + " (or use a CUDA " +
              std::to_string(driver_cuda->major) + ".x toolkit)");
    else if (driver_cuda && cuda && driver_cuda->minor < cuda->minor && driver_cuda->major == cuda->major)
      doctor.warn("the driver supports CUDA " + driver_cuda->text() + ", older than the toolkit's " + cuda->text() +
                      " (minor-version compatibility usually works, PTX JIT does not)",
                  "update the NVIDIA driver");
    else if (driver_cuda)
      doctor.ok("driver supports CUDA " + driver_cuda->text());
  }
}

// The architectures this build compiles for, and why when they were guessed.
void report_architectures(DoctorRun& run) {
  const std::string archs = run.cached("CMAKE_CUDA_ARCHITECTURES");
  if (run.cache && !archs.empty())
    run.doctor.info("this build compiles for sm_" + archs +
                    (run.cached("WORKBOOK_ARCHITECTURES_GUESSED").empty()
                         ? std::string()
                         : " (chosen because no GPU was visible when it was configured; a configure that sees a GPU "
                           "builds for that GPU instead)"));
}

// What workbook_gpu_probe said: its name=value lines, its exit status and the versions and GPU in them.
struct ProbeResult {
  std::map<std::string, std::string> facts;
  int status = -1;
  int cc = 0;  // compute capability, major * 10 + minor; 0 unknown
  Version driver, runtime;
};

// Builds the probe through the project's own build and runs it; nothing (after saying so) when it does not
// build.
std::optional<ProbeResult> build_and_run_probe(DoctorRun& run) {
  const std::string cmake_command = run.cached("CMAKE_COMMAND").empty() ? "cmake" : run.cached("CMAKE_COMMAND");
  int built = -1;
  output_of({cmake_command, "--build", run.build_dir, "--target", "workbook_gpu_probe"}, &built);
  if (built != 0) {
    run.doctor.fail("the GPU probe does not build",
                    "see: cmake --build " + run.build_dir + " --target workbook_gpu_probe");
    return std::nullopt;
  }
  ProbeResult probe;
  probe.facts = key_values(output_of({join_path(run.build_dir, "tools/workbook/workbook_gpu_probe")}, &probe.status));
  run.probe = probe.facts;
  probe.cc = static_cast<int>(parse_number(probe.facts["compute_capability"]).value_or(0));
  probe.driver = decode_cuda_version(static_cast<int>(parse_number(probe.facts["driver_version"]).value_or(0)));
  probe.runtime = decode_cuda_version(static_cast<int>(parse_number(probe.facts["runtime_version"]).value_or(0)));
  return probe;
}

// The test kernel's verdict: it ran, or the first cause that explains why not, with its fix.
void judge_probe(DoctorRun& run, ProbeResult& probe) {
  Doctor& doctor = run.doctor;
  std::map<std::string, std::string>& facts = probe.facts;
  const std::string& build_dir = run.build_dir;
  const std::string archs = run.cached("CMAKE_CUDA_ARCHITECTURES");
  const int cc = probe.cc;
  if (probe.status == 0) {
    doctor.ok("a test kernel ran on " + facts["device_name"] + " (sm_" + facts["compute_capability"] + "), runtime " +
              probe.runtime.text() + ", driver " + probe.driver.text());
  } else if (probe.driver.major == 0) {
    // No libcuda at all: nvidia-smi above already named the fix when it failed too.
    if (run.smi_ok)
      doctor.fail("the CUDA runtime finds no NVIDIA driver (libcuda.so.1), although nvidia-smi runs",
                  run.wsl ? kWslCauses
                          : "check that libcuda.so.1 is on the library path (ldconfig -p | grep libcuda); "
                            "containers need the NVIDIA container toolkit (--gpus all)");
    else
      doctor.skip("test kernel: no driver (see above)");
  } else if (facts["device_count_error"] == "cudaErrorInsufficientDriver" || probe.driver < probe.runtime) {
    doctor.fail("the driver (CUDA " + probe.driver.text() + ") is older than the runtime this build uses (" +
                    probe.runtime.text() + ")",
                "update the NVIDIA driver, or build with an older CUDA toolkit");
  } else if (cc > 0 && cc < 75) {
    doctor.fail("the GPU is sm_" + std::to_string(cc) + "; the workbook (and CUDA 13) needs sm_75 or newer",
                "use a Turing or newer GPU (RTX 20xx, T4, A100, RTX 30xx/40xx, H100)");
  } else if (cc > 0 && !architectures_cover(archs, cc)) {
    doctor.fail(
        "this build has no code for the GPU's sm_" + std::to_string(cc) + " (CMAKE_CUDA_ARCHITECTURES=" + archs +
            "): lessons fail with \"no kernel image is available\"",
        "cmake -B " + build_dir + " -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc) + " && ./workbook check again");
  } else if (probe.status == kExitNoGpu) {
    doctor.fail("the CUDA runtime sees no GPU: " + facts["probe"],
                run.wsl ? kWslCauses
                        : "check nvidia-smi; if it lists a GPU, check CUDA_VISIBLE_DEVICES and that /dev/nvidia* "
                          "are readable (containers: --gpus all)");
  } else {
    doctor.fail("the test kernel failed: " + facts["probe"],
                contains(facts["probe"], "no code for")
                    ? "cmake -B " + build_dir + " -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc)
                    : "run nvidia-smi; reboot after a driver update");
  }
}

// The rungs that need a newer GPU (1.09, 1.10 and 5.05 sm_80, 1.11-1.14 and 5.08 Hopper): which of them this one
// runs.
void report_rungs_this_gpu_runs(DoctorRun& run, int cc) {
  const ManifestResult loaded = load_manifest(run.build_dir);
  if (!loaded.manifest) return;
  const std::vector<std::string> unsupported = unsupported_exercises(*loaded.manifest, cc);
  std::vector<std::string> demanding;
  for (const Exercise& exercise : loaded.manifest->exercises)
    if (!exercise.arch_requirement.empty()) demanding.push_back(exercise.id);
  if (!demanding.empty() && unsupported.empty())
    run.doctor.ok("sm_" + std::to_string(cc) + " runs every exercise, the tensor-core rungs " + join(demanding, ", ") +
                  " included");
  for (const std::string& sentence : unsupported)
    run.doctor.info(sentence + " Their lessons and tests report skipped on this GPU (exit 77), never failed.");
}

// Whether this CUDA toolkit can compile for the GPU at all.
void check_toolkit_targets_gpu(DoctorRun& run, int cc) {
  if (!run.cuda) return;
  const std::string arch_list = output_of({run.nvcc, "--list-gpu-code"});
  if (!arch_list.empty() && !contains(arch_list, "sm_" + std::to_string(cc)))
    run.doctor.warn("CUDA " + run.cuda->text() + " cannot compile for sm_" + std::to_string(cc),
                    "use a toolkit that supports this GPU");
}

// The build's architectures and one real kernel launched through it (its architectures, its runtime).
void check_build_and_kernel(DoctorRun& run) {
  report_architectures(run);
  if (!run.cache) {
    run.doctor.skip("test kernel: the build is not configured yet (run ./workbook, then ./workbook doctor again)");
    return;
  }
  if (run.doctor.no_gpu) {
    run.doctor.skip("test kernel: no GPU to run it on");
    return;
  }
  std::optional<ProbeResult> probe = build_and_run_probe(run);
  if (!probe) return;
  judge_probe(run, *probe);
  if (probe->status != 0 || probe->cc <= 0) return;
  report_rungs_this_gpu_runs(run, probe->cc);
  check_toolkit_targets_gpu(run, probe->cc);
}

// Phase 6: how many GPUs, how each pair is linked (peer access from the driver, NVLinks from nvidia-smi topo -m),
// and the NCCL this build links.
void check_multi_gpu(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  if (run.probe.empty()) return;  // no GPU probe ran: said above
  const int gpus = static_cast<int>(parse_number(run.probe["device_count"]).value_or(0));
  if (gpus < 2) {
    doctor.info(std::to_string(gpus) +
                " GPU visible: phase 6's 6.01 and its NCCL comparisons need two and report skipped here; 6.02 is "
                "graded on virtual ranks on this GPU");
  } else {
    doctor.info(std::to_string(gpus) + " GPUs visible (phase 6 runs on all of them; CUDA_VISIBLE_DEVICES picks fewer)");
    for (int a = 0; a < gpus && a < 8; ++a) {
      for (int b = a + 1; b < gpus && b < 8; ++b) {
        const std::vector<std::string> ab =
            split(run.probe["peer_" + std::to_string(a) + "_" + std::to_string(b)], ',');
        const std::vector<std::string> ba =
            split(run.probe["peer_" + std::to_string(b) + "_" + std::to_string(a)], ',');
        const bool both = ab.size() == 3 && ba.size() == 3 && ab[0] == "1" && ba[0] == "1";
        doctor.info(
            "GPU" + std::to_string(a) + " <-> GPU" + std::to_string(b) + ": " +
            (both ? "peer access both ways (performance rank " + ab[1] + ", native atomics " +
                        (ab[2] == "1" ? "yes" : "no") + ")"
                  : std::string("no peer access both ways: 6.01 and 6.02 on real GPUs cannot run on this pair")));
      }
    }
    const std::string smi = find_program("nvidia-smi", {"/usr/lib/wsl/lib"});
    const std::string topo = smi.empty() ? "" : output_of({smi, "topo", "-m"});
    for (const std::string& line : split_lines(topo)) {
      if (line.empty() || starts_with(line, "Legend")) break;
      doctor.info("topo: " + line);
    }
  }
  const std::string nccl = run.probe["nccl_version"];
  if (!nccl.empty())
    doctor.ok("NCCL " + nccl + " (phase 6; NVLink multicast is kept off: NCCL_NVLS_ENABLE=0)");
  else
    doctor.info(
        "NCCL is not in this build: phase 6 (several GPUs) is left out; install libnccl-dev and configure again");
}

// compute-sanitizer, which every grade runs.
void check_sanitizer(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  const std::optional<std::string>& cache = run.cache;
  auto cached = [&run](const std::string& name) { return run.cached(name); };
  // compute-sanitizer: part of every grade (memcheck; racecheck and synccheck where threads share memory).
  const std::string sanitizer = find_program("compute-sanitizer");
  const std::string sanitizer_off_path =
      sanitizer.empty() ? find_program("compute-sanitizer", {"/usr/local/cuda/bin"}) : std::string();
  const std::string configured_sanitizer = cached("WORKBOOK_COMPUTE_SANITIZER");
  if (sanitizer.empty() && sanitizer_off_path.empty() && doctor.no_gpu)
    doctor.info(
        "compute-sanitizer not found: every grade runs it, so install it where the GPU is (it ships with "
        "the CUDA toolkit, bin/compute-sanitizer)");
  else if (sanitizer.empty() && sanitizer_off_path.empty())
    doctor.fail(
        "compute-sanitizer not found: the sanitizer part of every grade cannot run, so no exercise can be "
        "marked done",
        "it ships with the CUDA toolkit (bin/compute-sanitizer; Debian/Ubuntu package cuda-sanitizer-<version>): "
        "install it, put its folder on PATH, then configure again (cmake --preset default)");
  else if (cache && contains(configured_sanitizer, "NOTFOUND") && !doctor.no_gpu)
    doctor.fail("compute-sanitizer is installed (" + (sanitizer.empty() ? sanitizer_off_path : sanitizer) +
                    ") but the build did not find it: ctest's grade would fail for want of it",
                "configure again: cmake --preset default");
  else
    doctor.ok("compute-sanitizer " + (sanitizer.empty() ? sanitizer_off_path : sanitizer));
}

// Nsight Compute and the counter permission, for ./workbook profile.
void check_profiler(DoctorRun& run) {
  Doctor& doctor = run.doctor;
  // Hardware counters for `workbook profile`.
  const std::string ncu = find_ncu();
  const std::optional<bool> restricted = profiling_restricted(read_file("/proc/driver/nvidia/params").value_or(""));
  if (ncu.empty() && doctor.no_gpu)
    doctor.info("ncu (Nsight Compute) not found: ./workbook profile needs it and a GPU; install it where the GPU is");
  else if (ncu.empty())
    doctor.warn(
        "ncu (Nsight Compute) not found (not on PATH, /usr/local/cuda/bin or /opt/nvidia/nsight-compute): "
        "./workbook profile will not work",
        "install Nsight Compute: the nsight-compute package from NVIDIA's CUDA repository, or "
        "https://developer.nvidia.com/nsight-compute; then put its folder on PATH");
  else if (restricted.value_or(false) && ::geteuid() != 0)
    doctor.warn("GPU performance counters are restricted to administrators: ncu fails with ERR_NVGPUCTRPERM",
                "echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
                "/etc/modprobe.d/nvidia-profiling.conf, then reboot (or run ./workbook profile with sudo)");
  else
    doctor.ok("ncu " + ncu +
              (restricted ? (*restricted ? " (running as root)" : ", counters permitted")
                          : " (counter permission not readable here)"));
}

}  // namespace

int command_doctor(const std::string& source_dir, const std::string& build_dir) {
  DoctorRun run;
  run.source_dir = source_dir;
  run.build_dir = build_dir;
  run.cache = read_file(join_path(build_dir, "CMakeCache.txt"));
  std::printf("workbook doctor: source %s, build %s%s\n\n", source_dir.c_str(), build_dir.c_str(),
              run.cache ? "" : " (not configured yet)");
  // In this order: later checks use what earlier ones found (nvcc and its version, the GPU).
  for (void (*check)(DoctorRun&) : {check_cmake, check_nvcc, check_catch2, check_host_compiler, check_driver,
                                    check_build_and_kernel, check_multi_gpu, check_sanitizer, check_profiler})
    check(run);

  const Doctor& doctor = run.doctor;
  std::string verdict = doctor.failures   ? std::to_string(doctor.failures) + " problem(s) to fix, listed above."
                        : doctor.warnings ? std::string("Usable, with the warnings above.")
                                          : std::string("Everything the workbook needs is in place.");
  if (doctor.no_gpu && !doctor.failures)
    verdict =
        "Ready for the part of the course that needs no GPU (the note above says what that is); "
        "grading needs an NVIDIA GPU.";
  std::printf("\n%s\n", verdict.c_str());
  return doctor.failures ? kExitFailed : kExitOk;
}

}  // namespace wbcli
