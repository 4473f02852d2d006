#!/usr/bin/env bash
# sanitize_test.sh [--expect REGEX] <compute-sanitizer> <tool> <test-binary> [test arguments...]
# One compute-sanitizer run of a graded test on the small case, as every sanitizer test in CTest runs
# it (the solutions' [sanitize], the learner's grade [learner-grade], the planted bugs [grader]):
#   WB_SANITIZE=1 shrinks the test sizes (sizes with tails stay); memcheck also gets WB_EXACT_INPUTS=1,
#   which allocates the inputs at their exact size, so a read past the end is an error memcheck sees.
# A finding is an error count above zero or, for racecheck, any hazard: racecheck reports a hazard
# between threads of one warp (a warp-synchronous step without __syncwarp) as a *warning*, which
# --error-exitcode does not count, and that is exactly the race a plain run cannot see.
# Exit, without --expect: 0 the test passed and the tool found nothing; 99 a finding; 77 no GPU;
#   1 compute-sanitizer is missing (the grade did not run); otherwise the test's own status (a failing
#   graded test fails with its teaching message).
# Exit, with --expect REGEX (a planted bug): 0 only when the tool found something and its output
#   matches REGEX (grep -E); 1 otherwise; 77 no GPU.
set -u
expect=""
if [ "${1:-}" = "--expect" ]; then
  expect=$2
  shift 2
fi
if [ $# -lt 3 ]; then
  echo "usage: sanitize_test.sh [--expect REGEX] <compute-sanitizer> <tool> <test-binary> [test arguments...]" >&2
  exit 2
fi
sanitizer=$1
tool=$2
shift 2

export WB_SANITIZE=1
if [ "$tool" = memcheck ]; then export WB_EXACT_INPUTS=1; fi

# Without compute-sanitizer this part of the grade cannot run, and a grade must not shrink silently:
# the test alone says whether there is a GPU (77: skipped like every GPU test); otherwise fail and say why.
if [ ! -x "$sanitizer" ]; then
  "$@" >/dev/null 2>&1
  [ $? -eq 77 ] && { echo "sanitize_test: no usable GPU (skipped)"; exit 77; }
  echo "compute-sanitizer was not found when the build was configured (looked for: $sanitizer), so the"
  echo "$tool part of this grade did not run: the grade is incomplete, not passed. compute-sanitizer ships"
  echo "with the CUDA toolkit (its bin/ folder); install it or put it on PATH, then configure again"
  echo "(cmake --preset default) and repeat the check."
  exit 1
fi

# Phase 6's programs (p6_*) make CUDA calls that return errors they expect and handle (enabling peer
# access that is already on; NCCL probing which kernel images load), and NCCL's own kernels read staging
# memory they have not written: neither is a finding about the exercise's code, so those runs leave out
# API errors and NCCL's kernels.
options=()
case "$(basename "$1")" in
  p6_*) options=(--report-api-errors no --kernel-name-exclude kns=nccl) ;;
esac

output=$(mktemp)
trap 'rm -f "$output"' EXIT
"$sanitizer" --tool "$tool" --error-exitcode 99 ${options[@]+"${options[@]}"} "$@" >"$output" 2>&1
rc=$?
cat "$output"

# The GPU probe of the test's main prints its reason and exits 77.
[ $rc -eq 77 ] && exit 77

# "ERROR SUMMARY: 3 errors" (memcheck, synccheck, initcheck) or
# "RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)".
# The largest count of any summary line (racecheck may print both kinds).
errors=$(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$output" | grep -Eo '[0-9]+$' | sort -n | tail -n 1)
found=0
if [ $rc -eq 99 ] || [ "${errors:-0}" -gt 0 ]; then found=1; fi

if [ -n "$expect" ]; then
  if [ $found -eq 1 ] && grep -Eq -- "$expect" "$output"; then
    echo "sanitize_test: $tool caught the planted bug (\"$expect\" in its report)"
    exit 0
  fi
  if [ $found -eq 1 ]; then
    echo "sanitize_test: $tool reported something, but not \"$expect\": the planted bug is not the finding"
  else
    echo "sanitize_test: $tool found nothing (exit $rc): the planted bug passes the grade's $tool run"
  fi
  exit 1
fi

if [ $found -eq 1 ]; then
  echo "sanitize_test: $tool found a problem (see its report above)"
  exit 99
fi
exit $rc
