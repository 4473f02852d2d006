#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e.sh <source-dir> <work-dir> [cuda-architectures, comma-separated]
# Drives the workbook tool end to end on a copy of the tree (without .git, so reset must use the
# snapshot the build took): the launcher configures and builds it, then status, list, usage errors,
# hints, solution, reset and check. Without a GPU, check must say it needs one; with a GPU, the
# stub must fail with its teaching message, the solution must pass, and progress must advance.
set -u
src=$1
work=$2
archs=${3:-}
archs=${archs//,/;}  # CMake passes the list with commas

fail() {
  echo "E2E FAIL: $*"
  exit 1
}
# run <expected exit> <command...>: keeps the output in $out.
run() {
  local want=$1
  shift
  out=$("$@" 2>&1)
  local rc=$?
  echo "\$ ${*}  -> exit $rc"
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want. Output:
$out"
}
expect() { grep -qF -- "$1" <<<"$out" || fail "expected \"$1\" in the output:
$out"; }
reject() { ! grep -qF -- "$1" <<<"$out" || fail "did not expect \"$1\" in the output:
$out"; }

rm -rf "$work"
mkdir -p "$work/tree"
tree=$work/tree
tar -C "$src" --exclude=./build --exclude=./.git --exclude=./.cache -cf - . | tar -C "$tree" -xf - ||
  fail "cannot copy the tree"
# The tree may hold a learner's answers: the copy's 0.01 starts from the committed stub when git has it.
if git -C "$src" show HEAD:phase0_basics/01_indexing.cu >"$work/stub_01.cu" 2>/dev/null; then
  cp "$work/stub_01.cu" "$tree/phase0_basics/01_indexing.cu"
fi
export WORKBOOK_CMAKE_ARGS="${archs:+-DCMAKE_CUDA_ARCHITECTURES=$archs}"
unset WORKBOOK_BUILD_DIR WORKBOOK_SOURCE_DIR WORKBOOK_PRESET
export NO_COLOR=1
wb() { "$tree/workbook" "$@"; }
tool=$tree/build/default/tools/workbook/workbook

echo "== first run: the launcher configures and builds the tool"
run 0 wb
expect "phase 0"
expect "Next: 0.01 indexing"
expect "edit phase0_basics/01_indexing.cu"
[ -x "$tool" ] || fail "the launcher did not build $tool"
[ -f "$tree/build/default/workbook-state/pristine/phase0_basics/01_indexing.cu" ] ||
  fail "configure took no pristine snapshot"

echo "== list and usage errors"
run 0 wb list
expect "0.02  vector_add"
expect "phase1_matmul/01_naive.cu"
run 2 wb frobnicate
expect "unknown command 'frobnicate'"
run 2 wb check 9.99
expect "no exercise 9.99"
run 2 wb run
expect "needs an exercise id"
run 2 wb reset
run 0 wb help
expect "workbook [--build-dir DIR]"
run 1 env WORKBOOK_BUILD_DIR="$work/no-such-build" "$tool" list
expect "no build directory at $work/no-such-build"

echo "== hints: concept, where, near, then no more"
run 0 wb hint 0.01
expect "hint 1 of 3"
expect "1. the idea"
reject "2. where to look"
run 0 wb hint 0.01
expect "2. where to look"
run 0 wb hint 0.01
expect "3. nearly the answer"
expect "That was every hint"  # said with the last tier, not one call later
run 0 wb hint 0.01
expect "That was every hint"
run 0 wb hint
expect "0.01 indexing, hint 3 of 3"  # without an id: the current exercise

echo "== solution only after passing (or --force)"
run 1 wb solution 0.01
expect "once your file passes"
run 0 wb solution 0.01 --force
expect "reference: solutions/phase0_basics/01_indexing.cu"

echo "== reset asks first, restores the snapshot, --all restores everything"
stub=$tree/phase0_basics/01_indexing.cu
stub2=$tree/phase0_basics/02_vector_add.cu
echo "// my edit" >>"$stub"
run 1 bash -c "echo n | '$tree/workbook' reset 0.01"
expect "Nothing changed"
grep -q "// my edit" "$stub" || fail "a declined reset changed the file"
run 0 bash -c "echo y | '$tree/workbook' reset 0.01"
expect "restored phase0_basics/01_indexing.cu"
cmp -s "$stub" "$tree/build/default/workbook-state/pristine/phase0_basics/01_indexing.cu" ||
  fail "reset did not restore the pristine stub"
run 0 wb reset 0.01
expect "already the untouched stub"
echo "// edit 1" >>"$stub"
echo "// edit 2" >>"$stub2"
run 0 wb reset --all --yes
expect "restored phase0_basics/01_indexing.cu"
expect "restored phase0_basics/02_vector_add.cu"
grep -q "// edit" "$stub" "$stub2" && fail "reset --all left an edit"

echo "== check"
out=$("$tree/workbook" check 0.01 2>&1)
rc=$?
echo "\$ workbook check 0.01  -> exit $rc"
if [ $rc -eq 77 ]; then
  echo "(no usable GPU here: check must say so)"
  expect "needs a GPU"
  run 0 wb
  expect "Next: 0.01 indexing"
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect "No GPU here"
    run 77 wb bench phase0
    expect "Benchmarks need a GPU"
    reject "building"  # said before anything is built
    run 1 wb solution 0.01
    expect "--force\` shows the reference now"
    out=$("$tree/workbook" doctor 2>&1)
    expect "no NVIDIA GPU on this machine"
    reject "reboot"
  fi
  echo "E2E PASS (without a GPU)"
  exit 0
fi
if [ $rc -eq 0 ] && ! grep -q "TODO(0.01)" "$stub"; then
  echo "(0.01 is already answered in this tree and git has no stub to restore: the stub assertions are skipped)"
else
  [ $rc -eq 1 ] || fail "check on the stub exited $rc, expected 1:
$out"
  expect "not yet"
  expect "Output untouched"
  run 0 wb list
  expect "failing"
fi
cp "$tree/solutions/phase0_basics/01_indexing.cu" "$stub"
run 0 wb check 0.01
expect "0.01 indexing passes its graded tests"
expect "measured: "
expect "Next: 0.02 vector_add"
run 0 wb
expect " 1/"  # one exercise of phase 0 done
expect "Next: 0.02 vector_add"
run 0 wb solution 0.01
expect "identical to the reference"
grep -q "^check	0.01	done" "$tree/build/default/workbook-state/progress.tsv" ||
  fail "progress.tsv does not record 0.01 as done"
echo "E2E PASS (with a GPU)"
