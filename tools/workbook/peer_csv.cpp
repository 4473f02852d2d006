// SPDX-License-Identifier: MIT
#include "tools/workbook/peer_csv.h"

#include <cstdlib>
#include <set>

#include "tools/workbook/progress.h"
#include "tools/workbook/text.h"

namespace wbcli {

double PeerRow::rate(const std::string& unit) const {
  if (unit == "GB/s") return gbps;
  if (unit == "GFLOP/s") return gflops;
  return 0;
}

std::vector<PeerRow> parse_peer_csv(const std::string& text, std::string* error) {
  std::vector<PeerRow> rows;
  std::string why;
  for (const wb::ResultRow& r : wb::parse_result_csv(text, &why)) {
    if (r.variant == "learner" || r.variant == "solution" || r.variant == "library") continue;
    PeerRow row;
    row.source = r;
    row.device = r.device;
    row.date = r.date;
    row.peer = r.variant;
    row.id = r.id;
    row.op = r.launcher;
    row.shape = r.shape;
    row.dtype = r.dtype;
    row.note = r.note;
    row.phase = r.phase();
    row.median_ms = r.median_ms;
    // The rate as written in its own unit; the other unit from the counted work, when counted.
    row.gbps = r.rate_unit == "GB/s" ? r.rate : r.rate_in("GB/s");
    row.gflops = r.rate_unit == "GFLOP/s" ? r.rate : r.rate_in("GFLOP/s");
    for (const std::string& launcher : split(r.beside, ' '))
      if (!launcher.empty()) row.launchers.push_back(launcher);
    rows.push_back(row);
  }
  if (rows.empty()) *error = why.empty() ? "it has no peer rows (not a peer_pytorch.py CSV?)" : why;
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
