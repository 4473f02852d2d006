// SPDX-License-Identifier: MIT
#include "common/result_csv.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>

namespace wb {
namespace {

constexpr const char* kMissing = "-";

std::string quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string number(const char* format, double value) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// "-", "" or anything not a number: not there.
bool parse_number(const std::string& text, double* value) {
  if (text.empty() || text == kMissing) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return false;
  *value = v;
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

}  // namespace

int ResultRow::phase() const {
  if (id.empty() || id[0] < '0' || id[0] > '9') return -1;
  return std::atoi(id.c_str());
}

double ResultRow::rate_in(const std::string& unit) const {
  if (!timed || median_ms <= 0) return 0;
  if (unit == "GB/s") return bytes / (median_ms * 1e6);
  if (unit == "GFLOP/s") return flop / (median_ms * 1e6);
  return 0;
}

void set_rate(ResultRow& row, const std::string& unit, double peak, const std::string& peak_label) {
  row.rate_unit = unit;
  row.rate = row.rate_in(unit);
  row.peak_label = peak_label;
  row.peak_known = peak > 0;
  row.peak_pct = row.peak_known ? 100.0 * row.rate / peak : 0.0;
}

void set_reference(ResultRow& row, const std::string& label, double value, const std::string& style) {
  row.ref_label = label;
  row.ref_value = value;
  row.ref_style = style;
}

std::string result_csv_header() {
  std::string header;
  for (const std::string& column : result_columns()) header += (header.empty() ? "" : ",") + column;
  return header;
}

std::string format_result_csv(const ResultRow& r) {
  // Times only for timed rows; rates, percentages and the cache mark only where they mean something.
  const bool rated = r.timed && r.status != "FAIL" && !r.rate_unit.empty();
  auto timed = [&r](const char* format, double v) { return r.timed ? number(format, v) : std::string(kMissing); };
  auto counted = [](double v) { return v > 0 ? number("%.0f", v) : std::string(kMissing); };
  const std::vector<std::string> fields = {
      quoted(r.device),
      quoted(r.date),
      std::to_string(r.gpus),
      quoted(r.id.empty() ? kMissing : r.id),
      quoted(r.variant),
      quoted(r.launcher),
      quoted(r.shape),
      quoted(r.dtype.empty() ? kMissing : r.dtype),
      timed("%.6f", r.median_ms),
      timed("%.6f", r.min_ms),
      timed("%.2f", r.spread_pct),
      counted(r.bytes),
      counted(r.flop),
      rated ? number("%.3f", r.rate) : kMissing,
      r.rate_unit.empty() ? kMissing : r.rate_unit,
      rated && r.peak_known ? number("%.2f", r.peak_pct) : kMissing,
      quoted(r.peak_label.empty() ? kMissing : r.peak_label),
      quoted(r.ref_label.empty() ? kMissing : r.ref_label),
      rated && !r.ref_label.empty() ? number("%.4f", r.ref_value) : kMissing,
      r.ref_label.empty() ? kMissing : r.ref_style,
      rated && r.cache_resident ? "1" : "0",
      r.status,
      quoted(r.beside.empty() ? kMissing : r.beside),
      quoted(r.note),
  };
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + fields[i];
  return line;
}

std::vector<std::string> split_csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted_field = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted_field && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted_field = !quoted_field;
    } else if (c == ',' && !quoted_field) {
      fields.emplace_back();
    } else if (c != '\r') {  // a file written on Windows
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<ResultRow> parse_result_csv(const std::string& text, std::string* error) {
  std::vector<ResultRow> rows;
  std::map<std::string, std::size_t> column;  // of the header above the current rows
  std::size_t width = 0;
  std::string why = "it has no result header (device,date,gpus,...)";
  for (const std::string& line : split_lines(text)) {
    const std::vector<std::string> f = split_csv_fields(line);
    if (f.size() > 1 && f[0] == "device" && f[1] == "date") {
      column.clear();
      for (std::size_t i = 0; i < f.size(); ++i) column[f[i]] = i;
      width = f.size();
      why.clear();
      for (const char* needed : {"launcher", "shape", "median_ms", "rate", "rate_unit", "status"})
        if (why.empty() && column.count(needed) == 0) why = std::string("its header has no ") + needed + " column";
      if (!why.empty()) column.clear();
      continue;
    }
    if (column.empty() || f.size() != width) continue;  // a message between rows, or a torn line
    auto at = [&](const char* name) {
      const auto found = column.find(name);
      return found == column.end() ? std::string() : f[found->second];
    };
    auto text_at = [&](const char* name) {
      const std::string v = at(name);
      return v == kMissing ? std::string() : v;
    };
    auto num_at = [&](const char* name, double* v) { return parse_number(at(name), v); };
    ResultRow r;
    r.device = at("device");
    r.date = at("date");
    double gpus = 1;
    if (num_at("gpus", &gpus)) r.gpus = static_cast<int>(gpus);
    r.id = at("id").empty() ? kMissing : at("id");
    r.variant = at("variant");
    r.launcher = at("launcher");
    r.shape = at("shape");
    r.dtype = text_at("dtype");
    r.timed = num_at("median_ms", &r.median_ms);
    num_at("min_ms", &r.min_ms);
    num_at("spread_pct", &r.spread_pct);
    num_at("bytes", &r.bytes);
    num_at("flop", &r.flop);
    num_at("rate", &r.rate);
    r.rate_unit = text_at("rate_unit");
    r.peak_known = num_at("peak_pct", &r.peak_pct);
    r.peak_label = text_at("peak_label");
    r.ref_label = text_at("ref_label");
    num_at("ref_value", &r.ref_value);
    r.ref_style = text_at("ref_style").empty() ? "percent" : text_at("ref_style");
    r.cache_resident = at("cache_resident") == "1";
    r.status = at("status");
    r.beside = text_at("beside");
    r.note = at("note");
    rows.push_back(r);
  }
  if (error != nullptr) *error = rows.empty() ? (why.empty() ? "it has no rows" : why) : "";
  return rows;
}

bool write_result_csv(const std::string& path, const std::vector<ResultRow>& rows) {
  std::ofstream out(path);
  if (!out) return false;
  out << result_csv_header() << '\n';
  for (const ResultRow& row : rows) out << format_result_csv(row) << '\n';
  return static_cast<bool>(out.flush());
}

std::string utc_date() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

}  // namespace wb
