// SPDX-License-Identifier: MIT
// The Matrix Market reader and writer of phase4_spmv/harness/sparse.h. The reader is strict on purpose: a file it
// accepts is exactly the matrix its author wrote, so a kernel that disagrees with the reference is the
// kernel's fault. Every problem is a MatrixMarketError naming the line; nothing is guessed, summed or
// dropped, and no value is used before it was parsed in full.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "phase4_spmv/harness/sparse.h"

namespace p4 {
namespace sparse {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Splits on runs of blanks. Tabs count as blanks, and so does a stray '\r' (CRLF line ends).
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Only [+-]digits: strtoll alone would accept leading blanks, and the end-pointer check below rejects
// "12abc", so together nothing but a whole integer gets through.
bool parse_int64(const std::string& token, long long* out) {
  std::size_t i = (!token.empty() && (token[0] == '+' || token[0] == '-')) ? 1 : 0;
  if (i == token.size()) return false;
  for (std::size_t k = i; k < token.size(); ++k)
    if (token[k] < '0' || token[k] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(token.c_str(), &end, 10);
  if (end != token.c_str() + token.size()) return false;
  if (errno == ERANGE) {
    *out = token[0] == '-' ? LLONG_MIN : LLONG_MAX;  // callers report it as out of range, not as text
    return true;
  }
  *out = v;
  return true;
}

// A decimal real: digits, sign, '.', 'e'/'E' only, so strtof's extras (inf, nan, hex floats) are refused
// as the non-numbers they are in a Matrix Market file. strtof (not strtod then a cast) rounds the
// decimal to float once, which is what makes the writer's 9 digits round-trip exactly.
bool parse_real(const std::string& token, float* out) {
  if (token.empty()) return false;
  for (char c : token)
    if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
  char* end = nullptr;
  const float v = std::strtof(token.c_str(), &end);
  if (end != token.c_str() + token.size()) return false;
  *out = v;  // may be +-inf on overflow; the caller says so (underflow to 0 or a subnormal is fine)
  return true;
}

// One 64-bit key per position, for the duplicate check.
std::uint64_t key_of(int r, int c) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(r)) << 32) | static_cast<std::uint32_t>(c);
}

enum class Field { kReal, kInteger, kPattern };
enum class Symmetry { kGeneral, kSymmetric, kSkew };

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  Coo read() {
    read_banner();
    std::string line;
    if (!next_content_line(&line)) fail(line_ + 1, "missing size line (unexpected end of file)");
    // The banner's words are judged only once the header is complete, so a file cut off before its size
    // line is reported as truncated (the damage) rather than by its banner (a feature it may not need).
    check_banner_words();
    read_size_line(line);
    read_entries();
    return std::move(coo_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& reason) const { throw MatrixMarketError(name_, line, reason); }
  [[noreturn]] void fail(const std::string& reason) const { fail(line_, reason); }

  // Reads the next physical line, without its '\r' and trailing blanks; false at end of input.
  bool next_line(std::string* line) {
    if (!std::getline(in_, *line)) {
      if (in_.bad()) fail(line_ + 1, "read error");
      return false;
    }
    if (line_ < INT_MAX) ++line_;  // a >2^31-line file keeps reporting its last countable line
    std::size_t end = line->size();
    while (end > 0 && is_space((*line)[end - 1])) --end;
    line->resize(end);
    return true;
  }

  // Skips blank lines and '%' comment lines (any, "%%GraphBLAS" included) anywhere after the banner.
  bool next_content_line(std::string* line) {
    while (next_line(line)) {
      const std::size_t first = line->find_first_not_of(" \t\r\v\f");
      if (first == std::string::npos || (*line)[first] == '%') continue;
      return true;
    }
    return false;
  }

  void read_banner() {
    std::string line;
    const bool got = next_line(&line);
    const std::vector<std::string> t = got ? split(line) : std::vector<std::string>{};
    if (t.size() != 5 || lower(t[0]) != "%%matrixmarket")
      fail(1, "invalid or missing banner (expected \"%%MatrixMarket matrix coordinate <field> <symmetry>\")");
    banner_ = t;
  }

  void check_banner_words() {
    const std::string object = lower(banner_[1]), format = lower(banner_[2]);
    const std::string field = lower(banner_[3]), symmetry = lower(banner_[4]);
    if (object != "matrix") fail(1, "unsupported object " + object);
    if (format != "coordinate") fail(1, "unsupported format " + format);
    if (field == "real") {
      field_ = Field::kReal;
    } else if (field == "integer") {
      field_ = Field::kInteger;
    } else if (field == "pattern") {
      field_ = Field::kPattern;
    } else {
      fail(1, "unsupported field " + field);
    }
    if (symmetry == "general") {
      symmetry_ = Symmetry::kGeneral;
    } else if (symmetry == "symmetric") {
      symmetry_ = Symmetry::kSymmetric;
    } else if (symmetry == "skew-symmetric") {
      symmetry_ = Symmetry::kSkew;
    } else {
      fail(1, "unsupported symmetry " + symmetry);
    }
    // The standard forbids it: a pattern has no values to negate.
    if (field_ == Field::kPattern && symmetry_ == Symmetry::kSkew) fail(1, "unsupported pattern skew-symmetric");
  }

  void read_size_line(const std::string& line) {
    const std::vector<std::string> t = split(line);
    if (t.size() != 3)
      fail("invalid size line: expected \"rows cols nnz\", found " + std::to_string(t.size()) + " fields");
    static const char* const kWhat[3] = {"rows", "cols", "nnz"};
    long long v[3];
    for (int k = 0; k < 3; ++k) {
      if (!parse_int64(t[k], &v[k]))
        fail(std::string("invalid size line: non-numeric ") + kWhat[k] + " '" + t[k] + "'");
      if (v[k] < 0)
        fail(std::string("invalid size line: negative ") + (k < 2 ? "dimension " : "") + kWhat[k] + " = " + t[k]);
      if (v[k] > INT_MAX) fail(std::string("invalid size line: ") + kWhat[k] + " = " + t[k] + " does not fit in int");
    }
    coo_.rows = static_cast<int>(v[0]);
    coo_.cols = static_cast<int>(v[1]);
    nnz_ = v[2];
    // Both products fit int64 since rows, cols <= INT_MAX.
    if (symmetry_ != Symmetry::kGeneral) {
      if (v[0] != v[1])
        fail("invalid size line: a " + lower(banner_[4]) + " matrix must be square, not " + t[0] + " x " + t[1]);
      const long long triangle = v[0] * (v[0] + 1) / 2;
      if (nnz_ > triangle)
        fail("invalid size line: nnz = " + t[2] + " exceeds the " + std::to_string(triangle) +
             " entries of a triangle");
    } else if (nnz_ > v[0] * v[1]) {
      fail("invalid size line: nnz = " + t[2] + " exceeds rows * cols = " + std::to_string(v[0] * v[1]));
    }
  }

  int parse_index(const std::string& token, const char* what, int limit) {
    long long v = 0;
    if (!parse_int64(token, &v)) fail(std::string("non-numeric ") + what + " index '" + token + "'");
    // Also catches 0 (a 0-based file) before the subtraction could make it -1.
    if (v < 1 || v > limit) fail(std::string(what) + " index " + token + " out of range 1.." + std::to_string(limit));
    return static_cast<int>(v - 1);
  }

  float parse_value(const std::string& token) {
    if (field_ == Field::kInteger) {
      long long v = 0;
      if (!parse_int64(token, &v)) fail("non-numeric value '" + token + "' (the field is integer)");
      if (v == LLONG_MIN || v == LLONG_MAX) fail("integer value " + token + " out of range");
      return static_cast<float>(v);
    }
    float v = 0;
    if (!parse_real(token, &v)) fail("non-numeric value '" + token + "'");
    if (std::isinf(v)) fail("value " + token + " out of range of float");
    return v;
  }

  void add(int r, int c, float v, int line) {
    // The map remembers each position's line for the message.
    const auto inserted = seen_.emplace(key_of(r, c), line);
    if (!inserted.second)
      fail("duplicate entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + "), first given at line " +
           std::to_string(inserted.first->second));
    coo_.row.push_back(r);
    coo_.col.push_back(c);
    coo_.val.push_back(v);
  }

  void read_entries() {
    // The size line is not trusted with the allocation: a lying header must not exhaust memory.
    const std::size_t hint = static_cast<std::size_t>(std::min<long long>(nnz_, 1 << 20));
    coo_.row.reserve(hint);
    coo_.col.reserve(hint);
    coo_.val.reserve(hint);
    seen_.reserve(symmetry_ == Symmetry::kGeneral ? hint : 2 * hint);
    std::vector<int> mirror_row, mirror_col;
    std::vector<float> mirror_val;
    long long found = 0;
    std::string line;
    const std::size_t expected_tokens = field_ == Field::kPattern ? 2 : 3;
    while (next_content_line(&line)) {
      if (found == nnz_) fail("more entries than declared (nnz = " + std::to_string(nnz_) + ")");
      const std::vector<std::string> t = split(line);
      if (t.size() < 2) fail("missing column index");
      const int r = parse_index(t[0], "row", coo_.rows);
      const int c = parse_index(t[1], "column", coo_.cols);
      float v = 1.0f;  // pattern entries are ones
      if (field_ != Field::kPattern) {
        if (t.size() < 3) fail("missing value");
        v = parse_value(t[2]);
      }
      if (t.size() > expected_tokens)
        fail("unexpected extra field '" + t[expected_tokens] + "' (an entry is \"i j" +
             (field_ == Field::kPattern ? "\" in a pattern file)" : " value\")"));
      if (symmetry_ == Symmetry::kSkew && r == c && v != 0.0f)
        fail("nonzero diagonal entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
             ") in a skew-symmetric matrix");
      add(r, c, v, line_);
      if (symmetry_ != Symmetry::kGeneral && r != c) {
        // Registered now so a later explicit (c, r) is caught as the duplicate it is. It cannot collide
        // itself: add() just found (r, c) new, and a pair's two positions are always registered together.
        seen_.emplace(key_of(c, r), line_);
        mirror_row.push_back(c);
        mirror_col.push_back(r);
        mirror_val.push_back(symmetry_ == Symmetry::kSkew ? -v : v);
      }
      ++found;
    }
    if (found < nnz_)
      fail(line_ + 1, "truncated file: expected " + std::to_string(nnz_) + " entries, found " + std::to_string(found));
    coo_.row.insert(coo_.row.end(), mirror_row.begin(), mirror_row.end());
    coo_.col.insert(coo_.col.end(), mirror_col.begin(), mirror_col.end());
    coo_.val.insert(coo_.val.end(), mirror_val.begin(), mirror_val.end());
  }

  std::istream& in_;
  const std::string& name_;
  int line_ = 0;  // physical lines read so far, so the current line's 1-based number
  std::vector<std::string> banner_;
  Field field_ = Field::kReal;
  Symmetry symmetry_ = Symmetry::kGeneral;
  long long nnz_ = 0;
  std::unordered_map<std::uint64_t, int> seen_;
  Coo coo_;
};

}  // namespace

MatrixMarketError::MatrixMarketError(const std::string& name, int line, const std::string& reason)
    : std::runtime_error(name + ":" + std::to_string(line) + ": " + reason), line_(line) {}

Coo read_matrix_market(std::istream& in, const std::string& name) {
  return Reader(in, name).read();
}

Coo read_matrix_market_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);  // binary: the reader strips '\r' itself on every platform
  if (!in) throw MatrixMarketError(path, 0, "cannot open the file");
  return read_matrix_market(in, path);
}

void write_matrix_market(std::ostream& out, const Coo& a, const std::string& comment) {
  // Refused rather than written: the reader would reject the file (or, for sizes, we would read past the end).
  validate(a);
  for (std::size_t k = 0; k < a.val.size(); ++k) {
    if (!std::isfinite(a.val[k]))
      throw SparseError("write_matrix_market: entry " + std::to_string(k) +
                        " is not finite (Matrix Market has no NaN/inf)");
  }
  out << "%%MatrixMarket matrix coordinate real general\n";
  std::size_t start = 0;
  while (start < comment.size()) {
    std::size_t end = comment.find('\n', start);
    if (end == std::string::npos) end = comment.size();
    out << "% " << comment.substr(start, end - start) << "\n";
    start = end + 1;
  }
  out << a.rows << " " << a.cols << " " << a.val.size() << "\n";
  char text[64];
  for (std::size_t k = 0; k < a.val.size(); ++k) {
    // %.9g: 9 significant digits identify every float uniquely, so reading gives back the same bits.
    std::snprintf(text, sizeof text, "%d %d %.9g\n", a.row[k] + 1, a.col[k] + 1, static_cast<double>(a.val[k]));
    out << text;
  }
}

}  // namespace sparse
}  // namespace p4
