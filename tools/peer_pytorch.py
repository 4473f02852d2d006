#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch as a peer: times PyTorch on exactly the shapes of the lessons and phase benchmarks.

    python3 tools/peer_pytorch.py [--phase N]... [--out FILE] [--repeat N] [--list]

An optional maintainer script: torch is never a dependency of the build or of the
tests. Where `import torch` fails it prints one line and exits 77 (the course's "cannot run here").

The course's timing rules hold: CUDA events on the current stream, two
warm-up calls discarded, a cold L2 before each repeat of a memory-bound op (a buffer of at least twice
the L2 size is read between repeats, outside the timed region), median, min and spread of the repeats.
Rates are counted as the lessons count them: the minimum bytes read + written over the median time,
2*M*N*K (2*nnz for SpMV; 4 seq_q seq_k d per head for attention, halved for causal) flop over the median
time. Matmuls and attention time warm, like p1_ladder and p5_bench (compute-bound: no L2 flush).
Attention (phase 5) is F.scaled_dot_product_attention on BF16 [1, heads, seq, d] tensors, pinned to one
backend at a time with torch.nn.attention.sdpa_kernel (the flash backend, and cuDNN's where this torch
has it; a backend this torch lacks is skipped with a line, not failed), on p5_bench's 5.05 shapes; its
backward (beside 5.07) is torch.autograd.grad of the same call with a given dO, the forward run once
outside the timing, counted as 2.5x the forward's flop (the five products of FlashAttention-2's backward).

The CSV is the course's one result CSV (the columns of common/result_csv.h, read from that file), one
row per op and shape: variant "pytorch <version>", the lesson ids in `id` (the phase alone for a row
beside no lesson), the op in `launcher`, the shape as the lessons write their problem ("n=64M",
"16384x4096", "M=N=K=4096", "poisson:4M"), the launchers it stands beside in `beside`, bytes, flop,
median, min and spread, the rate (GB/s where bytes are counted, else GFLOP/s) and a note.
`workbook bench phaseN` reads it (default place: build/<preset>/workbook-state/bench/peer_pytorch.csv,
or $WORKBOOK_PEER_CSV) and draws a PyTorch bar beside each matching lesson on the same GPU.
Rows of phases not measured in this run are kept when FILE already holds rows for the same GPU.

Exit status: 0 written, 1 a measurement failed, 2 usage error, 77 torch not importable or no GPU.
"""

import argparse
import contextlib
import csv
import datetime
import io
import math
import os
import re
import sys

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_TORCH = 0, 1, 2, 77
PHASES = (0, 1, 2, 3, 4, 5)
WARMUP = 2  # as the lessons' BenchOptions: the first calls pay for allocation and kernel selection
RESULT_CSV_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common", "result_csv.h")
MiB = 1 << 20

# ---- pure helpers (no torch): argument parsing, sizes, rate math, the case table, CSV ----------------


def parse_args(argv):
    """The command line; argparse prints the usage and exits 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="peer_pytorch.py",
        description="Time PyTorch on the shapes of the course's lessons and phase benchmarks; write CSV.")
    parser.add_argument("--phase", type=int, action="append", choices=PHASES, metavar="N",
                        help="a phase to measure (0-5); repeatable; all phases when not given")
    parser.add_argument("--out", default="peer_pytorch.csv", metavar="FILE", help="the CSV (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=10, metavar="N", help="timed repeats, 1 to 1000 (default 10)")
    parser.add_argument("--list", action="store_true", help="print the cases without timing them (no torch needed)")
    args = parser.parse_args(argv)
    if not 1 <= args.repeat <= 1000:
        parser.error("--repeat needs 1 to 1000, got %d" % args.repeat)
    args.phase = sorted(set(args.phase)) if args.phase else list(PHASES)
    return args


def format_count(n):
    """67108864 -> '64M', 1536 -> '1.5K': common/report.cpp format_count, so shapes match the lessons'."""
    if n < 1024:
        return str(n)
    value, suffix = float(n), -1
    while value >= 1024 and suffix < 3:
        value /= 1024
        suffix += 1
    letter = "KMGT"[suffix]
    if value == int(value):
        return "%d%s" % (int(value), letter)
    if n % 1000 == 0 and n < 1000000:
        return str(n)
    return "%.3g%s" % (value, letter)


def result_columns(header_path=RESULT_CSV_H):
    """The result CSV's columns, in order, as common/result_csv.h lists them between its marker lines."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.find("// result-columns begin"), text.find("// result-columns end")
    if begin < 0 or end < begin:
        raise ValueError("%s has no result-columns markers" % header_path)
    return tuple(re.findall(r'^\s*"([a-z_]+)",', text[begin:end], re.MULTILINE))


def gb_per_s(num_bytes, ms):
    """GB/s from bytes moved and milliseconds (common/report.h gb_per_s)."""
    return num_bytes / (ms * 1e6) if ms > 0 else 0.0


def gflop_per_s(flop, ms):
    return flop / (ms * 1e6) if ms > 0 else 0.0


def quantile(ordered, q):
    """Linear interpolation between the order statistics, as common/timer.cpp's summarize."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (pos - lo) * (ordered[hi] - ordered[lo])


def median(values):
    return quantile(sorted(values), 0.5)


def spread_pct(values):
    """Half the interquartile range in % of the median (common/timer.h TimingStats::spread_pct)."""
    ordered = sorted(values)
    mid = quantile(ordered, 0.5)
    return 100.0 * 0.5 * (quantile(ordered, 0.75) - quantile(ordered, 0.25)) / mid if mid > 0 else 0.0


def flush_bytes(l2_bytes):
    """The L2 flush buffer: at least twice the L2 size (the rule), never under 64 MiB (an L2 size of 0
    means the attribute was not there: 256 MiB covers every GPU so far)."""
    if l2_bytes <= 0:
        return 256 * MiB
    return max(2 * l2_bytes, 64 * MiB)


def spmv_min_bytes(rows, cols, nnz):
    """phase4_spmv/harness/device_matrix.h spmv_min_bytes: values and columns once, row pointers, x, y."""
    return 8.0 * nnz + 4.0 * (rows + 1) + 4.0 * cols + 4.0 * rows


class Case:
    """One op at one shape: what to time (kind + params) and how the lessons count its rate."""

    def __init__(self, phase, op, shape, kind, params, num_bytes=0.0, flop=0.0, ids=(), launchers=(),
                 dtype="fp32", cold=True, note=""):
        self.phase, self.op, self.shape, self.kind, self.params = phase, op, shape, kind, params
        self.bytes, self.flop, self.ids, self.launchers = num_bytes, flop, tuple(ids), tuple(launchers)
        self.dtype, self.cold, self.note = dtype, cold, note

    def __repr__(self):
        return "Case(%d %s %s)" % (self.phase, self.op, self.shape)


# Launcher names exactly as the lessons and benchmarks print them: a row matches a lesson by launcher
# and shape (workbook bench), so these lists are the only map from PyTorch ops to the course's kernels.
MATMUL_FP32 = ("matmul_naive", "matmul_coalesced", "matmul_smem_tiled", "matmul_blocktiling_1d",
               "matmul_blocktiling_2d", "matmul_vectorized", "matmul_warptiling", "matmul_cublas", "cublasSgemm")
MATMUL_BF16 = ("matmul_mma_sync_bf16", "matmul_wgmma_bf16", "matmul_tma_bf16", "matmul_warp_specialized_bf16",
               "matmul_cluster_bf16", "cublasGemmEx", "cublasLtMatmul")
REDUCE = ("reduce_interleaved_divergent", "reduce_interleaved_strided", "reduce_sequential",
          "reduce_first_add_during_load", "reduce_unroll_last_warp", "reduce_complete_unroll",
          "reduce_many_per_thread", "reduce_shuffle", "reduce_single_pass_last_block", "reduce_block_atomics",
          "reduce_cub", "cub::DeviceReduce::Sum")
SPMV = ("spmv_csr_scalar", "spmv_csr_vector", "spmv_ell", "spmv_csr_adaptive", "spmv_csr_balanced",
        "spmv_block_tiled", "spmv_cusparse_csr", "spmv_cusparse_plan_run", "cusparse_csr")


def phase0_cases():
    n = 64 * MiB  # the phase 0 lessons' default size
    side = 8192   # 0.06's default 8192 x 8192
    return [
        # PyTorch's own copy: the yardstick its element-wise ops are held to (no lesson beside it).
        Case(0, "copy", "n=" + format_count(n), "copy", {"n": n}, 8.0 * n,
             note="dst.copy_(src): PyTorch's own device copy"),
        Case(0, "add", "n=" + format_count(n), "add", {"n": n}, 12.0 * n, ids=("0.02",),
             launchers=("vector_add", "vector_add_float4"), note="torch.add(a, b, out=c)"),
        Case(0, "transpose", "%dx%d" % (side, side), "transpose", {"rows": side, "cols": side}, 8.0 * side * side,
             ids=("0.06",), launchers=("transpose_naive", "transpose_tiled_no_padding", "transpose_tiled"),
             note="out.copy_(x.t())"),
    ]


def phase1_cases():
    cases = []
    for n in (1024, 2048, 4096, 8192):  # p1_ladder's sizes; the lessons run 4096
        shape, flop = "M=N=K=%d" % n, 2.0 * n * n * n
        cases.append(Case(1, "matmul", shape, "matmul", {"n": n, "dtype": "fp32"}, flop=flop, ids=(
            "1.01", "1.02", "1.03", "1.04", "1.05", "1.06", "1.07", "1.08"), launchers=MATMUL_FP32, dtype="fp32",
            cold=False, note="torch.mm(out=), allow_tf32 = False (cuBLAS default math)"))
        cases.append(Case(1, "matmul", shape, "matmul", {"n": n, "dtype": "tf32"}, flop=flop, ids=("1.09",),
                          launchers=("matmul_tensor_core_tf32",), dtype="tf32", cold=False,
                          note="torch.mm(out=), allow_tf32 = True"))
        cases.append(Case(1, "matmul", shape, "matmul", {"n": n, "dtype": "bf16"}, flop=flop, dtype="bf16",
                          ids=("1.10", "1.11", "1.12", "1.13", "1.14"), launchers=MATMUL_BF16, cold=False,
                          note="torch.mm(a, b.t(), out=): A B^T as the BF16 lessons, BF16 in and out (they write "
                               "FP32 C), FP32 accumulate"))
    return cases


def phase2_cases():
    cases = []
    for n in (16 * MiB, 64 * MiB):  # p2_bench --elements; the lessons run 64M
        shape = "n=" + format_count(n)
        cases.append(Case(2, "relu", shape, "relu", {"n": n}, 8.0 * n, ids=("2.01", "2.03"),
                          launchers=("relu", "relu_float4"), note="F.relu(x)"))
        cases.append(Case(2, "gelu_tanh", shape, "gelu", {"n": n}, 8.0 * n, ids=("2.02", "2.03"),
                          launchers=("gelu_tanh", "gelu_tanh_float4"), note="F.gelu(x, approximate='tanh')"))
    # Row-wise shapes: p2_bench's (64M floats as rows x 1024, 4096, 16384) and the lessons' own; rms_norm
    # and layer_norm also at 2.05's four (256 to 32768 columns).
    bench_shapes = [(64 * MiB // c, c) for c in (1024, 4096, 16384)]
    rms_shapes = [(262144, 256), (65536, 1024), (16384, 4096), (2048, 32768)] + bench_shapes
    for rows, cols in unique(bench_shapes + [(16384, 4096)]):
        count = rows * cols
        # The minimum traffic (x read, y written, the bias once), as p2_bench and 2.04's fused line count it.
        cases.append(Case(2, "bias_gelu", "%dx%d" % (rows, cols), "bias_gelu", {"rows": rows, "cols": cols},
                          8.0 * count + 4.0 * cols, ids=("2.04",), launchers=("bias_gelu_fused",),
                          note="F.gelu(x + b, approximate='tanh'): eager runs two kernels"))
    for rows, cols in unique(rms_shapes):
        count = rows * cols
        cases.append(Case(2, "rms_norm", "%dx%d" % (rows, cols), "rms_norm", {"rows": rows, "cols": cols},
                          8.0 * count + 4.0 * cols, ids=("2.05", "2.06"),
                          launchers=("rmsnorm_block", "rmsnorm_warp"), note="F.rms_norm(x, (cols,), w, eps=1e-5)"))
    for rows, cols in unique(rms_shapes):
        # The lesson's bytes: x read and y written once, gamma and beta once, mean and rstd once (eager
        # F.layer_norm computes mean and rstd too, as native_layer_norm's outputs).
        cases.append(Case(2, "layer_norm", "%dx%d" % (rows, cols), "layer_norm", {"rows": rows, "cols": cols},
                          8.0 * rows * cols + 8.0 * cols + 8.0 * rows, ids=("2.10",),
                          launchers=("layernorm_forward",), note="F.layer_norm(x, (cols,), w, b, eps=1e-5)"))
    for rows, cols in unique(bench_shapes + [(16384, 4096)]):
        cases.append(Case(2, "softmax", "%dx%d" % (rows, cols), "softmax", {"rows": rows, "cols": cols},
                          8.0 * rows * cols, ids=("2.07", "2.08", "2.09"),
                          launchers=("softmax_three_pass", "softmax_online", "softmax_single_read"),
                          note="torch.softmax(x, dim=-1)"))
    return cases


def phase3_cases():
    return [Case(3, "sum", "n=" + format_count(n), "sum", {"n": n}, 4.0 * n,
                 ids=("3.01", "3.02", "3.03", "3.04", "3.05", "3.06", "3.07", "3.08", "3.09", "3.10"),
                 launchers=REDUCE, note="torch.sum(x)")
            for n in (256 * MiB, 16 * MiB)]  # p3_bench's --elements; the lessons run 256M


def poisson_shape(rows):
    """phase4 make_generated_matrix("poisson"): an n x n grid, n = round(sqrt(rows))."""
    n = max(1, int(round(math.sqrt(rows))))
    nnz = 5 * n * n - 4 * n  # the 5-point stencil less the missing neighbours on the four edges
    return n * n, nnz


def band_entries(rows, lower, upper):
    """Entries of a rows x rows band (lower below, upper above the diagonal), clipped at the edges."""
    if rows > lower + upper:  # closed form: full rows less the two clipped triangles
        return rows * (lower + upper + 1) - lower * (lower + 1) // 2 - upper * (upper + 1) // 2
    return sum(min(rows - 1, r + upper) - max(0, r - lower) + 1 for r in range(rows))


def banded_shape(rows):
    """phase4 make_generated_matrix("banded"): banded(rows, 8, 8)."""
    return rows, band_entries(rows, 8, 8)


def block_shape(rows):
    """phase4 block_fem(rows / 4, 4): node i couples to i-2..i+2 (clipped), each pair a 4x4 block."""
    nodes = max(1, rows // 4)
    return 4 * nodes, 16 * band_entries(nodes, 2, 2)


def phase4_cases(rows=4 * MiB):
    cases = []
    for gen, shape_of in (("poisson", poisson_shape), ("banded", banded_shape), ("block", block_shape)):
        n_rows, nnz = shape_of(rows)
        cases.append(Case(4, "spmv_csr", "%s:%s" % (gen, format_count(n_rows)), "spmv", {"gen": gen, "rows": rows},
                          spmv_min_bytes(n_rows, n_rows, nnz), 2.0 * nnz,
                          ids=("4.02", "4.03", "4.04", "4.05", "4.06", "4.07", "4.08"), launchers=SPMV,
                          note="torch.mv(A_csr, x), A = torch.sparse_csr_tensor"))
    return cases


# p5_bench's attention shapes (its defaults --seqs 1024,4096,16384 --dims 64,128 --rows 64K), on which
# it runs 5.05 (and 5.08 on Hopper); the lessons' default 16x4096x128 is one of them.
P5_SEQS = (1024, 4096, 16384)
P5_DIMS = (64, 128)
P5_ROWS = 64 * 1024
# SDPA backends timed, each pinned with sdpa_kernel: (op suffix, torch.nn.attention.SDPBackend member).
SDPA_BACKENDS = (("flash", "FLASH_ATTENTION"), ("cudnn", "CUDNN_ATTENTION"))


def p5_heads(seq, sm_count=0, rows=P5_ROWS):
    """phase5_attention/harness/bench.cpp: heads = rows / seq, and at least two 64-row query tiles per SM."""
    tiles = -(-seq // 64)
    return max(1, rows // seq, -(-2 * sm_count // tiles))


def attention_flop(heads, seq_q, seq_k, d, causal):
    """AttentionShape::flop(): Q K^T and P V, 2 flop a multiply-add; causal halves it (the course's count)."""
    full = 4.0 * heads * seq_q * seq_k * d
    return full / 2 if causal else full


def attention_shape(heads, seq, d, causal):
    """The problem as the phase 5 lessons and p5_bench write it: "16x4096x128", "16x4096x128 causal"."""
    return "%dx%dx%d%s" % (heads, seq, d, " causal" if causal else "")


def phase5_cases(sm_count=0):
    """sm_count: the GPU's, which p5_bench's heads rule uses (it binds only past 512 SMs at these seqs)."""
    cases = []
    for seq in P5_SEQS:
        for d in P5_DIMS:
            heads = p5_heads(seq, sm_count)
            for causal in (False, True):
                for name, backend in SDPA_BACKENDS:
                    cases.append(Case(
                        5, "sdpa_" + name, attention_shape(heads, seq, d, causal), "sdpa",
                        {"heads": heads, "seq": seq, "d": d, "causal": causal, "backend": backend},
                        flop=attention_flop(heads, seq, seq, d, causal), ids=("5.05", "5.08"),
                        launchers=("attention_flash_tensor_cores", "attention_flash_hopper"), dtype="bf16",
                        cold=False,
                        note="F.scaled_dot_product_attention(q, k, v, is_causal=%s) on BF16 [1, %d, %d, %d] "
                             "under sdpa_kernel(SDPBackend.%s)" % (causal, heads, seq, d, backend)))
                    # The backward (5.07): dQ, dK, dV of the same call, counted as 2.5x the forward's FLOP.
                    cases.append(Case(
                        5, "sdpa_bwd_" + name, attention_shape(heads, seq, d, causal), "sdpa_bwd",
                        {"heads": heads, "seq": seq, "d": d, "causal": causal, "backend": backend},
                        flop=2.5 * attention_flop(heads, seq, seq, d, causal), ids=("5.07",),
                        launchers=("attention_flash_backward",), dtype="bf16", cold=False,
                        note="torch.autograd.grad of F.scaled_dot_product_attention(q, k, v, is_causal=%s) "
                             "on BF16 [1, %d, %d, %d] with a given dO (the forward outside the timing) under "
                             "sdpa_kernel(SDPBackend.%s)" % (causal, heads, seq, d, backend)))
    return cases


# uniform and powerlaw draw their columns from the course's splitmix64 sampler (phase4_spmv/harness/sparse.cpp); a
# faithful port loops over 64M entries in Python, so they are left out rather than approximated.
SKIPPED = {4: "uniform and powerlaw SpMV skipped: their columns come from the course's splitmix64 sampler "
              "(phase4_spmv/harness/sparse.cpp), too slow to reproduce faithfully in Python"}


def unique(items):
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def cases_for(phases, sm_count=0):
    table = {0: phase0_cases, 1: phase1_cases, 2: phase2_cases, 3: phase3_cases, 4: phase4_cases,
             5: lambda: phase5_cases(sm_count)}
    return [case for phase in phases for case in table[phase]()]


def case_id(case):
    """The lesson ids the row stands beside, or the phase alone for a row beside no lesson."""
    return " ".join(case.ids) or str(case.phase)


def row_phase(row):
    """The phase of a result row, from its id ("2.01 2.03" -> 2, "0" -> 0); -1 when it has none."""
    match = re.match(r"(\d+)", row.get("id") or "")
    return int(match.group(1)) if match else -1


def result_row(case, device, date, peer, times_ms):
    """One result CSV row (a dict over result_columns()) from the repeats' times, rates counted like the
    lessons: GB/s where the case counts bytes, else GFLOP/s."""
    mid, low = median(times_ms), min(times_ms)
    unit = "GB/s" if case.bytes else "GFLOP/s"
    rate = gb_per_s(case.bytes, mid) if case.bytes else gflop_per_s(case.flop, mid)
    return {
        "device": device, "date": date, "gpus": "1", "id": case_id(case), "variant": peer, "launcher": case.op,
        "shape": case.shape, "dtype": case.dtype, "median_ms": "%.6f" % mid, "min_ms": "%.6f" % low,
        "spread_pct": "%.2f" % spread_pct(times_ms),
        "bytes": "%.0f" % case.bytes if case.bytes else "-", "flop": "%.0f" % case.flop if case.flop else "-",
        "rate": "%.3f" % rate, "rate_unit": unit, "peak_pct": "-", "peak_label": "-", "ref_label": "-",
        "ref_value": "-", "ref_style": "-", "cache_resident": "0", "status": "PASS",
        "beside": " ".join(case.launchers) or "-", "note": case.note,
    }


def read_rows(text, columns=None):
    """Rows of an existing result CSV (dicts); [] when the header is not the schema's."""
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or tuple(reader.fieldnames) != (columns or result_columns()):
        return []
    return list(reader)


def merge_rows(existing, fresh, phases, device):
    """Keeps the earlier rows of the phases not measured now, when they are from the same GPU."""
    kept = [r for r in existing if r.get("device") == device and row_phase(r) not in set(phases)]
    return sorted(kept + list(fresh), key=row_phase)


def csv_text(rows):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=result_columns(), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


# ---- the measurements (torch) ---------------------------------------------------------------------------


class Unavailable(Exception):
    """This torch cannot run the case at all (an SDPA backend it does not have): skipped, not failed."""


def context_for(torch, case):
    """What the case's calls run inside, entered once around its warm-up and timed repeats (outside the
    events): SDPA pinned to one backend; nothing for the other ops."""
    if case.kind not in ("sdpa", "sdpa_bwd"):  # the backward's forward (in build) picks its backend too
        return contextlib.nullcontext()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as error:
        raise Unavailable("this torch has no torch.nn.attention.sdpa_kernel (%s)" % error) from error
    backend = getattr(SDPBackend, case.params["backend"], None)
    if backend is None:
        raise Unavailable("this torch has no SDPBackend.%s" % case.params["backend"])
    return sdpa_kernel(backend)



def build(torch, case):
    """Allocates the inputs (outside the timed region) and returns the call to time."""
    F = torch.nn.functional
    p = case.params
    dev = "cuda"

    def rand(*shape, dtype=torch.float32):
        return torch.rand(*shape, device=dev, dtype=torch.float32).mul_(8).sub_(4).to(dtype)

    if case.kind == "copy":
        src, dst = rand(p["n"]), torch.empty(p["n"], device=dev)
        return lambda: dst.copy_(src)
    if case.kind == "add":
        a, b, c = rand(p["n"]), rand(p["n"]), torch.empty(p["n"], device=dev)
        return lambda: torch.add(a, b, out=c)
    if case.kind == "transpose":
        x, out = rand(p["rows"], p["cols"]), torch.empty(p["cols"], p["rows"], device=dev)
        return lambda: out.copy_(x.t())
    if case.kind == "matmul":
        n = p["n"]
        dtype = torch.bfloat16 if p["dtype"] == "bf16" else torch.float32
        a, b, c = rand(n, n, dtype=dtype), rand(n, n, dtype=dtype), torch.empty(n, n, device=dev, dtype=dtype)
        # FP32 rows in cuBLAS's default math (no TF32), as the course's baselines; set here, outside the
        # timed calls, and set again by every matmul case, so no case inherits another's mode.
        torch.backends.cuda.matmul.allow_tf32 = p["dtype"] == "tf32"
        if p["dtype"] == "bf16":  # the BF16 lessons' C = A B^T: both operands K-major
            return lambda: torch.mm(a, b.t(), out=c)
        return lambda: torch.mm(a, b, out=c)
    if case.kind == "relu":
        x = rand(p["n"])
        return lambda: F.relu(x)
    if case.kind == "gelu":
        x = rand(p["n"])
        return lambda: F.gelu(x, approximate="tanh")
    rows, cols = p.get("rows"), p.get("cols")
    if case.kind == "bias_gelu":
        x, b = rand(rows, cols), rand(cols)
        return lambda: F.gelu(x + b, approximate="tanh")
    if case.kind == "rms_norm":
        x, w = rand(rows, cols), torch.rand(cols, device=dev) + 0.5
        if hasattr(F, "rms_norm"):
            return lambda: F.rms_norm(x, (cols,), w, eps=1e-5)
        case.note = "composed: x * rsqrt(mean(x^2) + eps) * w (this torch has no F.rms_norm)"
        return lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w
    if case.kind == "layer_norm":
        x, w, b = rand(rows, cols), torch.rand(cols, device=dev) + 0.5, torch.rand(cols, device=dev) - 0.5
        return lambda: F.layer_norm(x, (cols,), w, b, eps=1e-5)
    if case.kind == "softmax":
        x = rand(rows, cols)
        return lambda: torch.softmax(x, dim=-1)
    if case.kind == "sum":
        x = rand(p["n"])
        return lambda: torch.sum(x)
    if case.kind == "spmv":
        a = spmv_matrix(torch, p["gen"], p["rows"])
        x = rand(a.shape[1])
        return lambda: torch.mv(a, x)
    if case.kind == "sdpa":
        # q, k, v uniform in [-1, 1) as the lessons' (values do not change the speed), BF16, [1, heads, seq, d].
        q, k, v = (torch.rand(1, p["heads"], p["seq"], p["d"], device=dev).mul_(2).sub_(1).to(torch.bfloat16)
                   for _ in range(3))
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"])
    if case.kind == "sdpa_bwd":
        # The forward once, outside the timed calls, under the same backend (autograd keeps its backward);
        # each call is the backward alone: dQ, dK, dV for a dO uniform in [-1, 1).
        q, k, v = (torch.rand(1, p["heads"], p["seq"], p["d"], device=dev).mul_(2).sub_(1).to(torch.bfloat16)
                   .requires_grad_() for _ in range(3))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"])
        grad = torch.rand_like(out).mul_(2).sub_(1)
        return lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
    raise ValueError("unknown case kind " + case.kind)


def spmv_matrix(torch, gen, rows):
    """The generator's sparsity pattern (values do not change the speed) as a CUDA CSR tensor."""
    dev = "cuda"
    if gen == "poisson":
        n = max(1, int(round(math.sqrt(rows))))
        r = torch.arange(n * n, device=dev)
        gy, gx = r // n, r % n
        pairs = [(r, r), (r[gy > 0], r[gy > 0] - n), (r[gx > 0], r[gx > 0] - 1),
                 (r[gx + 1 < n], r[gx + 1 < n] + 1), (r[gy + 1 < n], r[gy + 1 < n] + n)]
        size = n * n
    elif gen == "banded":
        r = torch.arange(rows, device=dev)
        pairs = []
        for d in range(-8, 9):
            keep = (r + d >= 0) & (r + d < rows)
            pairs.append((r[keep], r[keep] + d))
        size = rows
    elif gen == "block":
        nodes = max(1, rows // 4)
        i = torch.arange(nodes, device=dev)
        pairs = []
        for d in range(-2, 3):
            keep = (i + d >= 0) & (i + d < nodes)
            for dof in range(4):
                for e in range(4):
                    pairs.append((4 * i[keep] + dof, 4 * (i[keep] + d) + e))
        size = 4 * nodes
    else:
        raise ValueError("no generator " + gen)
    row = torch.cat([p[0] for p in pairs])
    col = torch.cat([p[1] for p in pairs])
    values = torch.rand(row.numel(), device=dev) * 2 - 1
    csr = torch.sparse_coo_tensor(torch.stack([row, col]), values, (size, size)).coalesce().to_sparse_csr()
    # 32-bit indices, as the course's CSR (and the bytes spmv_min_bytes counts): int64 would read more.
    return torch.sparse_csr_tensor(csr.crow_indices().int(), csr.col_indices().int(), csr.values(), (size, size))


def time_case(torch, case, repeat, flush):
    """Events around each repeat; the flush buffer read before each cold repeat, outside the events (read,
    not written, as common/l2_flush.h explains: a write leaves dirty lines whose write-back is timed)."""
    with context_for(torch, case):
        call = build(torch, case)
        for _ in range(WARMUP):
            call()
        torch.cuda.synchronize()
        events = []
        for _ in range(repeat):
            if case.cold:
                flush.sum()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in events]


def measure(args):
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - a missing module or a broken install alike: one line
        print("peer_pytorch.py: torch is not importable here (%s); nothing measured" % error)
        return EXIT_NO_TORCH
    if not torch.cuda.is_available():
        print("peer_pytorch.py: torch %s sees no CUDA GPU; nothing measured" % torch.__version__)
        return EXIT_NO_TORCH
    props = torch.cuda.get_device_properties(0)
    device = props.name
    l2 = getattr(props, "L2_cache_size", 0)
    flush = torch.zeros(flush_bytes(l2) // 4, device="cuda")
    peer = "pytorch " + torch.__version__.split("+")[0]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    print("%s, L2 %d MiB (flush %d MiB), %s" % (device, l2 // MiB, flush.numel() * 4 // MiB, peer))
    fresh, status = [], EXIT_OK
    for case in cases_for(args.phase, props.multi_processor_count):
        try:
            times = time_case(torch, case, args.repeat, flush)
        except Unavailable as why:
            print("%-10s %-18s skipped: %s" % (case.op, case.shape, why))
            continue
        except (RuntimeError, ValueError) as error:  # out of memory, an op this torch lacks, no usable backend
            print("%-10s %-18s failed: %s" % (case.op, case.shape, str(error).splitlines()[0]))
            status = EXIT_FAILED
            torch.cuda.empty_cache()
            continue
        row = result_row(case, device, date, peer, times)
        fresh.append(row)
        print("%-10s %-18s %-5s %10s ms %10s GB/s %10s GFLOP/s" % (
            case.op, case.shape, case.dtype, row["median_ms"], row["rate"] if case.bytes else "-",
            "-" if case.bytes else row["rate"]))
        torch.cuda.empty_cache()  # the next shape starts from a clean pool, as a fresh process would
    for phase in args.phase:
        if phase in SKIPPED:
            print("note: " + SKIPPED[phase])
    existing = []
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            existing = read_rows(f.read())
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(csv_text(merge_rows(existing, fresh, args.phase, device)))
    print("CSV written to " + args.out)
    return status


def list_cases(args):
    for case in cases_for(args.phase):
        print("phase %d  %-10s %-18s %-5s %-4s beside %s" % (case.phase, case.op, case.shape, case.dtype,
                                                          "cold" if case.cold else "warm",
                                                          " ".join(case.ids) or "(no lesson)"))
    for phase in args.phase:
        if phase in SKIPPED:
            print("note: " + SKIPPED[phase])
    return EXIT_OK


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return list_cases(args) if args.list else measure(args)


if __name__ == "__main__":
    sys.exit(main())
