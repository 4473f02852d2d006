#!/usr/bin/env python3
"""Part of the grade of 1.11-1.13: orderings that no test run can see.

Two bugs of asynchronous tensor-core code that a test run may not show, and that compute-sanitizer
cannot see (it does not model the async proxy of wgmma and TMA):
  - 1.11: shared memory written by cp.async (the generic proxy) and read by wgmma (the async proxy)
    without fence.proxy.async in between. The memory model allows wgmma to read stale data.
  - 1.12, 1.13: a stage handed back for refilling before the wgmma that read it has finished
    (before wgmma_wait_group). The next TMA load may overwrite operands still being read: a race,
    which graded runs on an H100 caught every time in the self-test's measurement, but a race all
    the same (another size, GPU or clock may hide it).
This reads the kernel's source (comments stripped) and checks the order of those calls in it.
Usage: hopper_order_check.py <exercise id> <file.cu>   exit 0 clean, 1 with the reason, 2 usage
       hopper_order_check.py --self-test <solutions dir>  plants each bug in the solutions
"""
import pathlib
import re
import sys


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def kernel_loop(code):
    """The text from the first wgmma issue to the end of the file: the k loop and what follows."""
    start = code.find("Mma::mma(")
    return code[start:] if start >= 0 else ""


def check(exercise, text):
    """Returns "" when the order is right, else one sentence that names the bug."""
    code = strip_comments(text)
    if "Mma::mma(" not in code:
        return ""  # no wgmma yet: the graded test already fails ("Output untouched")
    if exercise == "1.11":
        if "cp_async_wait" in code and "fence_proxy_async_shared()" not in code:
            return ("1.11: shared memory written by cp.async is read by wgmma without "
                    "fence_proxy_async_shared() in between. cp.async writes through the generic proxy and "
                    "wgmma reads through the async proxy; without the fence (in every writing thread, "
                    "before the barrier) wgmma may read stale data. Runs rarely show it: this check does.")
        return ""
    if exercise in ("1.12", "1.13"):
        release = r"issue\(" if exercise == "1.12" else r"mbarrier_arrive\(\s*&\s*empty"
        loop = kernel_loop(code)
        commit = loop.find("wgmma_commit_group()")
        if commit < 0:
            return ""
        after = loop[commit:]
        wait = re.search(r"wgmma_wait_group\s*<", after)
        refill = re.search(release, after)
        early_refill = refill and (not wait or refill.start() < wait.start())
        before_commit = re.search(release, loop[:commit])
        if early_refill or before_commit:
            what = "refills a stage (issue)" if exercise == "1.12" else "releases a stage (arrive on empty)"
            return (f"{exercise}: the kernel {what} before wgmma_wait_group says the wgmma that read it "
                    "have finished. wgmma runs asynchronously: until the wait, the tensor cores may still "
                    "be reading that stage, and the next TMA load overwrites it. A run may or may not show "
                    "this race, so this check reads the order.")
        return ""
    return ""


def self_test(solutions):
    """Each solution passes; each with its bug planted fails."""
    problems = []
    files = {
        "1.11": solutions / "11_wgmma.cu",
        "1.12": solutions / "12_tma.cu",
        "1.13": solutions / "13_warp_specialized.cu",
    }
    for exercise, path in files.items():
        text = path.read_text()
        if check(exercise, text):
            problems.append(f"{path}: the solution fails: {check(exercise, text)}")
    plants = {
        "1.11": lambda t: t.replace("fence_proxy_async_shared();", ""),
        # Release as soon as the batch is committed, before waiting for it.
        "1.12": lambda t: re.sub(r"wgmma_wait_group<1>\(\);", "", t, count=1),
        "1.13": lambda t: t.replace("wgmma_commit_group();",
                                    "wgmma_commit_group();\n        if (t == 0) mbarrier_arrive(&empty[stage]);", 1),
    }
    for exercise, plant in plants.items():
        planted = plant(files[exercise].read_text())
        if planted == files[exercise].read_text():
            problems.append(f"{exercise}: the planted bug did not change the solution (update the self-test)")
        elif not check(exercise, planted):
            problems.append(f"{exercise}: the planted bug passed the check")
    for p in problems:
        print(p)
    print(f"hopper_order_check self-test: {len(plants)} planted bugs, {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(pathlib.Path(argv[2]))
    if len(argv) != 3 or argv[1] not in ("1.11", "1.12", "1.13"):
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    path = pathlib.Path(argv[2])
    if not path.is_file():
        print(f"hopper_order_check: no such file: {path}", file=sys.stderr)
        return 2
    reason = check(argv[1], path.read_text())
    if reason:
        print(f"FAIL {path}: {reason}")
        return 1
    print(f"ok {path}: the asynchronous operations are ordered")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
