#!/usr/bin/env bash
# Host test of tools/sanitize_test.sh with a stand-in compute-sanitizer that prints a canned report:
# the environment of each tool, racecheck warnings counted as findings, --expect, exit codes.
set -u
script=$(dirname "$0")/../sanitize_test.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fake <report-file> <exit>: prints the environment it saw, then the report, exits with <exit>.
cat >"$work/fake" <<'FAKE'
#!/usr/bin/env bash
echo "env: WB_SANITIZE=${WB_SANITIZE:-} WB_EXACT_INPUTS=${WB_EXACT_INPUTS:-}"
cat "$FAKE_REPORT"
exit "$FAKE_EXIT"
FAKE
chmod +x "$work/fake"
failures=0
# check <name> <expected exit> <expected text or ""> <report text> <fake exit> <script args...>
check() {
  local name=$1 want=$2 text=$3 report=$4 fake_exit=$5
  shift 5
  printf '%s\n' "$report" >"$work/report"
  local got
  got=$(FAKE_REPORT=$work/report FAKE_EXIT=$fake_exit bash "$script" "$@" 2>&1)
  local rc=$?
  if [ $rc -ne "$want" ] || { [ -n "$text" ] && ! grep -qF -- "$text" <<<"$got"; }; then
    echo "FAIL: $name: exit $rc (want $want), output:"
    echo "$got"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
clean="========= ERROR SUMMARY: 0 errors"
race_warning="========= Warning: Race reported between Write access at 0x1c0 in k(float*)
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)"
oob="========= Invalid __global__ read of size 4 bytes
========= ERROR SUMMARY: 1 error"

check "memcheck runs with exact inputs" 0 "WB_SANITIZE=1 WB_EXACT_INPUTS=1" "$clean" 0 "$work/fake" memcheck bin
check "racecheck runs without exact inputs" 0 "WB_SANITIZE=1 WB_EXACT_INPUTS=" "$clean" 0 "$work/fake" racecheck bin
check "a failing graded test keeps its status" 3 "" "$clean" 3 "$work/fake" memcheck bin
check "no GPU is a skip" 77 "" "no CUDA device" 77 "$work/fake" memcheck bin
check "an error is a finding" 99 "found a problem" "$oob" 99 "$work/fake" memcheck bin
check "a racecheck warning is a finding even at exit 0" 99 "found a problem" "$race_warning" 0 "$work/fake" racecheck bin
check "expect: the planted race is caught" 0 "caught the planted bug" "$race_warning" 0 --expect "Race reported" "$work/fake" racecheck bin
check "expect: a clean run fails" 1 "found nothing" "$clean" 0 --expect "Race reported" "$work/fake" racecheck bin
check "expect: another finding fails" 1 "not \"Race reported\"" "$oob" 99 --expect "Race reported" "$work/fake" memcheck bin
check "expect: no GPU is a skip" 77 "" "no CUDA device" 77 --expect "Race reported" "$work/fake" racecheck bin
check "no compute-sanitizer: the grade says it did not run" 1 "the grade is incomplete" "$clean" 0 "$work/missing" memcheck "$work/fake"
check "no compute-sanitizer and no GPU is a skip" 77 "" "no CUDA device" 77 "$work/missing" racecheck "$work/fake"
[ $failures -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all passed"
