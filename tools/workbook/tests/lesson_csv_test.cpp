// SPDX-License-Identifier: MIT
// Lesson --csv rows and phase benchmark CSVs, in the one schema of common/result_csv.h.
#include "tools/workbook/lesson_csv.h"

#include "common/catch.h"

namespace {

// common/result_csv.h's header, as every writer prints it.
const std::string kHeader =
    "device,date,gpus,id,variant,launcher,shape,dtype,median_ms,min_ms,spread_pct,bytes,flop,rate,rate_unit,peak_pct,"
    "peak_label,ref_label,ref_value,ref_style,cache_resident,status,beside,note\n";

}  // namespace

TEST_CASE("the header the tests use is the schema's", "[host][workbook]") {
  CHECK(kHeader == wb::result_csv_header() + "\n");
}

TEST_CASE("lesson CSV rows give the speed and the same-run reference", "[host][workbook]") {
  const std::string output =
      kHeader +
      "NVIDIA H100 80GB HBM3,2026-11-26,1,0.02,solution,vector_add,n=64M,-,0.296000,0.294000,0.40,-,-,2718.000,GB/s,"
      "81.00,HBM peak,memcpy,91.0000,percent,0,PASS,-,\n"
      "some message the lesson printed\n"
      "NVIDIA H100 80GB HBM3,2026-11-26,1,0.02,solution,vector_add_float4,n=64M,-,0.278000,0.277000,0.30,-,-,2900.000,"
      "GB/s,86.00,HBM peak,memcpy,97.0000,percent,0,PASS,-,\n"
      "\"Some, GPU\",2026-11-26,1,0.09,solution,pipeline_streams,n=64M,-,6.250000,6.200000,0.50,-,-,-,GB/s,-,"
      "of overlap bound,serial,-,speedup,0,FAIL,-,pipeline_streams: output untouched\n";
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(output);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].name == "vector_add_float4");
  CHECK(rows[1].rate == 2900.0);
  CHECK(rows[1].score() == 97.0);
  CHECK(rows[1].score_label() == "% of memcpy");
  CHECK(rows[1].summary() == "vector_add_float4 2900 GB/s, 86% HBM peak, 97% of memcpy");
  CHECK(rows[0].pass);
  CHECK_FALSE(rows[2].pass);
  CHECK(rows[2].device == "Some, GPU");
  CHECK(rows[2].ref_style == "speedup");
  CHECK(wbcli::parse_lesson_csv("SKIPPED: no CUDA GPU visible\n").empty());
}

TEST_CASE("a failed lesson row has dashes for its rate and percentages and still parses", "[host][workbook]") {
  // common/report.cpp's result_row for a FAIL line: same columns, no numbers that mean nothing.
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(
      kHeader +
      "NVIDIA H100,2026-11-26,1,0.01,learner,record_thread_indices,n=64M,-,0.003410,0.003300,0.50,-,-,-,GB/s,-,HBM "
      "peak,memcpy,-,percent,0,FAIL,-,record_thread_indices: output untouched\n");
  REQUIRE(rows.size() == 1);
  CHECK_FALSE(rows[0].pass);
  CHECK(rows[0].rate == 0.0);
  CHECK(rows[0].peak_pct == 0.0);
  CHECK(rows[0].score() == 0.0);
  CHECK(rows[0].device == "NVIDIA H100");
}

TEST_CASE("a passing row whose peak is unknown (\"-\") says so and has no score in % of a peak", "[host][workbook]") {
  // common/report.cpp's result_row on a GPU the peak tables lack (set_peak with 0).
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(
      kHeader +
      "NVIDIA Future GPU,2026-11-26,1,5.05,solution,flash_attention_bf16,16x4096x128,-,1.000000,0.990000,0.50,-,-,"
      "400000.000,GFLOP/s,-,BF16 peak,of 5.02,1.2000,speedup,0,PASS,-,\n"
      "NVIDIA Future GPU,2026-11-26,1,1.13,solution,matmul_warp_specialized_bf16,M=N=K=4096,-,0.200000,0.190000,0.50,"
      "-,-,687194.767,GFLOP/s,-,BF16 peak,cuBLAS BF16 best,101.0000,percent,0,PASS,-,\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].pass);
  CHECK_FALSE(rows[0].peak_known);
  CHECK_FALSE(rows[0].has_score());  // a speed-up row scores in % of its peak: unknown here
  CHECK(rows[0].summary() == "flash_attention_bf16 400000 GFLOP/s, BF16 peak unknown, 1.2x of 5.02");
  CHECK(rows[1].has_score());  // % of cuBLAS needs no peak
  CHECK(rows[1].score() == 101.0);
}

TEST_CASE("benchmark rows are read by column name, with their SKIP and library rows", "[host][workbook]") {
  std::string error;
  const std::vector<wb::ResultRow> p4 = wb::parse_result_csv(
      kHeader +
          "H100,2026-11-25,1,4.04,solution,spmv_ell,powerlaw:4M,fp32,-,-,-,-,-,-,GB/s,-,HBM peak,-,-,-,0,SKIP,-,"
          "\"ELL padding: 9.1 GiB, more than the GPU has\"\n"
          "H100,2026-11-25,1,-,library,cusparse_csr,powerlaw:4M,fp32,0.290000,0.289000,0.20,288000000,56000000,993.103,"
          "GB/s,29.60,HBM peak,cuSPARSE CSR,100.0000,percent,0,PASS,-,\n"
          "H100,2026-11-25,1,4.02,solution,spmv_csr_scalar,powerlaw:4M,fp32,4.100000,4.000000,0.20,288000000,56000000,"
          "70.244,GB/s,2.10,HBM peak,cuSPARSE CSR,7.0732,percent,0,FAIL,-,\n",
      &error);
  REQUIRE(error.empty());
  REQUIRE(p4.size() == 3);
  CHECK(p4[0].status == "SKIP");
  CHECK_FALSE(p4[0].timed);
  CHECK_FALSE(p4[0].passed());
  CHECK(p4[0].note == "ELL padding: 9.1 GiB, more than the GPU has");
  CHECK(p4[1].variant == "library");
  CHECK(p4[1].passed());
  CHECK(p4[1].id == "-");
  CHECK(p4[1].phase() == -1);
  CHECK(p4[2].phase() == 4);
  CHECK(p4[2].ref_value > 7.07);
  CHECK(p4[2].rate_in("GFLOP/s") > 13.6);  // the flop column: 2 nnz over the median
  CHECK_FALSE(p4[2].passed());
  // A reader survives a column it does not know, and names the first it misses.
  CHECK(wb::parse_result_csv(
            "device,date,extra,launcher,shape,median_ms,rate,rate_unit,status\nA,B,C,k,s,1,2,GB/s,PASS\n", &error)
            .size() == 1);
  CHECK(wb::parse_result_csv("device,date,kernel\nx,y,z\n", &error).empty());
  CHECK(error.find("launcher") != std::string::npos);
}

TEST_CASE("numbers are printed with about three significant digits", "[host][workbook]") {
  CHECK(wbcli::format_number(2900.4) == "2900");
  CHECK(wbcli::format_number(97.44) == "97.4");
  CHECK(wbcli::format_number(2.333) == "2.33");
  CHECK(wbcli::format_number(0.2716) == "0.272");
}
