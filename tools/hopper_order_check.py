#!/usr/bin/env python3
"""Part of the grade of 1.11-1.14 and 5.08: orderings that no test run can see.

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
  - 5.08: the same early release (an arrive on an `empty` barrier before the wgmma_wait_group that
    retires the wgmma reading that stage), and the epilogue's O tile written to shared memory by the
    threads (generic proxy) and stored by TMA (async proxy) without fence_proxy_async_shared() in
    between, or with no bulk_wait_group_read() after the store (the block may exit, and its shared
    memory be reused, while the store still reads it). PTX ISA, "Memory Consistency Model: proxies"
    and "cp.async.bulk.wait_group".
This reads the kernel's source (comments stripped) and checks the order of those calls in it.
Usage: hopper_order_check.py <exercise id> <file.cu>   exit 0 clean, 1 with the reason, 2 usage
       hopper_order_check.py --self-test <repository root>  plants each bug in the solutions
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


# 5.08: a wgmma issue in the kernel's text: the course's helpers (issue_scores, issue_pv) or a wgmma
# written out (Wgmma...::mma, wgmma_commit_group).
WGMMA_ISSUE = re.compile(r"\bissue_(?:scores|pv)\b\s*(?:<[^;(]*>)?\s*\(|::mma\s*\(|\bwgmma_commit_group\s*\(")
WGMMA_WAIT = re.compile(r"\bwgmma_wait_group\s*<")
EMPTY_ARRIVE = re.compile(r"\bmbarrier_arrive\s*\(\s*&?\s*\w*empty")
# A generic-proxy write through a pointer or an array: `*ptr = `, `*cast<...>(...) = `, `a[i] = `.
SHARED_WRITE = re.compile(r"[\])]\s*=(?!=)")
TMA_STORE = re.compile(r"\btma_store_\w+\s*\(")
PROXY_FENCE = re.compile(r"\bfence_proxy_async_shared\s*\(\s*\)")
BULK_WAIT = re.compile(r"\bbulk_wait_group_read\s*\(")
LAMBDA = re.compile(r"\bauto\s+(\w+)\s*=\s*\[[^\]]*\]\s*(?:\([^)]*\))?\s*(?:mutable\s*)?\{")


def kernel_body(code):
    """The text from the first __global__ to the end of the file (the helpers above it are not run)."""
    start = code.find("__global__")
    return code[start:] if start >= 0 else ""


def matching_brace(code, open_index):
    depth = 0
    for i in range(open_index, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(code)


def release_points(body, arrive):
    """Where an arrive on `empty` takes effect: the arrive itself, or, when it sits in a lambda that issues
    no wgmma of its own (`auto release = [&](int stage) { ... arrive ... };`), every call of that lambda."""
    for m in LAMBDA.finditer(body[:arrive]):
        close = matching_brace(body, m.end() - 1)
        if close > arrive and not WGMMA_ISSUE.search(body, m.end(), close) and not WGMMA_WAIT.search(body, m.end(), arrive):
            calls = [c.start() for c in re.finditer(r"\b" + re.escape(m.group(1)) + r"\s*\(", body[close:])]
            return [close + c for c in calls]
    return [arrive]


def check_early_release(body):
    """An arrive on `empty` with a wgmma issued before it (in the text) and no wgmma_wait_group in between."""
    for arrive in EMPTY_ARRIVE.finditer(body):
        for point in release_points(body, arrive.start()):
            issues = list(WGMMA_ISSUE.finditer(body[:point]))
            if issues and not WGMMA_WAIT.search(body, issues[-1].end(), point):
                return True
    return False


def check_store_order(body):
    """"" when each TMA store of O follows a proxy fence that follows the last shared-memory write,
    and is followed by bulk_wait_group_read; else the sentence."""
    store = TMA_STORE.search(body)
    if not store:
        return ""
    before = body[:store.start()]
    writes = list(SHARED_WRITE.finditer(before))
    last_write = writes[-1].end() if writes else 0
    if not PROXY_FENCE.search(before, last_write):
        return ("5.08: the O tile is written to shared memory by the threads (the generic proxy) and read by the "
                "TMA store (the async proxy) without fence_proxy_async_shared() in between. Each writing thread "
                "fences after its last write, then the barrier, then one thread stores; without the fence the "
                "store may read stale shared memory. Runs rarely show it: this check does.")
    if not BULK_WAIT.search(body, store.end()):
        return ("5.08: the TMA store of O is never waited for (bulk_commit_group, then bulk_wait_group_read): the "
                "block may exit, and its shared memory go to the next block, while the store still reads it.")
    return ""


def check_flash_hopper(text):
    body = kernel_body(strip_comments(text))
    if not body:
        return ""
    if check_early_release(body):
        return ("5.08: the kernel releases a stage (arrive on empty) after issuing a wgmma and before "
                "wgmma_wait_group says it has finished. wgmma runs asynchronously: until the wait, the tensor "
                "cores may still be reading that stage's K or V, and the producer's next TMA load overwrites it. "
                "A run may or may not show this race, so this check reads the order (a release inside a helper "
                "lambda counts where the lambda is called).")
    return check_store_order(body)


def named_kernel_body(code, name):
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
    body = named_kernel_body(code, "cluster_kernel")
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


def check(exercise, text):
    """Returns "" when the order is right, else one sentence that names the bug."""
    if exercise == "5.08":
        return check_flash_hopper(text)
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


# 5.08's stage release as the solution writes it (the end of its pv lambda).
PV_RELEASE = """      issue_pv<D, BC>(o, p, Vs + stage * Lay::kK);
      wgmma_wait_group<0>();
      wgmma_fence_operands(o);
#pragma unroll
      for (int kk = 0; kk < BC / 16; ++kk) wgmma_fence_operands(p[kk]);
      if (t == 0) mbarrier_arrive(&empty[stage]);"""
PV_NO_RELEASE = PV_RELEASE.replace("\n      if (t == 0) mbarrier_arrive(&empty[stage]);", "")


def flash_hopper_shapes(solution):
    """Other right orders a learner may write (each must pass), and the planted wrong ones (each must fail)."""
    scores_lambda = "      issue_scores<D, BC>(s, q_rows, Ks + stage * Lay::kK);\n    };"
    right = {
        # The release moved into a lambda defined after an issuing one and called after the wait.
        "a release lambda called after the wait": solution.replace(
            scores_lambda,
            scores_lambda + "\n    auto release = [&](int stage) {\n      if (t == 0) mbarrier_arrive(&empty[stage]);\n    };",
        ).replace(PV_RELEASE, PV_NO_RELEASE + "\n      release(stage);"),
        # The release one product later, after a wgmma_wait_group<1> that retires the P V group only.
        "a release after wgmma_wait_group<1>": solution.replace(PV_RELEASE, PV_NO_RELEASE).replace(
            "      scores(j);\n      your_turn();",
            "      scores(j);\n      wgmma_wait_group<1>();\n"
            "      if (t == 0) mbarrier_arrive(&empty[(j - 1) % STAGES]);\n      your_turn();",
        ),
        # The fence in the storing thread, after the barrier (still between the writes and the store).
        "the fence after the barrier": solution.replace(
            "  fence_proxy_async_shared();  // the generic-proxy writes above, before the TMA store reads them\n", ""
        ).replace("  if (t == 0) {\n#pragma unroll\n    for (int b = 0; b < D / 64; ++b) tma_store_3d",
                  "  if (t == 0) {\n    fence_proxy_async_shared();\n#pragma unroll\n    for (int b = 0; b < D / 64; ++b) tma_store_3d"),
    }
    wrong = {
        # The release right after the P V group is committed, before the wait.
        "a release before the wait": solution.replace(
            PV_RELEASE,
            "      issue_pv<D, BC>(o, p, Vs + stage * Lay::kK);\n      if (t == 0) mbarrier_arrive(&empty[stage]);\n"
            + PV_NO_RELEASE.split("\n", 1)[1],
        ),
        "a release with no wait at all": solution.replace(
            PV_RELEASE, PV_RELEASE.replace("      wgmma_wait_group<0>();\n", "")
        ),
        "a release lambda called before the wait": solution.replace(
            scores_lambda,
            scores_lambda + "\n    auto release = [&](int stage) {\n      if (t == 0) mbarrier_arrive(&empty[stage]);\n    };",
        ).replace(PV_RELEASE, PV_NO_RELEASE.replace("      wgmma_wait_group<0>();\n",
                                                    "      release(stage);\n      wgmma_wait_group<0>();\n")),
        "no proxy fence before the TMA store": solution.replace("fence_proxy_async_shared();", ""),
        "the proxy fence before the O writes": solution.replace("fence_proxy_async_shared();", "").replace(
            "  __nv_bfloat16* out = Qs + consumer * 64 * 64;\n",
            "  __nv_bfloat16* out = Qs + consumer * 64 * 64;\n  fence_proxy_async_shared();\n"),
        "no wait for the TMA store": solution.replace("bulk_wait_group_read();", ""),
    }
    return right, wrong


def cluster_plants(solution):
    """1.14's planted bugs: the release order and destinations, and the two cluster barriers."""
    release_both = re.compile(r"if \(t == 0\)\s*for \(int r = 0; r < kCluster; \+\+r\) "
                              r"mbarrier_arrive_cluster\(map_to_rank\(&empty\[stage\], r\)\);")
    cluster_barrier = "cluster_arrive();\n  cluster_wait();"
    last = solution.rfind(cluster_barrier)
    return {
        "remote release before the wait": solution.replace(
            "wgmma_commit_group();", "wgmma_commit_group();\n        if (t == 0) "
            "mbarrier_arrive_cluster(map_to_rank(&empty[stage], 1));", 1),
        "release in this block only": release_both.sub("if (t == 0) mbarrier_arrive(&empty[stage]);", solution, count=1),
        "no cluster barrier after the initialisation": solution.replace(cluster_barrier, "__syncthreads();", 1),
        "the cluster barrier after the roles start": solution.replace(cluster_barrier, "", 1).replace(
            "setmaxnreg_inc<kConsumerRegisters>();",
            "setmaxnreg_inc<kConsumerRegisters>();\n    " + cluster_barrier, 1),
        "no cluster barrier before exit": solution[:last] + solution[last + len(cluster_barrier):],
    }


def self_test(root):
    """Each solution (and 5.08's stub) passes; each with its bug planted fails."""
    if (root / "11_wgmma.cu").is_file():  # the phase 1 solutions folder, as older build trees pass
        root = root.parent.parent
    problems = []
    p1 = root / "solutions" / "phase1_matmul"
    files = {
        "1.11": p1 / "11_wgmma.cu",
        "1.12": p1 / "12_tma.cu",
        "1.13": p1 / "13_warp_specialized.cu",
        "1.14": p1 / "14_cluster_multicast.cu",
        "5.08": root / "solutions" / "phase5_attention" / "08_flash_hopper.cu",
    }
    passing = dict(files)
    passing["5.08 stub"] = root / "phase5_attention" / "08_flash_hopper.cu"
    for name, path in passing.items():
        reason = check(name.split()[0], path.read_text())
        if reason:
            problems.append(f"{path}: it fails: {reason}")
    plants = {
        "1.11": lambda t: t.replace("fence_proxy_async_shared();", ""),
        # Release as soon as the batch is committed, before waiting for it.
        "1.12": lambda t: re.sub(r"wgmma_wait_group<1>\(\);", "", t, count=1),
        "1.13": lambda t: t.replace("wgmma_commit_group();",
                                    "wgmma_commit_group();\n        if (t == 0) mbarrier_arrive(&empty[stage]);", 1),
    }
    planted = {exercise: {"planted": plant(files[exercise].read_text())} for exercise, plant in plants.items()}
    planted["1.14"] = cluster_plants(files["1.14"].read_text())
    solution = files["5.08"].read_text()
    right, wrong = flash_hopper_shapes(solution)
    planted["5.08"] = wrong
    for what, text in right.items():
        if text == solution:
            problems.append(f"5.08, {what}: the shape did not change the solution (update the self-test)")
        elif check("5.08", text):
            problems.append(f"5.08, {what}: a right order fails: {check('5.08', text)}")
    count = 0
    for exercise, variants in planted.items():
        for what, text in variants.items():
            count += 1
            if text == files[exercise].read_text():
                problems.append(f"{exercise}, {what}: the planted bug did not change the solution (update the self-test)")
            elif not check(exercise, text):
                problems.append(f"{exercise}, {what}: the planted bug passed the check")
    for p in problems:
        print(p)
    print(f"hopper_order_check self-test: {count} planted bugs, {len(right)} other right orders, "
          f"{len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(pathlib.Path(argv[2]))
    if len(argv) != 3 or argv[1] not in ("1.11", "1.12", "1.13", "1.14", "5.08"):
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
