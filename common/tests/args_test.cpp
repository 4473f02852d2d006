// SPDX-License-Identifier: MIT
// Lesson arguments: good input parses, bad input is an error with a reason (the lesson then
// prints the usage and exits 2).
#include "common/args.h"

#include <string>
#include <vector>

#include "common/testing.h"

namespace {

wb::ParseResult parse(std::vector<std::string> words) {
  std::vector<const char*> argv = {"lesson"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  return wb::parse_lesson_args(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("no arguments gives the defaults", "[host][args]") {
  const wb::ParseResult r = parse({});
  REQUIRE(r.status == wb::ParseStatus::Ok);
  CHECK(r.options.size.empty());
  CHECK(r.options.repeat == 20);
  CHECK(r.options.warmup == 3);
  CHECK(r.options.seed == wb::kDefaultSeed);
  CHECK_FALSE(r.options.csv);
}

TEST_CASE("every option parses in both --opt value and --opt=value form", "[host][args]") {
  const wb::ParseResult r = parse({"--size", "64M", "--repeat=7", "--warmup", "0", "--seed=0x10", "--csv"});
  REQUIRE(r.status == wb::ParseStatus::Ok);
  CHECK(r.options.size == "64M");
  CHECK(r.options.repeat == 7);
  CHECK(r.options.warmup == 0);
  CHECK(r.options.seed == 16);
  CHECK(r.options.csv);
}

TEST_CASE("--help and -h ask for the usage", "[host][args]") {
  CHECK(parse({"--help"}).status == wb::ParseStatus::Help);
  CHECK(parse({"--size", "5", "-h"}).status == wb::ParseStatus::Help);
  const std::string usage = wb::lesson_usage("p0_02_vector_add", "0.02 vector_add");
  CHECK(usage.find("usage: p0_02_vector_add") == 0);
  CHECK(usage.find("--size") != std::string::npos);
  CHECK(usage.find("exit status") != std::string::npos);
}

TEST_CASE("bad arguments are errors that name the problem", "[host][args]") {
  struct Case {
    std::vector<std::string> words;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"extra"}, "unknown option 'extra'"},
      {{"--size"}, "--size needs a value"},
      {{"--size="}, "--size needs a value"},
      {{"--repeat", "0"}, "--repeat needs a whole number"},
      {{"--repeat", "-3"}, "--repeat needs a whole number"},
      {{"--repeat", "ten"}, "--repeat needs a whole number"},
      {{"--repeat", "100001"}, "--repeat needs a whole number"},
      {{"--repeat"}, "--repeat needs a whole number"},
      {{"--warmup", "1001"}, "--warmup needs a whole number"},
      {{"--seed", "-1"}, "--seed needs a non-negative whole number"},
      {{"--seed", "12abc"}, "--seed needs a non-negative whole number"},
      {{"--seed", "99999999999999999999999"}, "--seed needs a non-negative whole number"},
      {{"--csv=yes"}, "--csv takes no value"},
  };
  for (const Case& c : cases) {
    const wb::ParseResult r = parse(c.words);
    INFO("arguments: " << (c.words.empty() ? std::string() : c.words[0]));
    CHECK(r.status == wb::ParseStatus::Error);
    CHECK(r.error.find(c.reason) != std::string::npos);
  }
}

TEST_CASE("parse_count takes plain numbers and binary K/M/G suffixes", "[host][args]") {
  std::size_t n = 0;
  CHECK(wb::parse_count("0", &n));
  CHECK(n == 0);
  CHECK(wb::parse_count("1000", &n));
  CHECK(n == 1000);
  CHECK(wb::parse_count("4K", &n));
  CHECK(n == 4096);
  CHECK(wb::parse_count("64M", &n));
  CHECK(n == (std::size_t(64) << 20));
  CHECK(wb::parse_count("2g", &n));
  CHECK(n == (std::size_t(2) << 30));
  CHECK_FALSE(wb::parse_count("", &n));
  CHECK_FALSE(wb::parse_count("-5", &n));
  CHECK_FALSE(wb::parse_count("1.5M", &n));
  CHECK_FALSE(wb::parse_count("12Q", &n));
  CHECK_FALSE(wb::parse_count("12MM", &n));
  CHECK_FALSE(wb::parse_count(" 12", &n));
  CHECK_FALSE(wb::parse_count("0", &n, /*allow_zero=*/false));
  CHECK_FALSE(wb::parse_count("99999999999999999999999", &n));  // overflow
  CHECK_FALSE(wb::parse_count("17179869184G", &n));             // overflow through the suffix
}

TEST_CASE("parse_dims takes one to three counts joined by x", "[host][args]") {
  std::vector<std::size_t> d;
  REQUIRE(wb::parse_dims("4096", &d));
  CHECK(d == std::vector<std::size_t>{4096});
  REQUIRE(wb::parse_dims("127x129x65", &d));
  CHECK(d == std::vector<std::size_t>{127, 129, 65});
  REQUIRE(wb::parse_dims("1Kx2", &d));
  CHECK(d == std::vector<std::size_t>{1024, 2});
  CHECK_FALSE(wb::parse_dims("4x", &d));
  CHECK_FALSE(wb::parse_dims("x4", &d));
  CHECK_FALSE(wb::parse_dims("1x2x3x4", &d));
  REQUIRE(wb::parse_dim_list("32x1x32Kx128", &d));  // no limit on the parts: 5.06's four
  CHECK(d == std::vector<std::size_t>{32, 1, 32768, 128});
  CHECK_FALSE(wb::parse_dim_list("32x1xx128", &d));
  CHECK_FALSE(wb::parse_dim_list("", &d));
  CHECK_FALSE(wb::parse_dims("axb", &d));
  CHECK_FALSE(wb::parse_dims("", &d));
}

TEST_CASE("parse_count_list takes comma-separated counts", "[host][args]") {
  std::vector<std::size_t> v;
  REQUIRE(wb::parse_count_list("1024,2K,4M", &v));
  CHECK(v == std::vector<std::size_t>{1024, 2048, std::size_t(4) << 20});
  REQUIRE(wb::parse_count_list("7", &v));
  CHECK(v == std::vector<std::size_t>{7});
  CHECK_FALSE(wb::parse_count_list("", &v));
  CHECK_FALSE(wb::parse_count_list("1,,2", &v));
  CHECK_FALSE(wb::parse_count_list("1,2,", &v));
  CHECK_FALSE(wb::parse_count_list("0,5", &v, /*allow_zero=*/false));
}
