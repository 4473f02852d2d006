#!/usr/bin/env bash
# pristine_stubs.sh <source-dir> <build-dir>
# Proves every grader can fail: on the untouched stubs, each learner test must FAIL by failed
# assertions whose output contains the exercise's FAILS_WITH text, and each learner lesson must
# exit 1 (FAIL). Passing, crashing, hanging or skipping is a defect of the stub or the test.
# Exit: 0 all stubs fail properly, 1 a defect, 77 no GPU (or the stubs are edited: nothing to prove).
set -u
src=$1
build=$2
registry=$build/workbook_exercises.tsv
timeout_s=${WB_PRISTINE_TIMEOUT:-300}
[ -f "$registry" ] || { echo "no exercise registry at $registry: configure the build first"; exit 1; }

# Only a checkout whose exercise files are committed can say whether they were edited. Only the
# exercises this build registers count: work in progress elsewhere in the tree does not.
mapfile -t stubs < <(awk -F'\t' '$1 !~ /^#/ && NF > 2 { print $3 }' "$registry")
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
log_dir=$build/pristine-logs
mkdir -p "$log_dir"
printf '%-6s %-22s %-40s %s\n' id exercise "graded test" lesson
while IFS=$'\t' read -r id name stub _solution test_bin lesson_bin fails_with smoke _later_columns; do
  case "$id" in '#'*|'') continue ;; esac
  log=$log_dir/$id.test.log
  timeout "$timeout_s" "$test_bin" >"$log" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then
    echo "SKIPPED: $(head -n 1 "$log")"
    exit 77
  fi
  case $rc in
    0) verdict="DEFECT: passes on the stub (the grader cannot fail)" ;;
    124) verdict="DEFECT: hung (killed after ${timeout_s}s)" ;;
    *)
      if [ $rc -gt 128 ]; then
        verdict="DEFECT: crashed (signal $((rc - 128)))"
      elif ! grep -qF -- "$fails_with" "$log"; then
        verdict="DEFECT: fails, but without \"$fails_with\""
      else
        verdict="fails with \"$fails_with\""
      fi ;;
  esac
  # shellcheck disable=SC2086 # smoke holds several arguments
  timeout "$timeout_s" "$lesson_bin" $smoke >"$log_dir/$id.lesson.log" 2>&1
  lrc=$?
  case $lrc in
    1) lesson="FAIL as expected" ;;
    0) lesson="DEFECT: lesson reports PASS" ;;
    124) lesson="DEFECT: lesson hung" ;;
    *) lesson="DEFECT: lesson exit $lrc" ;;
  esac
  case "$verdict$lesson" in *DEFECT*) defects=$((defects + 1)) ;; esac
  checked=$((checked + 1))
  printf '%-6s %-22s %-40s %s\n' "$id" "$name" "$verdict" "$lesson"
done <"$registry"

echo "$checked exercises checked, $defects with a defect (logs in $log_dir)"
[ $defects -eq 0 ] || exit 1
[ $checked -gt 0 ] || { echo "no exercises registered"; exit 1; }
exit 0
