#!/usr/bin/env bash
# p6_verify.sh [build-dir]: phase 6 on a machine with two or more GPUs. Configures and builds phase 6
# (sm_90, Release, -Werror), then runs every phase 6 test (host, graded tests of stubs and solutions,
# lessons, sanitizers, the grader's self-test), the reference lessons at their default sizes, the
# learner stubs' pristine check for phase 6, and p6_bench. Logs go to $OUT (else <build-dir>/p6-logs).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0; phase6_multi_gpu/README.md says why).
# Exit: 0 when every step passed, 1 otherwise.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
build=${1:-build/p6}
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
{
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
step configure cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DWORKBOOK_WERROR=ON
# Every phase 6 exercise of the manifest (each id's target builds its lessons, tests and rank workers).
mapfile -t exercises < <(python3 -c 'import json; print("\n".join(e["id"] for e in json.load(open("cmake/exercises.json"))["exercises"] if e["id"].startswith("6.")))')
step build cmake --build "$build" --target "${exercises[@]}" p6_bench p6_grader_selftest p6_host_test -j "$(nproc)"
# Every phase 6 test but the learner ones (they fail on the stubs by design; the pristine step checks them).
step tests ctest --test-dir "$build" -L p6 -LE learner --output-on-failure --timeout 900
step pristine env WB_PRISTINE_ONLY='^6\.' bash tools/pristine_stubs.sh . "$build"
: >"$out/lessons.txt"
for lesson in "$build"/phase6_multi_gpu/p6_*_solution; do
  echo "--- $lesson" >>"$out/lessons.txt"
  "$lesson" >>"$out/lessons.txt" 2>&1 || status=1
done
cat "$out/lessons.txt"
step bench "$build/phase6_multi_gpu/p6_bench" --out "$out/p6_bench.csv"
cat "$out/bench.log"
exit $status
