// SPDX-License-Identifier: MIT
// Command-line options every lesson accepts. Bad input gives a reason and the usage text, and
// the lesson exits with status 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/data.h"

namespace wb {

struct LessonOptions {
  std::string size;  // as typed: "64M", "1000", "4096x4096"; each lesson interprets it
  int repeat = 20;
  int warmup = 3;
  std::uint64_t seed = kDefaultSeed;
  bool csv = false;
};

enum class ParseStatus { Ok, Help, Error };

struct ParseResult {
  ParseStatus status = ParseStatus::Ok;
  std::string error;  // for ParseStatus::Error: what was wrong, in one line
  LessonOptions options;
};

ParseResult parse_lesson_args(int argc, const char* const* argv);
std::string lesson_usage(const std::string& program, const std::string& title);

// "1000", "64M", "1K", "2G" (binary suffixes). False on anything else, zero included when
// allow_zero is false, or on overflow.
bool parse_count(const std::string& text, std::size_t* out, bool allow_zero = true);
// "1024,2048,4M": counts (as parse_count) separated by commas; false if any is malformed.
bool parse_count_list(const std::string& text, std::vector<std::size_t>* out, bool allow_zero = true);
// "4096", "1024x512", "32x1x32768x128": any number of counts joined by 'x'.
bool parse_dim_list(const std::string& text, std::vector<std::size_t>* out);
// "4096", "1024x512", "127x129x65": one to three counts joined by 'x'.
bool parse_dims(const std::string& text, std::vector<std::size_t>* out);

// Thrown by a lesson that cannot use the options it was given (e.g. --size in the wrong form).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The UsageError of a --size whose form the lesson does not read: a count where it takes RxC, or the
// other way round. A phase benchmark hands each of its shapes to every lesson of the phase and takes
// this as "not one of mine" (common/lesson_bench.h); a learner sees the UsageError it is.
class SizeFormError : public UsageError {
 public:
  using UsageError::UsageError;
};

}  // namespace wb
