#!/usr/bin/env python3
"""Part of the grade of 1.11-1.14: orderings that no test run can see.

Two bugs of asynchronous tensor-core code that a test run may not show, and that compute-sanitizer
cannot see (it does not model the async proxy of wgmma and TMA):
  - 1.11: shared memory written by cp.async (the generic proxy) and read by wgmma (the async proxy)
    without fence.proxy.async in between. The memory model allows wgmma to read stale data.
  - 1.12, 1.13: a stage handed back for refilling before the wgmma that read it has finished
    (before wgmma_wait_group). The next TMA load may overwrite operands still being read: a race,
    which graded runs on an H100 caught every time in the self-test's measurement, but a race all
    the same (another size, GPU or clock may hide it).
  - 1.14 (clusters): the same release order, the release sent to every block of the cluster
    (mbarrier_arrive_cluster on map_to_rank addresses, not a plain arrive on this block's barrier),
    the cluster barrier (cluster_arrive, cluster_wait) after the mbarrier initialisation and its
    fence and before either role starts (a peer may otherwise multicast into or arrive on barriers
    not yet initialised), and the cluster barrier again after the last remote arrive and multicast
    (a block that exits first leaves its peer's arrivals aimed at shared memory no longer its own).
    Races of one moment, which a run rarely shows.
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
    if exercise == "1.14":
        return check_cluster(code)
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


def kernel_body(code, name):
    """The body of the __global__ function `name` (braces matched), or "" when there is none."""
    match = re.search(r"__global__[^;{]*?\b" + name + r"\s*\(", code, flags=re.S)
    if not match:
        return ""
    start = code.find("{", match.end())
    depth = 0
    for i in range(start, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return code[start:i + 1]
    return code[start:]


def check_cluster(code):
    """1.14: the release order and destinations, and the two cluster barriers."""
    body = kernel_body(code, "cluster_kernel")
    if not body:
        return ""
    loop = kernel_loop(body)
    commit = loop.find("wgmma_commit_group()")
    if commit >= 0:
        after = loop[commit:]
        wait = re.search(r"wgmma_wait_group\s*<", after)
        release = re.search(r"mbarrier_arrive(_cluster)?\(", after)
        if (release and (not wait or release.start() < wait.start())) or re.search(
                r"mbarrier_arrive(_cluster)?\(", loop[:commit]):
            return ("1.14: the kernel releases a stage (arrives on empty) before wgmma_wait_group says the "
                    "wgmma that read it have finished. Until the wait the tensor cores may still read that "
                    "stage, and the next multicast overwrites it in both blocks. A run may or may not show "
                    "this race, so this check reads the order.")
    if re.search(r"mbarrier_arrive\(\s*&\s*empty", body):
        return ("1.14: a stage is released with a plain mbarrier_arrive on this block's empty barrier. Both "
                "producers of the cluster refill it (each multicasts its half of B into both blocks), so "
                "each consumer must release it to every block: mbarrier_arrive_cluster on the address "
                "map_to_rank gives for each rank's empty barrier.")
    if "mbarrier_init(" not in body or "cluster_wait()" not in body:
        if "mbarrier_arrive_cluster(" in body or "tma_load_2d_multicast(" in body:
            return ("1.14: the kernel has no cluster barrier (cluster_arrive, then cluster_wait): its blocks "
                    "arrive on and multicast into each other's shared memory, so they must meet after the "
                    "barriers are initialised and again before any block exits.")
        return ""  # nothing remote yet: the graded test fails the stub
    last_init = body.rfind("mbarrier_init(")
    fence = body.find("fence_barrier_init()", last_init)
    first_wait = body.find("cluster_wait()", last_init)
    first_use = min([i for i in (body.find(k, last_init) for k in (
        "setmaxnreg_", "tma_load_2d", "mbarrier_arrive_cluster(", "mbarrier_wait")) if i >= 0] or [len(body)])
    arrive = body.rfind("cluster_arrive()", 0, first_wait) if first_wait >= 0 else -1
    if fence < 0 or first_wait < 0 or first_wait > first_use or arrive < fence:
        return ("1.14: the cluster barrier (fence_barrier_init, then cluster_arrive and cluster_wait) must "
                "come after the mbarrier initialisation and before either role starts: until the peer's "
                "barriers are initialised and the initialisation visible to the cluster, its producer may "
                "multicast into them or its consumers arrive on them. A run rarely shows this race.")
    last_remote = max(body.rfind("mbarrier_arrive_cluster("), body.rfind("tma_load_2d_multicast("))
    last_wait = body.rfind("cluster_wait()")
    if last_wait < last_remote or body.rfind("cluster_arrive()", 0, last_wait) < last_remote:
        return ("1.14: no cluster barrier (cluster_arrive, then cluster_wait) after the last remote arrive "
                "and multicast, at the end of the kernel: a block that exits while its peer may still arrive "
                "on or multicast into its shared memory leaves those operations aimed at memory that is no "
                "longer its own. A run rarely shows this race.")
    return ""


def self_test(solutions):
    """Each solution passes; each with its bug planted fails."""
    problems = []
    files = {
        "1.11": solutions / "11_wgmma.cu",
        "1.12": solutions / "12_tma.cu",
        "1.13": solutions / "13_warp_specialized.cu",
        "1.14": solutions / "14_cluster_multicast.cu",
    }
    for exercise, path in files.items():
        text = path.read_text()
        if check(exercise, text):
            problems.append(f"{path}: the solution fails: {check(exercise, text)}")
    release_both = re.compile(r"if \(t == 0\)\s*for \(int r = 0; r < kCluster; \+\+r\) "
                              r"mbarrier_arrive_cluster\(map_to_rank\(&empty\[stage\], r\)\);")
    cluster_barrier = "cluster_arrive();\n  cluster_wait();"
    plants = [
        ("1.11", "no proxy fence", lambda t: t.replace("fence_proxy_async_shared();", "")),
        # Release as soon as the batch is committed, before waiting for it.
        ("1.12", "refill before the wait", lambda t: re.sub(r"wgmma_wait_group<1>\(\);", "", t, count=1)),
        ("1.13", "release before the wait",
         lambda t: t.replace("wgmma_commit_group();",
                             "wgmma_commit_group();\n        if (t == 0) mbarrier_arrive(&empty[stage]);", 1)),
        ("1.14", "remote release before the wait",
         lambda t: t.replace("wgmma_commit_group();", "wgmma_commit_group();\n        if (t == 0) "
                             "mbarrier_arrive_cluster(map_to_rank(&empty[stage], 1));", 1)),
        ("1.14", "release in this block only",
         lambda t: release_both.sub("if (t == 0) mbarrier_arrive(&empty[stage]);", t, count=1)),
        ("1.14", "no cluster barrier after the initialisation",
         lambda t: t.replace(cluster_barrier, "__syncthreads();", 1)),
        ("1.14", "the cluster barrier after the roles start",
         lambda t: t.replace(cluster_barrier, "", 1).replace(
             "setmaxnreg_inc<kConsumerRegisters>();",
             "setmaxnreg_inc<kConsumerRegisters>();\n    " + cluster_barrier, 1)),
        ("1.14", "no cluster barrier before exit",
         lambda t: t[:t.rfind(cluster_barrier)] + t[t.rfind(cluster_barrier) + len(cluster_barrier):]),
    ]
    for exercise, what, plant in plants:
        original = files[exercise].read_text()
        planted = plant(original)
        if planted == original:
            problems.append(f"{exercise} ({what}): the planted bug did not change the solution (update the self-test)")
        elif not check(exercise, planted):
            problems.append(f"{exercise} ({what}): the planted bug passed the check")
    for p in problems:
        print(p)
    print(f"hopper_order_check self-test: {len(plants)} planted bugs, {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(pathlib.Path(argv[2]))
    if len(argv) != 3 or argv[1] not in ("1.11", "1.12", "1.13", "1.14"):
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
