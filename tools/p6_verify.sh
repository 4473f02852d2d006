#!/usr/bin/env bash
# p6_verify.sh [build-dir] [stage...]: phase 6 on a machine with two or more GPUs, in stages that can run
# one at a time (all of them, in this order, when none is named):
#   build     configure and build phase 6 (sm_90, Release, -Werror) and the workbook tool
#   tests     every phase 6 test but the learner ones: graded tests of the solutions, lessons, sanitizer
#             runs, the grader's self-test, p6_bench's smoke run
#   pristine  the learner stubs of phase 6 fail their tests as intended
#   lessons   the reference lessons at their default sizes
#   bench     p6_bench (CSV to the log folder)
#   doctor    what `workbook doctor` says about the GPUs, their links and NCCL (informational)
# On four H100s the tests stage alone takes about 9 minutes.
# Logs go to $OUT (else <build-dir>/p6-logs). NVLink multicast stays off (NCCL_NVLS_ENABLE=0;
# phase6_multi_gpu/README.md says why).
# Exit: 0 when every stage passed, 1 otherwise, 2 an unknown stage.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
build=${1:-build/p6}
[ $# -gt 0 ] && shift
out=${OUT:-$build/p6-logs}
mkdir -p "$out"
status=0
step() {
  local name=$1
  shift
  echo "=== $name: $*"
  if "$@" >"$out/$name.log" 2>&1; then
    echo "    ok"
  else
    echo "    FAILED (exit $?): see $out/$name.log"
    tail -n 20 "$out/$name.log"
    status=1
  fi
}
known_stages=(build tests pristine lessons bench doctor)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=("${known_stages[@]}")
for stage in "${stages[@]}"; do
  if [[ " ${known_stages[*]} " != *" $stage "* ]]; then
    echo "p6_verify: unknown stage '$stage' (${known_stages[*]})" >&2
    exit 2
  fi
done
{
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

stage_build() {
  step configure cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DWORKBOOK_WERROR=ON
  # Everything of phase 6 (lessons, graded tests of both variants, self-test, p6_bench) and the workbook tool.
  step build cmake --build "$build" --target phase6_multi_gpu/all workbook workbook_gpu_probe -j "$(nproc)"
}
# The learner tests fail on the stubs by design; the pristine stage checks them.
stage_tests() { step tests ctest --test-dir "$build" -L p6 -LE learner --output-on-failure --timeout 900; }
stage_pristine() { step pristine env WB_PRISTINE_ONLY='^6\.' bash tools/pristine_stubs.sh . "$build"; }
stage_lessons() {
  : >"$out/lessons.txt"
  for lesson in "$build"/phase6_multi_gpu/p6_*_solution; do
    echo "--- $lesson" >>"$out/lessons.txt"
    "$lesson" >>"$out/lessons.txt" 2>&1 || status=1
  done
  cat "$out/lessons.txt"
}
stage_bench() {
  step bench "$build/phase6_multi_gpu/p6_bench" --out "$out/p6_bench.csv"
  cat "$out/bench.log"
}
stage_doctor() {
  "$build/tools/workbook/workbook" doctor --build-dir "$build" >"$out/doctor.log" 2>&1 || true
  grep -iE "GPU|NCCL|topo" "$out/doctor.log"
}

for stage in "${stages[@]}"; do
  case $stage in
    build) stage_build ;;
    tests) stage_tests ;;
    pristine) stage_pristine ;;
    lessons) stage_lessons ;;
    bench) stage_bench ;;
    doctor) stage_doctor ;;
  esac
done
exit $status
