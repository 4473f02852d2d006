// SPDX-License-Identifier: MIT
#include "common/args.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace wb {
namespace {

bool parse_int_in_range(const std::string& text, int lo, int hi, int* out) {
  std::size_t value = 0;
  if (!parse_count(text, &value) || value < static_cast<std::size_t>(lo) || value > static_cast<std::size_t>(hi))
    return false;
  *out = static_cast<int>(value);
  return true;
}

bool parse_seed(const std::string& text, std::uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = value;
  return true;
}

}  // namespace

bool parse_count(const std::string& text, std::size_t* out, bool allow_zero) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  std::size_t i = 0, value = 0;
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const std::size_t digit = static_cast<std::size_t>(text[i] - '0');
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  if (i < text.size()) {
    if (i + 1 != text.size()) return false;
    int shift = 0;
    switch (text[i]) {
      case 'K':
      case 'k':
        shift = 10;
        break;
      case 'M':
      case 'm':
        shift = 20;
        break;
      case 'G':
      case 'g':
        shift = 30;
        break;
      default:
        return false;
    }
    if (value > (max >> shift)) return false;
    value <<= shift;
  }
  if (!allow_zero && value == 0) return false;
  *out = value;
  return true;
}

bool parse_count_list(const std::string& text, std::vector<std::size_t>* out, bool allow_zero) {
  std::vector<std::size_t> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::size_t value = 0;
    if (!parse_count(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &value,
                     allow_zero))
      return false;
    values.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  *out = values;
  return true;
}

bool parse_dims(const std::string& text, std::vector<std::size_t>* out) {
  std::vector<std::size_t> dims;
  if (!parse_dim_list(text, &dims) || dims.size() > 3) return false;
  *out = dims;
  return true;
}

bool parse_dim_list(const std::string& text, std::vector<std::size_t>* out) {
  std::vector<std::size_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find('x', start);
    std::size_t value = 0;
    if (!parse_count(text.substr(start, x == std::string::npos ? std::string::npos : x - start), &value)) return false;
    dims.push_back(value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  *out = dims;
  return true;
}

ParseResult parse_lesson_args(int argc, const char* const* argv) {
  ParseResult result;
  auto fail = [&result](const std::string& why) {
    result.status = ParseStatus::Error;
    result.error = why;
    return result;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline_value = false;
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    auto take_value = [&](std::string* dest) {
      if (has_inline_value) {
        *dest = value;
        return true;
      }
      if (i + 1 >= argc) return false;
      *dest = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      result.status = ParseStatus::Help;
      return result;
    } else if (arg == "--csv") {
      if (has_inline_value) return fail("--csv takes no value");
      result.options.csv = true;
    } else if (arg == "--size") {
      if (!take_value(&result.options.size) || result.options.size.empty()) return fail("--size needs a value");
    } else if (arg == "--repeat") {
      std::string text;
      if (!take_value(&text) || !parse_int_in_range(text, 1, 100000, &result.options.repeat))
        return fail("--repeat needs a whole number from 1 to 100000, got '" + text + "'");
    } else if (arg == "--warmup") {
      std::string text;
      if (!take_value(&text) || !parse_int_in_range(text, 0, 1000, &result.options.warmup))
        return fail("--warmup needs a whole number from 0 to 1000, got '" + text + "'");
    } else if (arg == "--seed") {
      std::string text;
      if (!take_value(&text) || !parse_seed(text, &result.options.seed))
        return fail("--seed needs a non-negative whole number, got '" + text + "'");
    } else {
      return fail("unknown option '" + std::string(argv[i]) + "'");
    }
  }
  return result;
}

std::string lesson_usage(const std::string& program, const std::string& title) {
  return "usage: " + program + " [--size N] [--repeat N] [--warmup N] [--seed N] [--csv] [--help]\n" + title +
         "\n"
         "  --size N     problem size: a count with an optional K/M/G suffix (64M), or RxC for matrices\n"
         "  --repeat N   timed repetitions, reported as median and spread (default 20)\n"
         "  --warmup N   untimed launches before timing (default 3)\n"
         "  --seed N     seed of the random input (default " +
         std::to_string(kDefaultSeed) +
         ")\n"
         "  --csv        print the result as CSV instead of the result line\n"
         "exit status: 0 PASS, 1 wrong result or CUDA error, 2 bad arguments, 77 no usable GPU\n";
}

}  // namespace wb
