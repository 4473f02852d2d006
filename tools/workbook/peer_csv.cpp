// SPDX-License-Identifier: MIT
#include "tools/workbook/peer_csv.h"

#include <cstdlib>
#include <map>
#include <set>

#include "tools/workbook/progress.h"
#include "tools/workbook/text.h"

namespace wbcli {

double PeerRow::rate(const std::string& unit) const {
  if (unit == "GB/s") return gbps;
  if (unit == "GFLOP/s") return gflops;
  return 0;
}

std::vector<std::string> split_csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {  // a file written on Windows
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<PeerRow> parse_peer_csv(const std::string& text, std::string* error) {
  std::vector<PeerRow> rows;
  const std::vector<std::string> lines = split_lines(text);
  if (lines.empty()) {
    *error = "it is empty";
    return rows;
  }
  std::map<std::string, std::size_t> column;
  const std::vector<std::string> header = split_csv_fields(lines[0]);
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* needed : {"device", "phase", "op", "shape", "median_ms", "launchers"}) {
    if (column.count(needed) == 0) {
      *error = std::string("it has no ") + needed + " column (not a peer_pytorch.py CSV?)";
      return rows;
    }
  }
  for (std::size_t n = 1; n < lines.size(); ++n) {
    if (trim(lines[n]).empty()) continue;
    const std::vector<std::string> f = split_csv_fields(lines[n]);
    if (f.size() != header.size()) continue;  // a torn line: the rest still count
    auto at = [&](const char* name) {
      const auto found = column.find(name);
      return found == column.end() ? std::string() : f[found->second];
    };
    PeerRow row;
    row.device = at("device");
    row.date = at("date");
    row.peer = at("peer");
    row.id = at("id");
    row.op = at("op");
    row.shape = at("shape");
    row.dtype = at("dtype");
    row.note = at("note");
    row.phase = static_cast<int>(parse_number(at("phase")).value_or(-1));
    row.median_ms = parse_number(at("median_ms")).value_or(0);
    row.gbps = parse_number(at("gbps")).value_or(0);
    row.gflops = parse_number(at("gflops")).value_or(0);
    for (const std::string& launcher : split(at("launchers"), ' '))
      if (!launcher.empty()) row.launchers.push_back(launcher);
    rows.push_back(row);
  }
  if (rows.empty()) *error = "it has no rows";
  return rows;
}

std::string default_peer_csv_path(const std::string& build_dir) {
  return join_path(join_path(state_dir(build_dir), "bench"), "peer_pytorch.csv");
}

std::string peer_csv_path(const std::string& build_dir) {
  const char* env = std::getenv(kPeerCsvEnv);
  return env != nullptr && *env != '\0' ? std::string(env) : default_peer_csv_path(build_dir);
}

PeerLookup lookup_peer(const std::optional<std::string>& text, const std::string& path, const std::string& device,
                       int phase) {
  PeerLookup lookup;
  const std::string how = "python3 tools/peer_pytorch.py --phase " + std::to_string(phase) + " --out " + path;
  if (!text) {
    lookup.message = "No PyTorch peer for this GPU yet: `" + how + "` (where torch imports) adds a PyTorch bar.";
    return lookup;
  }
  std::string error;
  const std::vector<PeerRow> all = parse_peer_csv(*text, &error);
  if (!error.empty()) {
    lookup.message = "The PyTorch peer CSV " + path + " is left out: " + error + "; `" + how + "` rewrites it.";
    return lookup;
  }
  std::set<std::string> devices;
  for (const PeerRow& row : all) {
    devices.insert(row.device);
    if (row.device == device && row.phase == phase) lookup.rows.push_back(row);
  }
  if (lookup.rows.empty()) {
    std::vector<std::string> names(devices.begin(), devices.end());
    lookup.message = path + " has no phase " + std::to_string(phase) + " rows for " + device + " (it holds " +
                     join(names, ", ") + "): `" + how + "` on this GPU adds them.";
    return lookup;
  }
  const PeerRow& first = lookup.rows.front();
  lookup.message = "PyTorch peer: " + path + " (" + first.peer + ", " + first.date + ", " +
                   std::to_string(lookup.rows.size()) + " rows for phase " + std::to_string(phase) + ")";
  return lookup;
}

const PeerRow* find_peer_row(const std::vector<PeerRow>& rows, const LessonRow& lesson) {
  for (const PeerRow& row : rows) {
    if (row.device != lesson.device || row.shape != lesson.problem) continue;
    for (const std::string& launcher : row.launchers)
      if (launcher == lesson.name) return &row;
  }
  return nullptr;
}

std::optional<double> peer_score(const PeerRow& peer, const LessonRow& lesson) {
  const double rate = peer.rate(lesson.rate_unit);
  if (rate <= 0 || lesson.rate <= 0 || !lesson.has_score()) return std::nullopt;
  return lesson.score() * rate / lesson.rate;
}

}  // namespace wbcli
