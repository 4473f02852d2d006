#!/usr/bin/env bash
# pristine_stubs.sh <source-dir> <build-dir> [--only <id>] [compute-sanitizer]
# Proves every grader can fail: on the untouched stubs, each learner test must FAIL by failed
# assertions whose output contains the exercise's FAILS_WITH text, and each learner lesson must
# exit 1 (FAIL). Passing, crashing, hanging or skipping is a defect of the stub or the test.
# With compute-sanitizer given, the grade's sanitizer runs of each learner test (the registry's
# sanitizers column, run by tools/sanitize_test.sh as CTest's N.NN.name.learner.<tool> runs them)
# must fail the same way: by the graded test's teaching message, or by a finding of the tool itself
# (exit 99, which `workbook check` explains in a sentence); never by passing, crashing, hanging or
# skipping.
# CTest runs it once per exercise (--only <id>): N.NN.name.pristine [pristine gpu pN], so
# `ctest --preset gpu-pristine` checks every stub in parallel and `-R '^5\.'` one phase. Without --only it
# checks every registered exercise in one go.
# An exercise whose registry row requires a newer GPU than this one (1.10-1.14), or that needs more GPUs
# than are visible (6.01), is listed as skipped.
# Each run gets WB_PRISTINE_TIMEOUT seconds (300).
# Exit: 0 all stubs fail properly, 1 a defect, 77 no GPU (or the stub is edited: nothing to prove).
set -u
# NVLink multicast stays off for everything this starts (phase 6, NCCL: phase6_multi_gpu/README.md says why).
export NCCL_NVLS_ENABLE=0
src=$1
build=$2
shift 2
only=""
if [ "${1:-}" = --only ]; then
  only=$2
  shift 2
fi
sanitizer=${1:-}
registry=$build/workbook_exercises.tsv
timeout_s=${WB_PRISTINE_TIMEOUT:-300}
[ -f "$registry" ] || { echo "no exercise registry at $registry: configure the build first"; exit 1; }
# registry_columns <name...>: those columns of each exercise row, found by the header's names and
# separated by \037 (tools/registry_columns.awk); fails, saying which, when a column is missing.
registry_columns() { awk -v columns="$*" -f "$src/tools/registry_columns.awk" "$registry"; }
rows=$(registry_columns id name stub learner_test learner_lesson fails_with smoke_args requires sanitizers) ||
  exit 1
if [ -n "$only" ]; then
  rows=$(awk -F $'\037' -v id="$only" '$1 == id' <<<"$rows")
  [ -n "$rows" ] || { echo "pristine_stubs: the registry has no exercise $only"; exit 1; }
fi

# Only a checkout whose exercise files are committed can say whether they were edited. Only the
# exercises this build registers count: work in progress elsewhere in the tree does not.
stubs=()
stub_list=$(cut -d $'\037' -f 3 <<<"$rows")
[ -n "$stub_list" ] && mapfile -t stubs <<<"$stub_list"
# WB_PRISTINE_TRUST=1 skips this, for a copy of the tree whose .git is stale.
if [ "${WB_PRISTINE_TRUST:-0}" != 1 ] && [ ${#stubs[@]} -gt 0 ] && git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 &&
   [ -n "$(git -C "$src" ls-files -- "${stubs[@]}")" ]; then
  edited=$(git -C "$src" status --porcelain -- "${stubs[@]}")
  if [ -n "$edited" ]; then
    echo "SKIPPED: exercise files differ from the repository, so they are not pristine stubs:"
    echo "$edited"
    exit 77
  fi
fi

defects=0
checked=0
skipped=0
log_dir=$build/pristine-logs
mkdir -p "$log_dir"
printf '%-6s %-22s %-40s %s\n' id exercise "graded test" lesson
# verdict <exit status> <log> <fails_with>: how a learner test run on a stub failed.
verdict() {
  case $1 in
    0) echo "DEFECT: passes on the stub (the grader cannot fail)" ;;
    77) echo "DEFECT: skipped" ;;
    124) echo "DEFECT: hung (killed after ${timeout_s}s)" ;;
    *)
      if [ "$1" -gt 128 ]; then
        echo "DEFECT: crashed (signal $(($1 - 128)))"
      elif ! grep -qF -- "$3" "$2"; then
        echo "DEFECT: fails, but without \"$3\""
      else
        echo "fails with \"$3\""
      fi ;;
  esac
}

while IFS=$'\037' read -r id name _stub test_bin lesson_bin fails_with smoke _requires grade_sanitizers; do
  [ -n "$id" ] || continue
  log=$log_dir/$id.test.log
  timeout "$timeout_s" "$test_bin" >"$log" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then
    # An exercise this GPU cannot run (the registry's requires column), or one that needs more GPUs
    # than this machine has (phase 6), skips with its own line: nothing to prove here, but the other
    # exercises still count.
    if grep -q "^SKIPPED: $id $name needs" "$log"; then
      printf '%-6s %-22s %s\n' "$id" "$name" "skipped: $(head -n 1 "$log" | sed 's/^SKIPPED: //')"
      skipped=$((skipped + 1))
      continue
    fi
    head -n 1 "$log"
    exit 77
  fi
  test_verdict=$(verdict $rc "$log" "$fails_with")
  # The grade's sanitizer runs: each must fail by the graded test's message too.
  sanitized=""
  if [ -n "$sanitizer" ]; then
    for tool in ${grade_sanitizers:-}; do
      [ "$tool" = none ] && continue
      tool_log=$log_dir/$id.$tool.log
      timeout "$timeout_s" bash "$src/tools/sanitize_test.sh" "$sanitizer" "$tool" "$test_bin" >"$tool_log" 2>&1
      tool_rc=$?
      tool_verdict=$(verdict $tool_rc "$tool_log" "$fails_with")
      # A stub may fail its sanitizer run by the tool's own finding instead (exit 99): 0.10's stub
      # writes past n, which under exact-size buffers only memcheck reports, and the test case that
      # prints its FAILS_WITH text is skipped under the sanitizer. That is failing as intended too.
      if [ $tool_rc -eq 99 ] && grep -q "^sanitize_test: $tool found a problem" "$tool_log"; then
        tool_verdict="fails by a $tool finding"
      fi
      case "$tool_verdict" in
        DEFECT*) sanitized="$sanitized $tool: $tool_verdict;" ;;
        *) sanitized="$sanitized $tool" ;;
      esac
    done
  fi
  # shellcheck disable=SC2086 # smoke holds several arguments
  timeout "$timeout_s" "$lesson_bin" $smoke >"$log_dir/$id.lesson.log" 2>&1
  lrc=$?
  case $lrc in
    1) lesson="FAIL as expected" ;;
    0) lesson="DEFECT: lesson reports PASS" ;;
    124) lesson="DEFECT: lesson hung" ;;
    *) lesson="DEFECT: lesson exit $lrc" ;;
  esac
  case "$test_verdict$sanitized$lesson" in *DEFECT*) defects=$((defects + 1)) ;; esac
  checked=$((checked + 1))
  printf '%-6s %-22s %-40s %s | sanitized:%s\n' "$id" "$name" "$test_verdict" "$lesson" "${sanitized:- none}"
done <<<"$rows"

echo "$checked exercises checked, $defects with a defect (logs in $log_dir)"
[ $defects -eq 0 ] || exit 1
# Only exercises this GPU cannot run: nothing was proved here, and nothing failed (CTest: skipped).
[ $checked -gt 0 ] || [ $skipped -eq 0 ] || exit 77
[ $checked -gt 0 ] || { echo "no exercises registered"; exit 1; }
exit 0
