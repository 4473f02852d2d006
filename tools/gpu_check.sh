#!/usr/bin/env bash
# gpu_check.sh [build|test|sanitize|pristine|lessons|all]...
# The maintainer's verification on a GPU machine, in stages that can run one at a time:
#   build     configure and build the gpu preset (sm_90, Release, -Werror)
#   test      host and solution tests
#   sanitize  compute-sanitizer memcheck/racecheck/synccheck/initcheck on every solution
#   pristine  every learner test fails on the untouched stubs with its intended message
#   lessons   every reference lesson at its default size: the result lines
#   ladder    the phase 1 SGEMM ladder at 1024..8192 against cuBLAS (CSV to $OUT/p1_ladder.csv)
#   bench2    every phase 2 kernel at several sizes against memcpy (CSV to $OUT/p2_bench.csv)
#   bench4    every phase 4 SpMV kernel on every generator at 4M rows against cuSPARSE CSR, and 4.09 SpMM
#             against cuSPARSE SpMM (CSV to $OUT/p4_bench.csv)
#   bench3    the phase 3 reduction ladder on 1 GiB and 64 MiB against CUB (CSV to $OUT/p3_bench.csv)
# Logs go to $OUT when it is set, else to build/gpu/logs.
set -uo pipefail
# NVLink multicast stays off for everything this starts (phase 6, NCCL: phase6_multi_gpu/README.md says why).
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-build/gpu/logs}
mkdir -p "$out"
jobs=$(nproc)
status=0
run_stage() {
  local stage=$1
  echo "=== $stage"
  case $stage in
    build)
      { nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; nvcc --version | tail -n 1;
        cmake --version | head -n 1; } | tee "$out/machine.txt"
      read -r -a configure_args <<<"${WB_CONFIGURE_ARGS:-}"
      cmake --preset gpu ${configure_args[@]+"${configure_args[@]}"} >"$out/configure.log" 2>&1 && cmake --build --preset gpu -j "$jobs" 2>&1 | tee "$out/build.log" | grep -E "warning|error|FAILED" ;
      [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build failed (see build.log)"; tail -n 30 "$out/build.log"; return 1; } ;;
    test)
      ctest --test-dir build/gpu -L 'host|common|grader|solution' -j 4 --output-on-failure 2>&1 | tee "$out/test.log" | tail -n 25 ;;
    sanitize)
      ctest --test-dir build/gpu -L sanitize -j 8 --output-on-failure 2>&1 | tee "$out/sanitize.log" | tail -n 25 ;;
    pristine)
      ctest --test-dir build/gpu -L pristine -V 2>&1 | tee "$out/pristine.log" | grep -vE '^[0-9]+: Test command|^UpdateCTest|^Test project' | tail -n 30 ;;
    lessons)
      : >"$out/results.txt"
      for lesson in build/gpu/phase*/p*_solution; do
        echo "--- $lesson" >>"$out/lessons.log"
        "$lesson" 2>&1 | tee -a "$out/lessons.log" | grep -E "PASS|FAIL|error" | tee -a "$out/results.txt"
      done ;;
    ladder)
      build/gpu/phase1_matmul/p1_ladder --sizes 1024,2048,4096,8192 --out "$out/p1_ladder.csv" 2>&1 |
        tee "$out/ladder.log" ;;
    bench2)
      build/gpu/phase2_elementwise/p2_bench --out "$out/p2_bench.csv" 2>&1 | tee "$out/bench2.log" ;;
    bench4)
      build/gpu/phase4_spmv/p4_bench --out "$out/p4_bench.csv" 2>&1 | tee "$out/bench4.log" ;;
    bench3)
      build/gpu/phase3_reduction/p3_bench --out "$out/p3_bench.csv" 2>&1 | tee "$out/bench3.log" ;;
    *) echo "unknown stage $stage"; return 2 ;;
  esac
}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test sanitize pristine lessons)
[ "${stages[0]}" != all ] || stages=(build test sanitize pristine lessons)
for stage in "${stages[@]}"; do
  if ! run_stage "$stage"; then
    status=1
    # Later stages would only report the missing binaries of a failed build.
    [ "$stage" != build ] || break
  fi
done
exit $status
