#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host test of tools/peer_pytorch.py with torch absent (CTest host.peer-pytorch).

torch is blocked before the import (sys.modules["torch"] = None makes `import torch` raise), so the
test proves the pure helpers work and the script exits 77 even on a machine where torch is installed.
"""

import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.modules["torch"] = None  # noqa: the script must never need torch to be imported or tested
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_pytorch as peer  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_pytorch.py")


def usage_exit(argv):
    """The exit code and stderr of parse_args on bad input."""
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        try:
            peer.parse_args(argv)
        except SystemExit as e:
            return e.code, err.getvalue()
    return 0, ""


class Arguments(unittest.TestCase):
    def test_defaults_measure_every_phase(self):
        args = peer.parse_args([])
        self.assertEqual(args.phase, [0, 1, 2, 3, 4, 5])
        self.assertEqual(args.repeat, 10)
        self.assertEqual(args.out, "peer_pytorch.csv")

    def test_phase_repeats_and_dedupes(self):
        self.assertEqual(peer.parse_args(["--phase", "3", "--phase", "1", "--phase", "3"]).phase, [1, 3])

    def test_bad_input_is_a_usage_error(self):
        for argv in (["--phase", "6"], ["--phase", "x"], ["--repeat", "0"], ["--repeat", "1001"], ["--bogus"]):
            code, err = usage_exit(argv)
            self.assertEqual(code, 2, argv)
            self.assertIn("usage:", err)


class Sizes(unittest.TestCase):
    def test_format_count_matches_the_lessons(self):
        # common/report.cpp format_count on the same inputs.
        self.assertEqual(peer.format_count(64 << 20), "64M")
        self.assertEqual(peer.format_count(256 << 20), "256M")
        self.assertEqual(peer.format_count(4 << 20), "4M")
        self.assertEqual(peer.format_count(1536), "1.5K")
        self.assertEqual(peer.format_count(1000), "1000")
        self.assertEqual(peer.format_count(5000), "5000")

    def test_rates_count_like_the_lessons(self):
        self.assertAlmostEqual(peer.gb_per_s(8 * (64 << 20), 0.2), 2684.35456)
        self.assertAlmostEqual(peer.gflop_per_s(2.0 * 4096 ** 3, 2.69), 51092.5, delta=0.1)
        self.assertEqual(peer.gb_per_s(1e9, 0), 0.0)

    def test_median_spread_and_flush(self):
        self.assertEqual(peer.median([3, 1, 2]), 2)
        self.assertEqual(peer.median([4, 1, 2, 3]), 2.5)
        # common/timer.cpp's summarize: quartiles 1.75 and 3.25 of [1, 2, 3, 4], half their gap over 2.5.
        self.assertAlmostEqual(peer.spread_pct([4, 1, 2, 3]), 100.0 * 0.5 * 1.5 / 2.5)
        self.assertEqual(peer.flush_bytes(50 << 20), 100 << 20)  # the H100's 50 MB L2: twice
        self.assertEqual(peer.flush_bytes(4 << 20), 64 << 20)
        self.assertEqual(peer.flush_bytes(0), 256 << 20)

    def test_sparse_shapes_match_a_direct_count(self):
        def band_loop(rows, lower, upper):
            return sum(min(rows - 1, r + upper) - max(0, r - lower) + 1 for r in range(rows))
        for rows in (1, 5, 17, 18, 100):
            self.assertEqual(peer.band_entries(rows, 8, 8), band_loop(rows, 8, 8), rows)
        self.assertEqual(peer.poisson_shape(4 << 20), (4 << 20, 5 * (4 << 20) - 4 * 2048))
        self.assertEqual(peer.poisson_shape(9), (9, 33))  # 3x3 grid: 9 centres + 24 neighbours
        rows, nnz = peer.block_shape(4 << 20)
        self.assertEqual(rows, 4 << 20)
        self.assertEqual(nnz, 16 * (5 * (1 << 20) - 6))  # 5 neighbours a node, 6 clipped at the ends
        self.assertEqual(peer.spmv_min_bytes(10, 10, 30), 8 * 30 + 4 * 11 + 40 + 40)


class Cases(unittest.TestCase):
    def shapes(self, phase, op):
        return [c.shape for c in peer.cases_for([phase]) if c.op == op]

    def test_shapes_are_the_lessons_and_benchmarks(self):
        self.assertEqual(self.shapes(0, "add"), ["n=64M"])
        self.assertEqual(self.shapes(1, "matmul"), [s for n in (1024, 2048, 4096, 8192) for s in ["M=N=K=%d" % n] * 3])
        self.assertEqual(self.shapes(2, "relu"), ["n=16M", "n=64M"])
        self.assertEqual(self.shapes(2, "softmax"), ["65536x1024", "16384x4096", "4096x16384"])
        self.assertEqual(sorted(self.shapes(2, "rms_norm")),
                         sorted(["262144x256", "65536x1024", "16384x4096", "2048x32768", "4096x16384"]))
        self.assertEqual(sorted(self.shapes(2, "layer_norm")), sorted(self.shapes(2, "rms_norm")))
        self.assertEqual(self.shapes(3, "sum"), ["n=256M", "n=16M"])
        self.assertEqual(self.shapes(4, "spmv_csr"), ["poisson:4M", "banded:4M", "block:4M"])

    def test_matmul_precisions_and_warm_timing(self):
        ms = [c for c in peer.cases_for([1]) if c.shape == "M=N=K=4096"]
        self.assertEqual([c.dtype for c in ms], ["fp32", "tf32", "bf16"])
        self.assertTrue(all(not c.cold and c.flop == 2.0 * 4096 ** 3 for c in ms))
        self.assertIn("matmul_warptiling", ms[0].launchers)
        self.assertEqual(ms[1].launchers, ("matmul_tensor_core_tf32",))
        self.assertEqual(ms[2].ids, ("1.10", "1.11", "1.12", "1.13", "1.14"))
        self.assertIn("matmul_warp_specialized_bf16", ms[2].launchers)

    def test_memory_bound_cases_time_cold_and_count_bytes(self):
        for case in peer.cases_for([0, 2, 3, 4]):
            self.assertTrue(case.cold, case)
            self.assertGreater(case.bytes, 0, case)
        (relu64,) = [c for c in peer.cases_for([2]) if c.op == "relu" and c.shape == "n=64M"]
        self.assertEqual(relu64.bytes, 8.0 * (64 << 20))
        (bias,) = [c for c in peer.cases_for([2]) if c.op == "bias_gelu" and c.shape == "16384x4096"]
        self.assertEqual(bias.bytes, 8.0 * 16384 * 4096 + 4.0 * 4096)
        # LayerNorm as 2.10's lesson counts it: x and y, gamma and beta, mean and rstd.
        (layer,) = [c for c in peer.cases_for([2]) if c.op == "layer_norm" and c.shape == "16384x4096"]
        self.assertEqual(layer.bytes, 8.0 * 16384 * 4096 + 8.0 * 4096 + 8.0 * 16384)
        self.assertEqual((layer.ids, layer.launchers), (("2.10",), ("layernorm_forward",)))

    def test_attention_shapes_are_p5_benchs(self):
        # p5_bench's 5.05 rows: seq 1024, 4096, 16384 (heads = 64K rows / seq), d 64 and 128, causal or not.
        flash = [c for c in peer.cases_for([5]) if c.op == "sdpa_flash"]
        self.assertEqual([c.shape for c in flash],
                         ["%s%s" % (s, m) for s in ("64x1024x64", "64x1024x128", "16x4096x64", "16x4096x128",
                                                     "4x16384x64", "4x16384x128") for m in ("", " causal")])
        self.assertIn("16x4096x128", [c.shape for c in flash])  # the lesson's default shape: bench finds it
        cudnn = [c for c in peer.cases_for([5]) if c.op == "sdpa_cudnn"]
        self.assertEqual([c.shape for c in cudnn], [c.shape for c in flash])
        self.assertEqual([c.params["backend"] for c in flash + cudnn],
                         ["FLASH_ATTENTION"] * 12 + ["CUDNN_ATTENTION"] * 12)

    def test_attention_counts_flop_like_the_lessons_and_times_warm(self):
        cases = peer.cases_for([5])
        (full,) = [c for c in cases if c.op == "sdpa_flash" and c.shape == "16x4096x128"]
        (causal,) = [c for c in cases if c.op == "sdpa_flash" and c.shape == "16x4096x128 causal"]
        self.assertEqual(full.flop, 4.0 * 16 * 4096 * 4096 * 128)  # AttentionShape::flop()
        self.assertEqual(causal.flop, full.flop / 2)
        self.assertEqual(full.params, {"heads": 16, "seq": 4096, "d": 128, "causal": False,
                                       "backend": "FLASH_ATTENTION"})
        for case in cases:
            self.assertFalse(case.cold, case)  # compute-bound, as the matmuls
            self.assertEqual(case.dtype, "bf16")
            self.assertEqual(case.bytes, 0.0)
            backward = case.op.startswith("sdpa_bwd_")
            self.assertEqual(case.ids, ("5.07",) if backward else ("5.05", "5.08"))
            self.assertEqual(case.launchers,
                             ("attention_flash_backward",) if backward
                             else ("attention_flash_tensor_cores", "attention_flash_hopper"))
        (bwd,) = [c for c in cases if c.op == "sdpa_bwd_flash" and c.shape == "16x4096x128"]
        self.assertEqual(bwd.flop, 2.5 * full.flop)  # attention_backward_flop: the five products
        row = peer.result_row(full, "NVIDIA H100 80GB HBM3", "2025-01-02", "pytorch 2.5.1", [0.25, 0.24, 0.26])
        self.assertEqual(row["rate"], "%.3f" % (full.flop / 0.25e6))
        self.assertEqual(row["rate_unit"], "GFLOP/s")
        self.assertEqual(row["bytes"], "-")

    def test_attention_heads_follow_p5_bench(self):
        # harness/bench.cpp: max(1, rows / seq, ceil(2 SMs / ceil(seq / 64))).
        self.assertEqual(peer.p5_heads(1024), 64)
        self.assertEqual(peer.p5_heads(16384, 132), 4)  # an H100's SMs do not bind at these seqs
        self.assertEqual(peer.p5_heads(16384, 1000), 8)  # 2 x 1000 SMs / 256 query tiles, rounded up
        self.assertEqual(peer.p5_heads(100000), 1)
        self.assertEqual([c.shape for c in peer.cases_for([5], 1000)][-1], "8x16384x128 causal")

    def test_a_torch_without_sdpa_kernel_skips_attention_instead_of_failing(self):
        # torch is blocked here, so `from torch.nn.attention import ...` fails as on a torch older than 2.3.
        (case,) = [c for c in peer.cases_for([5]) if c.op == "sdpa_cudnn" and c.shape == "64x1024x64"]
        with self.assertRaises(peer.Unavailable):
            peer.context_for(None, case)
        # The backward's forward runs under the pinned backend too, or both rows time the default one.
        (bwd,) = [c for c in peer.cases_for([5]) if c.op == "sdpa_bwd_flash" and c.shape == "64x1024x64"]
        with self.assertRaises(peer.Unavailable):
            peer.context_for(None, bwd)
        (add,) = peer.cases_for([0])[1:2]
        with peer.context_for(None, add):  # other ops run in no context at all
            pass

    def test_phase4_says_what_it_skips(self):
        self.assertIn("uniform and powerlaw", peer.SKIPPED[4])


class Csv(unittest.TestCase):
    def row(self, phase, device="NVIDIA H100 80GB HBM3", op="relu"):
        case = peer.Case(phase, op, "n=64M", "relu", {}, 8.0 * (64 << 20), ids=("%d.01" % phase, "%d.03" % phase),
                         launchers=("relu", "relu_float4"), note="F.relu(x), eager")
        return peer.result_row(case, device, "2025-01-02", "pytorch 2.5.1", [0.2, 0.19, 0.21])

    def test_columns_come_from_the_one_schema(self):
        columns = peer.result_columns()
        self.assertEqual(columns[:7], ("device", "date", "gpus", "id", "variant", "launcher", "shape"))
        self.assertIn("beside", columns)
        self.assertEqual(len(columns), len(set(columns)))
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "result_csv.h")
            with open(bad, "w") as f:
                f.write("no markers here\n")
            with self.assertRaises(ValueError):
                peer.result_columns(bad)

    def test_row_columns_and_rates(self):
        r = self.row(2)
        self.assertEqual(tuple(r), peer.result_columns())
        self.assertEqual(r["median_ms"], "0.200000")
        self.assertEqual(r["min_ms"], "0.190000")
        self.assertEqual(r["spread_pct"], "2.50")
        self.assertEqual(r["rate"], "2684.355")
        self.assertEqual(r["rate_unit"], "GB/s")
        self.assertEqual(r["flop"], "-")
        self.assertEqual(r["id"], "2.01 2.03")
        self.assertEqual(r["variant"], "pytorch 2.5.1")
        self.assertEqual(r["launcher"], "relu")
        self.assertEqual(r["beside"], "relu relu_float4")
        self.assertEqual(peer.row_phase(r), 2)
        # A row beside no lesson carries its phase alone as its id.
        copy = peer.phase0_cases()[0]
        self.assertEqual(peer.case_id(copy), "0")

    def test_csv_round_trip_quotes_commas(self):
        text = peer.csv_text([self.row(2, device="GPU, with comma")])
        self.assertTrue(text.startswith(",".join(peer.result_columns()) + "\n"))
        self.assertIn('"GPU, with comma"', text)
        self.assertIn('"F.relu(x), eager"', text)
        back = peer.read_rows(text)
        self.assertEqual(back[0]["device"], "GPU, with comma")
        self.assertEqual(peer.read_rows("some,other,header\n1,2,3\n"), [])

    def test_merge_keeps_other_phases_of_the_same_gpu(self):
        old = [self.row(0), self.row(2), self.row(3, device="other GPU")]
        merged = peer.merge_rows(old, [self.row(2, op="gelu_tanh")], [2], "NVIDIA H100 80GB HBM3")
        self.assertEqual([(peer.row_phase(r), r["launcher"]) for r in merged], [(0, "relu"), (2, "gelu_tanh")])


class Script(unittest.TestCase):
    def run_script(self, *argv):
        env = dict(os.environ, PYTHONPATH=os.path.dirname(SCRIPT))
        # A torch that cannot be imported, whether or not one is installed: a module named torch that raises.
        with tempfile.TemporaryDirectory() as fake:
            with open(os.path.join(fake, "torch.py"), "w") as f:
                f.write("raise ImportError('blocked by the test')\n")
            env["PYTHONPATH"] = fake
            return subprocess.run([sys.executable, SCRIPT] + list(argv), env=env, capture_output=True, text=True)

    def test_without_torch_one_line_and_77(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "peer.csv")
            done = self.run_script("--phase", "2", "--out", out)
            self.assertEqual(done.returncode, 77)
            self.assertEqual(len(done.stdout.strip().splitlines()), 1)
            self.assertIn("torch is not importable", done.stdout)
            self.assertFalse(os.path.exists(out))

    def test_bad_arguments_exit_2(self):
        done = self.run_script("--repeat", "x")
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage:", done.stderr)

    def test_list_needs_no_torch(self):
        done = self.run_script("--list", "--phase", "4")
        self.assertEqual(done.returncode, 0)
        self.assertIn("poisson:4M", done.stdout)
        self.assertIn("note: uniform and powerlaw", done.stdout)
        done = self.run_script("--list", "--phase", "5")
        self.assertEqual(done.returncode, 0)
        self.assertIn("sdpa_flash 16x4096x128 ", done.stdout)
        self.assertIn("sdpa_cudnn 4x16384x128 causal", done.stdout)
        self.assertIn("sdpa_bwd_flash 16x4096x128 ", done.stdout)
        self.assertEqual(len(done.stdout.strip().splitlines()), 48)


if __name__ == "__main__":
    unittest.main()
