// SPDX-License-Identifier: MIT
// The PyTorch peer CSV: read as tools/peer_pytorch.py writes it (Python's csv quoting), found for the
// right GPU and phase, matched to a lesson by launcher and problem, scored in the lesson's units.
#include "tools/workbook/peer_csv.h"

#include <cmath>
#include <cstdlib>

#include "common/catch.h"

namespace {

// Two GPUs, phases 1 and 2; the phase 2 note holds a comma (quoted) and one device name a comma too.
const char* const kPeerCsv =
    "device,date,gpus,id,variant,launcher,shape,dtype,median_ms,min_ms,spread_pct,bytes,flop,rate,rate_unit,peak_pct,"
    "peak_label,ref_label,ref_value,ref_style,cache_resident,status,beside,note\n"
    "NVIDIA H100 80GB HBM3,2025-01-02,1,2.01 2.03,pytorch 2.5.1,relu,n=64M,fp32,0.182000,0.181000,-,536870912,-,"
    "2949.800,GB/s,-,-,-,-,-,0,PASS,relu relu_float4,\"F.relu(x), eager\"\n"
    "NVIDIA H100 80GB HBM3,2025-01-02,1,1.01 1.08,pytorch 2.5.1,matmul,M=N=K=4096,fp32,2.800000,2.790000,-,-,"
    "137438953472,49085.300,GFLOP/s,-,-,-,-,-,0,PASS,matmul_naive matmul_cublas,torch.mm\n"
    "NVIDIA H100 80GB HBM3,2025-01-02,1,2.01,solution,relu,n=64M,fp32,0.190000,0.189000,0.10,536870912,-,2825.600,"
    "GB/s,84.00,HBM peak,memcpy,95.0000,percent,0,PASS,-,\n"
    "\"GPU, with comma\",2025-01-03,1,2.01,pytorch 2.4.0,relu,n=64M,fp32,0.5,0.5,-,536870912,-,1073.700,GB/s,-,-,-,"
    "-,-,0,PASS,relu,\n";

wbcli::LessonRow lesson(const std::string& name, const std::string& problem, double rate, const std::string& unit,
                        double peak_pct, const std::string& style, double ref_value) {
  wbcli::LessonRow row;
  row.id = "2.01";
  row.name = name;
  row.problem = problem;
  row.rate = rate;
  row.rate_unit = unit;
  row.peak_pct = peak_pct;
  row.peak_label = "HBM peak";
  row.ref_style = style;
  row.ref_value = ref_value;
  row.ref_label = "memcpy";
  row.device = "NVIDIA H100 80GB HBM3";
  row.pass = true;
  return row;
}

bool near(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::fabs(b) + 1e-12;
}

}  // namespace

TEST_CASE("split_csv_fields keeps quoted commas and doubled quotes", "[host][workbook]") {
  const std::vector<std::string> f = wb::split_csv_fields("a,\"b, c\",\"say \"\"hi\"\"\",,e\r");
  REQUIRE(f.size() == 5);
  CHECK(f[1] == "b, c");
  CHECK(f[2] == "say \"hi\"");
  CHECK(f[3].empty());
  CHECK(f[4] == "e");
}

TEST_CASE("parse_peer_csv reads the peer's rows of a result CSV by column name", "[host][workbook]") {
  std::string error;
  const std::vector<wbcli::PeerRow> rows = wbcli::parse_peer_csv(kPeerCsv, &error);
  CHECK(error.empty());
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].phase == 2);
  CHECK(rows[0].peer == "pytorch 2.5.1");
  CHECK(rows[0].launchers == std::vector<std::string>{"relu", "relu_float4"});
  CHECK(rows[0].note == "F.relu(x), eager");
  CHECK(rows[0].rate("GB/s") == 2949.8);
  CHECK(rows[0].rate("GFLOP/s") == 0);  // not measured in that unit
  CHECK(rows[1].rate("GFLOP/s") == 49085.3);
  CHECK(rows[2].device == "GPU, with comma");

  error.clear();
  CHECK(wbcli::parse_peer_csv("", &error).empty());
  CHECK(!error.empty());
  error.clear();
  CHECK(wbcli::parse_peer_csv("device,date,kernel\nx,y,z\n", &error).empty());
  CHECK(error.find("no launcher column") != std::string::npos);
}

TEST_CASE("lookup_peer: this GPU's rows of this phase, or one line saying how to make them", "[host][workbook]") {
  const std::string path = "/b/workbook-state/bench/peer_pytorch.csv";
  const wbcli::PeerLookup none = wbcli::lookup_peer(std::nullopt, path, "NVIDIA H100 80GB HBM3", 2);
  CHECK(none.rows.empty());
  CHECK(none.message.find("python3 tools/peer_pytorch.py --phase 2 --out " + path) != std::string::npos);
  CHECK(none.message.find('\n') == std::string::npos);

  const wbcli::PeerLookup h100 = wbcli::lookup_peer(std::string(kPeerCsv), path, "NVIDIA H100 80GB HBM3", 2);
  REQUIRE(h100.rows.size() == 1);
  CHECK(h100.rows[0].op == "relu");
  CHECK(h100.message.find("pytorch 2.5.1") != std::string::npos);

  const wbcli::PeerLookup other = wbcli::lookup_peer(std::string(kPeerCsv), path, "NVIDIA A100-SXM4-80GB", 2);
  CHECK(other.rows.empty());
  CHECK(other.message.find("no phase 2 rows for NVIDIA A100-SXM4-80GB") != std::string::npos);
  CHECK(other.message.find("--phase 2 --out " + path) != std::string::npos);

  const wbcli::PeerLookup broken = wbcli::lookup_peer(std::string("id,kernel\n"), path, "NVIDIA H100 80GB HBM3", 2);
  CHECK(broken.rows.empty());
  CHECK(broken.message.find("left out") != std::string::npos);
}

TEST_CASE("peer_csv_path: $WORKBOOK_PEER_CSV, else beside the bench output", "[host][workbook]") {
  CHECK(wbcli::default_peer_csv_path("/b") == "/b/workbook-state/bench/peer_pytorch.csv");
  ::setenv(wbcli::kPeerCsvEnv, "/data/h100_peer.csv", 1);
  CHECK(wbcli::peer_csv_path("/b") == "/data/h100_peer.csv");
  ::unsetenv(wbcli::kPeerCsvEnv);
  CHECK(wbcli::peer_csv_path("/b") == "/b/workbook-state/bench/peer_pytorch.csv");
}

TEST_CASE("a peer row matches a lesson by GPU, launcher and problem, in the lesson's units", "[host][workbook]") {
  std::string error;
  const std::vector<wbcli::PeerRow> rows = wbcli::parse_peer_csv(kPeerCsv, &error);

  // relu_float4 at 2700 GB/s is 90% of memcpy (memcpy: 3000 GB/s): PyTorch's 2949.8 GB/s is 98.3%.
  const wbcli::LessonRow relu = lesson("relu_float4", "n=64M", 2700, "GB/s", 81, "percent", 90);
  const wbcli::PeerRow* match = wbcli::find_peer_row(rows, relu);
  REQUIRE(match != nullptr);
  CHECK(match->op == "relu");
  CHECK(near(*wbcli::peer_score(*match, relu), 90 * 2949.8 / 2700));

  // A lesson scored in % of peak (a speedup reference) gets the peer in % of peak.
  const wbcli::LessonRow peak = lesson("relu", "n=64M", 2000, "GB/s", 60, "speedup", 1.9);
  CHECK(near(*wbcli::peer_score(*wbcli::find_peer_row(rows, peak), peak), 60 * 2949.8 / 2000));

  CHECK(wbcli::find_peer_row(rows, lesson("relu", "n=16M", 2700, "GB/s", 81, "percent", 90)) == nullptr);
  CHECK(wbcli::find_peer_row(rows, lesson("gelu_tanh", "n=64M", 2700, "GB/s", 81, "percent", 90)) == nullptr);
  wbcli::LessonRow elsewhere = relu;
  elsewhere.device = "NVIDIA A100-SXM4-80GB";
  CHECK(wbcli::find_peer_row(rows, elsewhere) == nullptr);

  // A peer with no rate in the lesson's unit gives no bar.
  const wbcli::LessonRow in_flops = lesson("relu", "n=64M", 10, "GFLOP/s", 1, "percent", 50);
  CHECK(!wbcli::peer_score(*wbcli::find_peer_row(rows, in_flops), in_flops));
}

TEST_CASE("phase 5's peer rows (SDPA, BF16) match 5.05's lesson by problem, the mask included", "[host][workbook]") {
  // As tools/peer_pytorch.py --phase 5 writes them: the flash backend first, then cuDNN's, per shape.
  const std::string csv =
      std::string(
          "device,date,gpus,id,variant,launcher,shape,dtype,median_ms,min_ms,spread_pct,bytes,flop,rate,rate_unit,peak_"
          "pct,"
          "peak_label,ref_label,ref_value,ref_style,cache_resident,status,beside,note\n") +
      "NVIDIA H100 80GB HBM3,2025-01-02,1,5.05,pytorch 2.5.1,sdpa_flash,16x4096x128,bf16,0.274880,0.27,-,-,"
      "137438953472,500000.000,GFLOP/s,-,-,-,-,-,0,PASS,attention_flash_tensor_cores,"
      "\"sdpa_kernel(SDPBackend.FLASH_ATTENTION), BF16\"\n"
      "NVIDIA H100 80GB HBM3,2025-01-02,1,5.05,pytorch 2.5.1,sdpa_cudnn,16x4096x128,bf16,0.22,0.22,-,-,137438953472,"
      "624722.500,GFLOP/s,-,-,-,-,-,0,PASS,attention_flash_tensor_cores,cudnn\n"
      "NVIDIA H100 80GB HBM3,2025-01-02,1,5.05,pytorch 2.5.1,sdpa_flash,16x4096x128 causal,bf16,0.2,0.2,-,-,"
      "68719476736,343597.400,GFLOP/s,-,-,-,-,-,0,PASS,attention_flash_tensor_cores,flash causal\n";
  const wbcli::PeerLookup found = wbcli::lookup_peer(csv, "/b/peer.csv", "NVIDIA H100 80GB HBM3", 5);
  REQUIRE(found.rows.size() == 3);
  CHECK(found.message.find("3 rows for phase 5") != std::string::npos);

  // 5.05's line: 400 TFLOP/s, 40% of the BF16 peak, 3.2x of 5.02 (a speedup: scored in % of peak).
  wbcli::LessonRow lesson5 =
      lesson("attention_flash_tensor_cores", "16x4096x128", 400000, "GFLOP/s", 40, "speedup", 3.2);
  lesson5.id = "5.05";
  lesson5.peak_label = "BF16 peak";
  lesson5.ref_label = "of 5.02";
  const wbcli::PeerRow* flash = wbcli::find_peer_row(found.rows, lesson5);
  REQUIRE(flash != nullptr);
  CHECK(flash->op == "sdpa_flash");  // the first listed: the backend of 5.05's bar
  CHECK(near(*wbcli::peer_score(*flash, lesson5), 40 * 500000.0 / 400000));

  wbcli::LessonRow causal = lesson5;
  causal.problem = "16x4096x128 causal";
  const wbcli::PeerRow* masked = wbcli::find_peer_row(found.rows, causal);
  REQUIRE(masked != nullptr);
  CHECK(masked->shape == "16x4096x128 causal");
  wbcli::LessonRow fp32 = lesson5;
  fp32.name = "attention_flash_causal";  // the FP32 lessons list no peer
  CHECK(wbcli::find_peer_row(found.rows, fp32) == nullptr);
}
