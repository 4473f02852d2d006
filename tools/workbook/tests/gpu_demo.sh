#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu_demo.sh <source-dir> <log-dir>: the tool's acceptance run on a GPU machine, on a copy of
# the tree (exercise files are edited there, never in <source-dir>): ./workbook from scratch, check
# on the stub (fails, teaching message), on the solution (passes, progress advances), check's
# compute-sanitizer runs on a planted out-of-bounds write, profile, bench phase1, doctor. One log
# per step in <log-dir>.
set -u
src=$(cd "$1" && pwd)
logs=$2
mkdir -p "$logs"
tree=${TMPDIR:-/tmp}/workbook-gpu-demo
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
cd "$tree" || exit 1
export NO_COLOR=1
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - start)) s ($*)" | tee -a "$logs/summary.txt"
  tail -n 25 "$logs/$name.log"
}

step 01_first_run 240 ./workbook
# Build what the later steps need in one parallel go (the tool builds per exercise otherwise).
# Phase 1's lesson targets, from the registry's id and target columns (found by name).
read -r -a p1_targets <<<"$(awk -v columns="id target" -v sep=' ' -f tools/registry_columns.awk \
  build/default/workbook_exercises.tsv | awk '$1 ~ /^1\./ {printf "%s %s_solution ", $2, $2}')"
step 02_prebuild 300 cmake --build build/default -j 16 --target workbook_gpu_probe p0_01_indexing \
  p0_01_indexing_test p0_01_indexing_solution p0_02_vector_add_test p1_ladder "${p1_targets[@]}"
step 03_check_stub 120 ./workbook check 0.01
cp solutions/phase0_basics/01_indexing.cu phase0_basics/01_indexing.cu
step 04_check_solution 120 ./workbook check 0.01
step 05_status 30 ./workbook
# A planted bug: each thread writes n + 1024 floats further on, past the output and its guard canaries.
cp solutions/phase0_basics/02_vector_add.cu phase0_basics/02_vector_add.cu
sed -i 's/^    c\[i\] = a\[i\] + b\[i\];/    c[i + n + 1024] = a[i] + b[i];  \/\/ planted: past the end and its guard/' phase0_basics/02_vector_add.cu
grep -n 'planted' phase0_basics/02_vector_add.cu >>"$logs/summary.txt"
step 06_sanitize 240 ./workbook check 0.02
step 07_profile 240 ./workbook profile 0.01
step 08_bench 300 ./workbook bench phase1 -- --sizes 1024,2048 --repeat 3
cp build/default/workbook-state/bench/* "$logs/" 2>/dev/null
step 09_doctor 120 ./workbook doctor
step 10_list 30 ./workbook list
cp build/default/workbook-state/progress.tsv "$logs/" 2>/dev/null
