#!/usr/bin/env python3
"""Maintainer gate: every exercise is a proper stub/solution pair.

For each phase*/NN_name.cu it checks that
  - solutions/<phase>/NN_name.cu exists, the stub has TODO(P.NN) markers and the solution none;
  - the diff between them reads like an answer key: every line the stub has and the solution does
    not is a TODO line or a comment continuing one (the solution may add any lines);
  - the graded test, the hints file (concept / where / near) and a README section exist;
  - the header comment says how to run and check the lesson;
  - cmake/exercises.json (the manifest) has an entry with its id and name;
and that solutions/ holds nothing without an exercise, and the manifest no entry without a file.
Usage: check_exercises.py <source-dir>. Exit 0 when clean, 1 with one line per problem.
"""
import difflib
import json
import pathlib
import re
import sys


# A TODO's continuation lines are indented past the `//` (`//             (about 3 lines).`); a
# comment right after a TODO that starts `// Text` is lesson text, which stub and solution share.
TODO_CONTINUATION = re.compile(r"//\s{2,}\S")


def stub_only_lines_are_todos(stub_lines, solution_lines, ex_id):
    """Returns the stub lines that the solution changed although they are not part of a TODO."""
    problems = []
    matcher = difflib.SequenceMatcher(a=stub_lines, b=solution_lines, autojunk=False)
    for tag, a0, a1, _b0, _b1 in matcher.get_opcodes():
        if tag not in ("replace", "delete"):
            continue
        in_todo = False
        for i in range(a0, a1):
            text = stub_lines[i].strip()
            if f"TODO({ex_id})" in text:
                in_todo = True
            elif in_todo and TODO_CONTINUATION.match(text) and "TODO(" not in text:
                pass  # continuation of the TODO comment
            else:
                in_todo = False
                problems.append(f"line {i + 1}: {stub_lines[i].rstrip()}")
    return problems


def manifest_entries(root, problems):
    """The (id, name) of each cmake/exercises.json entry; a problem when the file cannot be read."""
    path = root / "cmake" / "exercises.json"
    try:
        return [(e["id"], e["name"]) for e in json.loads(path.read_text())["exercises"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        problems.append(f"cmake/exercises.json: cannot read its exercises ({error})")
        return []


def check(root):
    problems = []
    registered = manifest_entries(root, problems)
    for stub in sorted(root.glob("phase*/[0-9][0-9]_*.cu")):
        phase_dir = stub.parent.name
        phase = re.match(r"phase(\d+)_", phase_dir)
        if not phase:
            problems.append(f"{stub}: not in a phaseN_topic folder")
            continue
        number, name = stub.stem.split("_", 1)
        ex_id = f"{phase.group(1)}.{number}"
        rel = stub.relative_to(root)
        solution = root / "solutions" / phase_dir / stub.name
        if not solution.exists():
            problems.append(f"{rel}: no solution at {solution.relative_to(root)}")
            continue
        stub_text = stub.read_text()
        solution_text = solution.read_text()
        if f"TODO({ex_id})" not in stub_text:
            problems.append(f"{rel}: no TODO({ex_id}) left for the learner")
        if "TODO" in solution_text:
            problems.append(f"{solution.relative_to(root)}: still contains a TODO")
        for line in stub_only_lines_are_todos(stub_text.splitlines(), solution_text.splitlines(), ex_id):
            problems.append(f"{rel}: the solution changes a line outside the TODOs: {line}")
        header = "\n".join(stub_text.splitlines()[:25])
        for field in ("Run:", "Check:", "Aim:"):
            if field not in header:
                problems.append(f"{rel}: the header comment lacks '{field}'")
        test = stub.parent / "tests" / f"{stub.stem}_test.cpp"
        if not test.exists():
            problems.append(f"{rel}: no graded test at {test.relative_to(root)}")
        elif f"[{ex_id}]" not in test.read_text():
            problems.append(f"{test.relative_to(root)}: no TEST_CASE tagged [{ex_id}]")
        hints = stub.parent / "hints" / f"{stub.stem}.txt"
        if not hints.exists():
            problems.append(f"{rel}: no hints at {hints.relative_to(root)}")
        else:
            keys = [line.split(":", 1)[0] for line in hints.read_text().splitlines() if re.match(r"^\w+:", line)]
            if keys != ["concept", "where", "near"]:
                problems.append(f"{hints.relative_to(root)}: needs exactly concept:, where:, near: lines, in order")
        readme = stub.parent / "README.md"
        if not readme.exists() or f"{ex_id} {name}" not in readme.read_text():
            problems.append(f"{rel}: {phase_dir}/README.md has no section '{ex_id} {name}'")
        if (ex_id, name) not in registered:
            problems.append(f"{rel}: cmake/exercises.json has no entry {{\"id\": \"{ex_id}\", \"name\": \"{name}\"}}")
    for ex_id, name in registered:
        phase = ex_id.split(".")[0]
        if not list(root.glob(f"phase{phase}_*/{ex_id.split('.')[1]}_{name}.cu")):
            problems.append(f"cmake/exercises.json: {ex_id} {name} has no file phase{phase}_*/"
                            f"{ex_id.split('.')[1]}_{name}.cu")
    for solution in sorted(root.glob("solutions/*/*")):
        if not (root / solution.relative_to(root / "solutions")).exists():
            problems.append(f"{solution.relative_to(root)}: no exercise beside it")
    return problems


def self_test():
    """Proves the gate can fail: a clean synthetic pair passes, each planted defect is reported."""
    import tempfile

    stub = ("// 0.01 demo\n// Run: x\n// Check: y\n// Aim: z\nint f() {\n"
            "  // TODO(0.01): return the answer\n  //             (one line).\n  return 0;  // TODO(0.01): placeholder\n}\n")
    solution = "// 0.01 demo\n// Run: x\n// Check: y\n// Aim: z\nint f() {\n  return 42;\n}\n"
    # Lesson text right after a TODO (one space after `//`) is not part of it: stub and solution share it.
    stub = stub.replace("  //             (one line).\n", "  //             (one line).\n  // Why: lesson text.\n")
    solution = solution.replace("  return 42;", "  // Why: lesson text.\n  return 42;")
    defects = {
        "solution changes a line outside the TODOs": solution.replace("// Aim: z", "// Aim: w"),
        "still contains a TODO": solution.replace("return 42;", "return 42;  // TODO later"),
        "outside the TODOs: line 8": solution.replace("  // Why: lesson text.\n", ""),
    }

    def build(tree, solution_text, hints="concept: a\nwhere: b\nnear: c\n", manifest_name="demo"):
        (tree / "phase0_demo" / "tests").mkdir(parents=True)
        (tree / "phase0_demo" / "hints").mkdir()
        (tree / "solutions" / "phase0_demo").mkdir(parents=True)
        (tree / "phase0_demo" / "01_demo.cu").write_text(stub)
        (tree / "solutions" / "phase0_demo" / "01_demo.cu").write_text(solution_text)
        (tree / "phase0_demo" / "tests" / "01_demo_test.cpp").write_text('TEST_CASE("x", "[0.01]") {}\n')
        (tree / "phase0_demo" / "hints" / "01_demo.txt").write_text(hints)
        (tree / "phase0_demo" / "README.md").write_text("## 0.01 demo\n")
        (tree / "cmake").mkdir()
        (tree / "cmake" / "exercises.json").write_text(
            '{"exercises": [{"id": "0.01", "name": "%s", "fails_with": "x"}]}\n' % manifest_name)

    failures = []
    with tempfile.TemporaryDirectory() as d:
        build(pathlib.Path(d), solution)
        if check(pathlib.Path(d)):
            failures.append(f"a clean pair was rejected: {check(pathlib.Path(d))}")
    for expected, bad_solution in defects.items():
        with tempfile.TemporaryDirectory() as d:
            build(pathlib.Path(d), bad_solution)
            if not any(expected in p for p in check(pathlib.Path(d))):
                failures.append(f"planted defect not reported: {expected}")
    with tempfile.TemporaryDirectory() as d:
        build(pathlib.Path(d), solution, hints="concept: a\nnear: c\n")
        if not any("concept:, where:, near:" in p for p in check(pathlib.Path(d))):
            failures.append("planted defect not reported: hints without where:")
    with tempfile.TemporaryDirectory() as d:
        build(pathlib.Path(d), solution, manifest_name="demo_renamed")
        found = check(pathlib.Path(d))
        if not (any("has no entry" in p for p in found) and any("has no file" in p for p in found)):
            failures.append("planted defect not reported: a manifest entry that names another file")
    for f in failures:
        print(f)
    print(f"self-test: {len(defects) + 3 - len(failures)} of {len(defects) + 3} cases behave")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].replace("Usage: ", "usage: "), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = check(root)
    for p in problems:
        print(p)
    count = len(list(root.glob("phase*/[0-9][0-9]_*.cu")))
    print(f"{count} exercises checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
