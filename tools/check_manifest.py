#!/usr/bin/env python3
"""The manifest against the prose: cmake/exercises.json is the one list of exercises, and what the
course's text says about them must agree with it.

  - the manifest: ids P.NN, each once, in course order (ascending);
  - README.md's "## Course map" holds, for each phase of the manifest, one generated list of its exercises
    (`P.NN name, ...` in course order) between `<!-- course-map P -->` and `<!-- /course-map -->`, exactly
    as the manifest gives it; the hand-written text around the lists names no id the manifest lacks;
  - the phase README has a `### ...` heading naming `P.NN name`; where the manifest gives a title, the
    heading is exactly `### P.NN name: title`, and where it gives none, no heading has one to give;
  - the `// Previous: ... Next: ...` line of each exercise header (stub and solution alike) names its
    neighbours in the manifest's order: the first `P.NN name` after Previous is the exercise before it,
    the first after Next the one after it. The first exercise of a phase may name no exercise as
    Previous (e.g. "phase 3 (the scan)"), the last none as Next (the next phase, a benchmark).
Usage: check_manifest.py [--fix] <source-dir>. Runs its own planted-defect self-test first. Exit 0 clean,
1 with one line per problem. --fix first rewrites each Previous/Next line (stub and solution) to name
the neighbours in manifest order (where it names an exercise, or must: the old last exercise of a phase
before a new one), and each course-map list of README.md to the manifest's: after a new manifest entry,
its neighbours' headers and the course map follow without editing them by hand (a new phase needs its
row, with empty markers, written once by hand).
"""
import json
import pathlib
import re
import sys

MENTION = re.compile(r"\b(\d\.\d\d) ([a-z][a-z0-9_]*)")
ANY_ID = re.compile(r"\b(\d\.\d\d)\b")
# One phase's generated list in the course map. Nothing in it may be a '|': the list sits in a table cell.
COURSE_MAP_LIST = re.compile(r"<!-- course-map (\d) -->([^|]*?)<!-- /course-map -->")


def course_map_match(readme_text):
    """README.md's `## Course map` section as a match (group 1: its text), or None."""
    return re.search(r"^## Course map\n(.*?)(?=^## |\Z)", readme_text, re.M | re.S)


def course_map(readme_text):
    """The text of README.md's `## Course map` section."""
    match = course_map_match(readme_text)
    return match.group(1) if match else None


def course_map_list(entries, phase):
    """The generated list of one phase's exercises: `P.NN name, P.NN name, ...` in manifest order."""
    return ", ".join(f"{e['id']} {e['name']}" for e in entries if e["id"][:1] == phase)


def course_map_problems(section, entries):
    """What is wrong with the course map: a phase of the manifest with no list or with several, a list that
    is not the manifest's, a list for a phase without exercises, an id the manifest lacks in the text."""
    problems = []
    lists = {}
    for match in COURSE_MAP_LIST.finditer(section):
        lists.setdefault(match.group(1), []).append(match.group(2))
    phases = sorted({e["id"][:1] for e in entries})
    for phase in phases:
        found = lists.get(phase, [])
        if not found:
            problems.append(f"README.md: the course map has no list for phase {phase} (write its row with "
                            f"'<!-- course-map {phase} --><!-- /course-map -->' where the list goes; --fix fills it)")
        elif len(found) > 1:
            problems.append(f"README.md: the course map has {len(found)} lists for phase {phase}")
        elif found[0] != course_map_list(entries, phase):
            problems.append(f"README.md: the course map's phase {phase} list is not the manifest's "
                            f"(python3 tools/check_manifest.py --fix . rewrites it)")
    for phase in sorted(set(lists) - set(phases)):
        problems.append(f"README.md: the course map has a list for phase {phase}, which the manifest does not list")
    known_ids = {e["id"] for e in entries}
    for mention in sorted(set(ANY_ID.findall(COURSE_MAP_LIST.sub("", section)))):
        # "5.06 also as GB/s" is text about a listed exercise; an id the manifest lacks is stale.
        if mention not in known_ids:
            problems.append(f"README.md: the course map's text names {mention}, which the manifest does not list")
    return problems


def fixed_course_map(readme_text, entries):
    """The README with every course-map list rewritten from the manifest; the text around them is kept."""
    section = course_map_match(readme_text)
    if section is None:
        return readme_text

    def rewrite(match):
        phase = match.group(1)
        return f"<!-- course-map {phase} -->{course_map_list(entries, phase)}<!-- /course-map -->"

    start, end = section.span(1)
    return readme_text[:start] + COURSE_MAP_LIST.sub(rewrite, section.group(1)) + readme_text[end:]


def neighbour_problem(field, text, expected):
    """The problem when `text` (after Previous: or Next:) does not name `expected` (id, name) as its first
    exercise id; None when it does, or when expected is None (anything goes)."""
    first_id = ANY_ID.search(text)
    mention = MENTION.search(text)
    if expected is None:
        return None
    if first_id is None:
        return f"{field} names no exercise, expected {expected[0]} {expected[1]}"
    if mention is None or mention.start() != first_id.start() or mention.groups() != expected:
        named = mention.group(0) if mention and mention.start() == first_id.start() else first_id.group(1)
        return f"{field} names {named} first, expected {expected[0]} {expected[1]}"
    return None


def check(entries, readme_text, phase_readmes, headers):
    """entries: the manifest's exercise objects; phase_readmes: {phase digit: README text};
    headers: {id: (stub Previous/Next line or None, solution's or None)}. Returns the problems."""
    problems = []
    ids = [e.get("id", "") for e in entries]
    for e in entries:
        if not re.fullmatch(r"\d\.\d\d", e.get("id", "")) or not e.get("name"):
            problems.append(f"cmake/exercises.json: an entry needs an id P.NN and a name: {e}")
    if problems:
        return problems
    if len(set(ids)) != len(ids):
        problems.append("cmake/exercises.json: an id is listed twice: " + ", ".join(sorted({i for i in ids if ids.count(i) > 1})))
    if ids != sorted(ids):
        problems.append("cmake/exercises.json: the entries are not in course order (ascending ids)")
    listed = [(e["id"], e["name"]) for e in entries]

    section = course_map(readme_text)
    if section is None:
        problems.append("README.md: no '## Course map' section")
    else:
        problems += course_map_problems(section, entries)

    for e in entries:
        ex_id, name, title = e["id"], e["name"], e.get("title")
        phase = ex_id[0]
        readme = phase_readmes.get(phase)
        where = f"phase {phase} README"
        if readme is None:
            problems.append(f"{ex_id} {name}: no README for phase {phase}")
            continue
        headings = [line for line in readme.splitlines() if line.startswith("### ")]
        naming = [h for h in headings if re.search(rf"\b{re.escape(ex_id)} {re.escape(name)}\b", h)]
        titled = [h for h in headings if h.startswith(f"### {ex_id} {name}: ")]
        if not naming:
            problems.append(f"{where}: no '### {ex_id} {name}' heading")
        elif title is not None and f"### {ex_id} {name}: {title}" not in headings:
            got = f" (it reads '{titled[0]}')" if titled else ""
            problems.append(f"{where}: no heading '### {ex_id} {name}: {title}', the manifest's title{got}")
        elif title is None and titled:
            problems.append(f"{where}: '{titled[0]}' has a title the manifest's {ex_id} entry lacks")

    for i, (ex_id, name) in enumerate(listed):
        stub_line, solution_line = headers.get(ex_id, (None, None))
        if stub_line is None:
            problems.append(f"{ex_id} {name}: the stub's header has no '// Previous: ... Next: ...' line")
            continue
        if solution_line != stub_line:
            problems.append(f"{ex_id} {name}: the solution's Previous/Next line differs from the stub's")
        match = re.match(r"//\s*Previous:(.*?)\s+Next:(.*)$", stub_line)
        if not match:
            problems.append(f"{ex_id} {name}: '{stub_line}' is not '// Previous: ... Next: ...'")
            continue
        previous_expected, next_expected = expected_neighbours(listed, i, match.group(1), match.group(2))
        for field, text, expected in (("Previous", match.group(1), previous_expected),
                                      ("Next", match.group(2), next_expected)):
            problem = neighbour_problem(field, text, expected)
            if problem:
                problems.append(f"{ex_id} {name}: {problem} (manifest order)")
    return problems


def expected_neighbours(listed, i, previous_text, next_text):
    """The (id, name) each field must name first, or None where anything goes: within a phase the
    neighbour; at a phase boundary none, but one it names first must be the neighbour."""
    ex_id = listed[i][0]
    before = listed[i - 1] if i > 0 else None
    after = listed[i + 1] if i + 1 < len(listed) else None
    same_phase_before = before if before and before[0][0] == ex_id[0] else None
    same_phase_after = after if after and after[0][0] == ex_id[0] else None
    return (same_phase_before or (before if ANY_ID.search(previous_text) else None),
            same_phase_after or (after if ANY_ID.search(next_text) else None))


def fixed_line(line, listed, i):
    """The Previous/Next line with the first exercise each field names replaced by the expected
    neighbour. A field that names none where it must (the neighbour is in the same phase: an exercise
    appended after the phase's last) becomes that neighbour alone: what it said (the next phase, the
    benchmark) is the new exercise's to say now. Any other field is left as it is."""
    match = re.match(r"(//\s*Previous:)(.*?)(\s+Next:)(.*)$", line)
    if not match:
        return line
    previous_expected, next_expected = expected_neighbours(listed, i, match.group(2), match.group(4))

    def fix(text, expected):
        first = ANY_ID.search(text)
        if expected is None:
            return text
        if first is None:
            return f" {expected[0]} {expected[1]}."
        mention = MENTION.match(text, first.start())
        end = mention.end() if mention else first.end()
        return text[:first.start()] + f"{expected[0]} {expected[1]}" + text[end:]

    return match.group(1) + fix(match.group(2), previous_expected) + match.group(3) + fix(match.group(4), next_expected)


def fix_headers(root, entries):
    """Rewrites the Previous/Next lines of every stub and solution to the manifest's order; returns the
    files it changed."""
    listed = [(e["id"], e["name"]) for e in entries if e.get("id") and e.get("name")]
    changed = []
    for i, (ex_id, name) in enumerate(listed):
        for stub in root.glob(f"phase{ex_id[:1]}_*/{ex_id[2:]}_{name}.cu"):
            for path in (stub, root / "solutions" / stub.parent.name / stub.name):
                if not path.exists():
                    continue
                lines = path.read_text().split("\n")
                for k, line in enumerate(lines[:40]):
                    if line.startswith("// Previous:"):
                        new = fixed_line(line, listed, i)
                        if new != line:
                            lines[k] = new
                            path.write_text("\n".join(lines))
                            changed.append(str(path.relative_to(root)))
                        break
    return changed


def previous_next_line(path):
    """The `// Previous: ... Next: ...` line of a file's header comment, or None."""
    if not path.exists():
        return None
    for line in path.read_text().splitlines()[:40]:
        if line.startswith("// Previous:"):
            return line.strip()
    return None


def load(root):
    entries = json.loads((root / "cmake" / "exercises.json").read_text())["exercises"]
    phase_readmes = {}
    headers = {}
    for phase_dir in sorted(root.glob("phase[0-9]_*")):
        if (phase_dir / "README.md").exists():
            phase_readmes[phase_dir.name[5]] = (phase_dir / "README.md").read_text()
    for e in entries:
        ex_id, name = e.get("id", ""), e.get("name", "")
        found = list(root.glob(f"phase{ex_id[:1]}_*/{ex_id[2:]}_{name}.cu"))
        if found:
            stub = found[0]
            solution = root / "solutions" / stub.parent.name / stub.name
            headers[ex_id] = (previous_next_line(stub), previous_next_line(solution))
    return entries, (root / "README.md").read_text(), phase_readmes, headers


def self_test():
    """Planted defects, each of which the check must report; the clean case must pass."""
    entries = [{"id": "0.01", "name": "a", "title": "first"}, {"id": "0.02", "name": "b"},
               {"id": "1.01", "name": "c", "title": "third"}]
    readme = ("# X\n\n## Course map\n| 0 | <!-- course-map 0 -->0.01 a, 0.02 b<!-- /course-map --> |\n"
              "| 1 | <!-- course-map 1 -->1.01 c<!-- /course-map -->; `bench` runs x of 1.01 |\n\n## Next\n")
    phases = {"0": "### 0.01 a: first\n### 0.02 b\n", "1": "### 1.01 c: third\n"}
    lines = {"0.01": "// Previous: none. Next: 0.02 b.", "0.02": "// Previous: 0.01 a. Next: phase 1.",
             "1.01": "// Previous: 0.02 b (and 0.01 a). Next: the benchmark."}
    headers = {k: (v, v) for k, v in lines.items()}
    failures = []
    cases = 1
    clean = check(entries, readme, phases, headers)
    if clean:
        failures.append(f"the clean case was rejected: {clean}")

    def planted(description, expected, e=entries, r=readme, p=phases, h=headers):
        nonlocal cases
        cases += 1
        found = check(e, r, p, h)
        if not any(expected in problem for problem in found):
            failures.append(f"planted defect not reported: {description} (got {found})")

    def with_line(ex_id, stub, solution=None):
        changed = dict(headers)
        changed[ex_id] = (stub, stub if solution is None else solution)
        return changed

    planted("out of order", "not in course order", e=[entries[1], entries[0], entries[2]])
    stale_maps = {"an exercise missing from a course-map list": readme.replace("0.01 a, 0.02 b<", "0.01 a<"),
                  "a course-map list naming an exercise the manifest lacks": readme.replace("0.02 b<", "0.02 b, 0.03 z<"),
                  "a course-map list out of order": readme.replace("0.01 a, 0.02 b", "0.02 b, 0.01 a")}
    for description, stale in stale_maps.items():
        planted(description, "phase 0 list is not the manifest's", r=stale)
    planted("no course-map list for a phase", "no list for phase 1",
            r=readme.replace("<!-- course-map 1 -->1.01 c<!-- /course-map -->", "1.01 c"))
    planted("two course-map lists for a phase", "2 lists for phase 0",
            r=readme.replace("| 1 |", "| 0 | <!-- course-map 0 -->0.01 a, 0.02 b<!-- /course-map --> |\n| 1 |"))
    planted("a course-map list for a phase without exercises", "a list for phase 2",
            r=readme.replace("\n\n## Next", "\n| 2 | <!-- course-map 2 --><!-- /course-map --> |\n\n## Next"))
    planted("an id the manifest lacks in the course map's text", "text names 1.02",
            r=readme.replace("x of 1.01", "x of 1.02"))
    planted("no phase heading", "no '### 0.02 b' heading", p={"0": "### 0.01 a: first\n", "1": phases["1"]})
    planted("another title", "the manifest's title", p={"0": "### 0.01 a: other\n### 0.02 b\n", "1": phases["1"]})
    planted("a title the manifest lacks", "has a title the manifest's 0.02 entry lacks",
            p={"0": "### 0.01 a: first\n### 0.02 b: more\n", "1": phases["1"]})
    planted("Next skips an exercise", "Next names 1.01 c first, expected 0.02 b",
            h=with_line("0.01", "// Previous: none. Next: 1.01 c."))
    planted("Next without the name", "Next names 0.02 first", h=with_line("0.01", "// Previous: none. Next: 0.02."))
    planted("Previous wrong within a phase", "Previous names 0.02 b first, expected 0.01 a",
            h=with_line("0.02", "// Previous: 0.02 b. Next: phase 1."))
    planted("Previous across phases wrong", "Previous names 0.01 a first, expected 0.02 b",
            h=with_line("1.01", "// Previous: 0.01 a. Next: the benchmark."))
    planted("solution differs", "differs from the stub's",
            h=with_line("0.01", lines["0.01"], "// Previous: none. Next: 0.02 b (later)."))
    planted("no line", "has no '// Previous", h=with_line("0.01", None))
    listed = [(e["id"], e["name"]) for e in entries]
    for i, wrong, right in ((0, "// Previous: none. Next: 1.01 c (later).", "// Previous: none. Next: 0.02 b (later)."),
                            (1, "// Previous: 0.02. Next: phase 1.", "// Previous: 0.01 a. Next: phase 1."),
                            (2, "// Previous: 0.01 a. Next: the benchmark.", "// Previous: 0.02 b. Next: the benchmark."),
                            (0, "// Previous: none. Next: phase 1's benchmark.", "// Previous: none. Next: 0.02 b.")):
        cases += 1
        if fixed_line(wrong, listed, i) != right:
            failures.append(f"--fix of '{wrong}' gave '{fixed_line(wrong, listed, i)}', expected '{right}'")
    # --fix rewrites a stale list to the manifest's and leaves the text around it (and the rest) alone.
    for description, stale in stale_maps.items():
        cases += 1
        if fixed_course_map(stale, entries) != readme:
            failures.append(f"--fix of {description} gave {fixed_course_map(stale, entries)!r}, expected {readme!r}")
    for failure in failures:
        print(failure)
    print(f"self-test: {cases - len(failures)} of {cases} cases behave")
    return not failures


def main():
    args = sys.argv[1:]
    fix = args[:1] == ["--fix"]
    if fix:
        args = args[1:]
    if len(args) != 1:
        print("usage: check_manifest.py [--fix] <source-dir>", file=sys.stderr)
        return 2
    if not self_test():
        return 1
    root = pathlib.Path(args[0]).resolve()
    if fix:
        entries = json.loads((root / "cmake" / "exercises.json").read_text())["exercises"]
        for path in fix_headers(root, entries):
            print(f"rewrote the Previous/Next line of {path}")
        readme_path = root / "README.md"
        readme = readme_path.read_text()
        fixed = fixed_course_map(readme, [e for e in entries if e.get("id") and e.get("name")])
        if fixed != readme:
            readme_path.write_text(fixed)
            print("rewrote the course map of README.md")
    entries, readme, phase_readmes, headers = load(root)
    problems = check(entries, readme, phase_readmes, headers)
    for problem in problems:
        print(problem)
    print(f"{len(entries)} manifest entries checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
