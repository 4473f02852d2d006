// SPDX-License-Identifier: MIT
// Lesson --csv rows and phase benchmark CSVs, as the lessons and p1_ladder / p2_bench write them.
#include "tools/workbook/lesson_csv.h"

#include "common/catch.h"

TEST_CASE("lesson CSV rows give the speed and the same-run reference", "[host][workbook]") {
  const std::string output =
      "id,name,problem,median_ms,min_ms,spread_pct,rate,rate_unit,peak_pct,peak_label,ref_value,ref_style,ref_label,"
      "cache_resident,status,device\n"
      "0.02,vector_add,n=64M,0.296000,0.294000,0.40,2718.000,GB/s,81.00,HBM peak,91.00,percent,memcpy,0,PASS,NVIDIA "
      "H100 80GB HBM3\n"
      "some message the lesson printed\n"
      "0.02,vector_add_float4,n=64M,0.278000,0.277000,0.30,2900.000,GB/s,86.00,HBM peak,97.00,percent,memcpy,0,PASS,"
      "NVIDIA H100 80GB HBM3\n"
      "0.09,pipeline_streams,n=64M,6.250000,6.200000,0.50,85.900,GB/s,92.00,of overlap bound,2.33,speedup,serial,0,"
      "FAIL,Some, GPU\n";
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(output);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].name == "vector_add_float4");
  CHECK(rows[1].rate == 2900.0);
  CHECK(rows[1].score() == 97.0);
  CHECK(rows[1].score_label() == "% of memcpy");
  CHECK(rows[1].summary() == "vector_add_float4 2900 GB/s, 86% HBM peak, 97% of memcpy");
  CHECK(rows[0].pass);
  CHECK(rows[2].score() == 92.0);  // a speed-up is not a percentage: the peak share is used
  CHECK_FALSE(rows[2].pass);
  CHECK(rows[2].device == "Some, GPU");
  CHECK(wbcli::parse_lesson_csv("SKIPPED: no CUDA GPU visible\n").empty());
}

TEST_CASE("a failed lesson row has dashes for its rate and percentages and still parses", "[host][workbook]") {
  // common/report.cpp's format_csv_row for a FAIL line: same columns, no numbers that mean nothing.
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(
      "id,name,problem,median_ms,min_ms,spread_pct,rate,rate_unit,peak_pct,peak_label,ref_value,ref_style,ref_label,"
      "cache_resident,status,device\n"
      "0.01,record_thread_indices,n=64M,0.003410,0.003300,0.50,-,GB/s,-,HBM peak,-,percent,memcpy,0,FAIL,NVIDIA "
      "H100\n");
  REQUIRE(rows.size() == 1);
  CHECK_FALSE(rows[0].pass);
  CHECK(rows[0].rate == 0.0);
  CHECK(rows[0].peak_pct == 0.0);
  CHECK(rows[0].score() == 0.0);
  CHECK(rows[0].device == "NVIDIA H100");
}

TEST_CASE("a passing row whose peak is unknown (\"-\") says so and has no score in % of a peak", "[host][workbook]") {
  // common/report.cpp's format_csv_row on a GPU the peak tables lack (set_peak with 0).
  const std::vector<wbcli::LessonRow> rows = wbcli::parse_lesson_csv(
      "id,name,problem,median_ms,min_ms,spread_pct,rate,rate_unit,peak_pct,peak_label,ref_value,ref_style,ref_label,"
      "cache_resident,status,device\n"
      "5.05,flash_attention_bf16,16x4096x128,1.000000,0.990000,0.50,400000.000,GFLOP/s,-,BF16 peak,1.2000,speedup,"
      "of 5.02,0,PASS,NVIDIA Future GPU\n"
      "1.13,matmul_warp_specialized_bf16,M=N=K=4096,0.200000,0.190000,0.50,687194.767,GFLOP/s,-,BF16 peak,101.0000,"
      "percent,cuBLAS BF16 best,0,PASS,NVIDIA Future GPU\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].pass);
  CHECK_FALSE(rows[0].peak_known);
  CHECK_FALSE(rows[0].has_score());  // a speed-up row scores in % of its peak: unknown here
  CHECK(rows[0].summary() == "flash_attention_bf16 400000 GFLOP/s, BF16 peak unknown, 1.2x of 5.02");
  CHECK(rows[1].has_score());  // % of cuBLAS needs no peak
  CHECK(rows[1].score() == 101.0);
}

TEST_CASE("benchmark CSVs are read by column name", "[host][workbook]") {
  std::string error;
  const std::vector<wbcli::BenchRow> ladder = wbcli::parse_bench_csv(
      "device,date,size,id,launcher,precision,median_ms,gflops,peak_pct,cublas_ms,pct_of_cublas,status\n"
      "NVIDIA H100,2026-11-22,4096,1.07,matmul_warptiling,fp32,2.9600,46400.0,69.00,2.6300,89.00,PASS\n"
      "NVIDIA H100,2026-11-22,4096,-,cublasSgemm,fp32,2.6300,52100.0,77.00,2.6300,100.00,PASS\n",
      &error);
  REQUIRE(error.empty());
  REQUIRE(ladder.size() == 2);
  CHECK(ladder[0].id == "1.07");
  CHECK(ladder[0].pct_of_library == 89.0);
  CHECK(ladder[0].library == "cublas");
  CHECK(ladder[0].pct_of_peak == 69.0);
  CHECK(ladder[1].launcher == "cublasSgemm");
  const std::vector<wbcli::BenchRow> p2 = wbcli::parse_bench_csv(
      "device,date,kernel,shape,bytes,median_ms,min_ms,gbps,memcpy_gbps,pct_of_memcpy,pct_of_peak,status\n"
      "H100,2026-11-22,relu_float4,n=64M,536870912,0.18,0.18,2950.0,2990.0,98.7,88.0,FAIL\n",
      &error);
  REQUIRE(p2.size() == 1);
  CHECK(p2[0].launcher == "relu_float4");
  CHECK(p2[0].size == "n=64M");
  CHECK(p2[0].library == "memcpy");
  CHECK_FALSE(p2[0].passed());
  const std::vector<wbcli::BenchRow> p3 = wbcli::parse_bench_csv(
      "device,date,id,kernel,size,bytes,median_ms,min_ms,spread_pct,gbps,pct_of_peak,pct_of_cub,status\n"
      "\"H100\",2026-11-23,3.08,reduce_shuffle,268435456,1073741824,0.36,0.36,0.10,2954.0,88.1,98.9,PASS\n",
      &error);
  REQUIRE(error.empty());
  REQUIRE(p3.size() == 1);
  CHECK(p3[0].id == "3.08");
  CHECK(p3[0].size == "268435456");
  CHECK(p3[0].library == "cub");
  CHECK(p3[0].pct_of_library == 98.9);
  CHECK(p3[0].pct_of_peak == 88.1);
  wbcli::parse_bench_csv("a,b\n1,2\n", &error);
  CHECK(error.find("pct_of_") != std::string::npos);
}

TEST_CASE("a benchmark's SKIP and REF rows are kept as such, not read as failures", "[host][workbook]") {
  std::string error;
  const std::vector<wbcli::BenchRow> p4 = wbcli::parse_bench_csv(
      "device,date,generator,kernel,rows,nnz,median_ms,gbps,gflops,pct_of_peak,cusparse_csr_ms,pct_of_cusparse_csr,"
      "status\n"
      "H100,2026-11-25,powerlaw,spmv_ell,4194304,28000000,0,0,0,0,0.29,0,SKIP\n"
      "H100,2026-11-25,powerlaw,cusparse_csr,4194304,28000000,0.29,994,190,30,0.29,100,REF\n"
      "H100,2026-11-25,powerlaw,spmv_csr_scalar,4194304,28000000,4.1,67,13,2,0.29,7,FAIL\n"
      "H100,2026-11-25,powerlaw,spmv_csr_adaptive,4194304,28000000,0.31,908,180,27,0.29,92,PASS\n",
      &error);
  REQUIRE(error.empty());
  REQUIRE(p4.size() == 4);
  CHECK(p4[0].status == "SKIP");
  CHECK_FALSE(p4[0].passed());
  CHECK(p4[1].status == "REF");
  CHECK(p4[1].passed());
  CHECK(p4[2].status == "FAIL");
  CHECK_FALSE(p4[2].passed());
  CHECK(p4[3].passed());
}

TEST_CASE("numbers are printed with about three significant digits", "[host][workbook]") {
  CHECK(wbcli::format_number(2900.4) == "2900");
  CHECK(wbcli::format_number(97.44) == "97.4");
  CHECK(wbcli::format_number(2.333) == "2.33");
  CHECK(wbcli::format_number(0.2716) == "0.272");
}
