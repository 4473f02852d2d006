// SPDX-License-Identifier: MIT
// The lessons' --size on bad input, no GPU needed: a head dimension other than 64 or 128, a count out of
// range or a causal cross shape is a usage error (exit 2 with the sentence, common/gpu_main.cpp), found
// before any buffer or launch; and every launcher's shape check refuses what the lesson would refuse.
// (A --size whose buffers do not fit the GPU is refused by Lesson::require_memory, also exit 2: that
// needs a GPU to ask.)
#include <stdexcept>
#include <string>

#include "common/args.h"
#include "common/testing.h"
#include "phase5_attention/harness/lesson_support.h"

namespace {
std::string usage_error(const std::string& size, bool causal) {
  try {
    p5::parse_attention_size(size, causal, 128);
  } catch (const wb::UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("the attention lessons refuse a head dimension other than 64 or 128", "[host][p5]") {
  for (const char* size : {"16x4096x32", "16x4096x96", "16x4096x256", "2x256x512x80", "4096x48"}) {
    INFO("--size " << size);
    CHECK(usage_error(size, false).find("64 or 128") != std::string::npos);
  }
}

TEST_CASE("the attention lessons refuse counts out of range and causal cross shapes", "[host][p5]") {
  for (const char* size : {"5000x1024x128", "1x2000000x128", "1x64x2000000x128"}) {
    INFO("--size " << size);
    CHECK(usage_error(size, false).find("from 1 to") != std::string::npos);
  }
  for (const char* size : {"0x4096x128", "16x0x128"}) {  // a zero count: refused, in either sentence
    INFO("--size " << size);
    CHECK(!usage_error(size, false).empty());
  }
  CHECK(usage_error("2x256x512x128", true).find("SEQQ == SEQK") != std::string::npos);
  CHECK(usage_error("4096x64", false).empty());  // SEQxD
  CHECK(usage_error("nope", false).find("--size needs") != std::string::npos);
}

TEST_CASE("the attention lessons take the shapes they print", "[host][p5]") {
  const AttentionShape s = p5::parse_attention_size("2x256x64", false, 128);
  CHECK(s.heads == 2);
  CHECK(s.seq_q == 256);
  CHECK(s.seq_k == 256);
  CHECK(s.d == 64);
  const AttentionShape cross = p5::parse_attention_size("3x17x65x128", false, 64);
  CHECK((cross.seq_q == 17 && cross.seq_k == 65 && cross.d == 128));
  CHECK(p5::parse_attention_size("", true, 128).d == 128);  // 5.05 and 5.08: 16x4096x128
}

TEST_CASE("every launcher's shape check refuses what the lessons refuse", "[host][p5]") {
  for (const int d : {0, 32, 96, 256}) {
    INFO("d = " << d);
    CHECK_THROWS_AS(validate_attention_shape(AttentionShape{1, 64, 64, d, false}), std::invalid_argument);
  }
  CHECK_THROWS_AS(validate_attention_shape(AttentionShape{1, 64, 65, 128, true}), std::invalid_argument);
  CHECK_THROWS_AS(validate_attention_shape(AttentionShape{1, 64, 0, 128, false}), std::invalid_argument);
  CHECK_NOTHROW(validate_attention_shape(AttentionShape{1, 64, 65, 128, false}));
}
