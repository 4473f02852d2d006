#!/usr/bin/env bash
# lint.sh: the project's habits, checked. Every C++/CUDA file is as `.clang-format` formats it, every
# exercise passes the exercise gate and the manifest check (tools/check_exercises.py, check_manifest.py),
# and every shell script is shellcheck clean. clang-format's output differs between major versions, so
# the format is the one of clang-format 14 (Debian 12's); another version is told so and skipped.
# Exit 0 clean, 1 with the files to fix, 2 a tool missing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
status=0

if ! command -v clang-format >/dev/null 2>&1 || ! command -v shellcheck >/dev/null 2>&1; then
  echo "lint: needs clang-format (14) and shellcheck: sudo apt-get install clang-format shellcheck" >&2
  exit 2
fi

version=$(clang-format --version | grep -Eo '[0-9]+\.[0-9]+' | head -n 1)
if [ "${version%%.*}" = 14 ]; then
  mapfile -t sources < <(git ls-files '*.cu' '*.cuh' '*.cpp' '*.h')
  if ! clang-format --dry-run -Werror "${sources[@]}" 2>/tmp/lint_format.$$; then
    echo "lint: not formatted (fix: clang-format -i <file>):"
    grep -E '^[^ ].*:[0-9]+:[0-9]+: ' /tmp/lint_format.$$ | cut -d: -f1 | sort -u | sed 's/^/  /'
    status=1
  else
    echo "lint: ${#sources[@]} C++/CUDA files formatted"
  fi
  rm -f /tmp/lint_format.$$
else
  echo "lint: clang-format $version is not 14, whose format the tree keeps: format check skipped"
fi

# The exercise gate (stub/solution pairs differ only in the answers) and the manifest against the prose.
for check in check_exercises.py check_manifest.py; do
  if ! python3 "tools/$check" . >/tmp/lint_check.$$ 2>&1; then
    echo "lint: tools/$check found problems:"
    sed 's/^/  /' /tmp/lint_check.$$
    status=1
  else
    echo "lint: $(tail -n 1 /tmp/lint_check.$$)"
  fi
  rm -f /tmp/lint_check.$$
done

mapfile -t scripts < <(git ls-files | while read -r f; do
  head -n 1 "$f" 2>/dev/null | grep -Eq '^#!.*\b(ba)?sh\b' && echo "$f"
done)
if shellcheck "${scripts[@]}"; then
  echo "lint: ${#scripts[@]} shell scripts shellcheck clean"
else
  status=1
fi
exit $status
