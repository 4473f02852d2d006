// SPDX-License-Identifier: MIT
// The PyTorch peer: the result CSV (common/result_csv.h) tools/peer_pytorch.py writes (one row per op
// and shape, measured on one GPU, variant "pytorch <version>"), found beside `workbook bench`'s own output or through
// $WORKBOOK_PEER_CSV, matched to the lessons' results by launcher and problem, and put in each lesson's own units.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/workbook/lesson_csv.h"

namespace wbcli {

struct PeerRow {
  std::string device, date, peer, id, op, shape, dtype, note;  // peer: "pytorch 2.5.1"
  int phase = -1;
  double median_ms = 0, gbps = 0, gflops = 0;  // 0: not measured in that unit
  std::vector<std::string> launchers;          // the lessons' and benchmarks' launchers it stands beside
  wb::ResultRow source;                        // the row as the peer script wrote it

  // Its rate in a lesson's unit ("GB/s" or "GFLOP/s"); 0 when it has none in that unit.
  double rate(const std::string& unit) const;
};

// The peer's rows of a result CSV (its variant names the peer: not learner, solution or library); a
// file that is not a result CSV, or has no peer rows, sets *error.
std::vector<PeerRow> parse_peer_csv(const std::string& text, std::string* error);

inline constexpr const char* kPeerCsvEnv = "WORKBOOK_PEER_CSV";
std::string default_peer_csv_path(const std::string& build_dir);  // <build>/workbook-state/bench/peer_pytorch.csv
std::string peer_csv_path(const std::string& build_dir);          // $WORKBOOK_PEER_CSV when set, else the default

// The peer rows `workbook bench phaseN` can use, and the one line it prints about them.
struct PeerLookup {
  std::vector<PeerRow> rows;  // this phase, this GPU
  std::string message;        // where they came from, or how to produce them
};
// `text`: the file's content, nullopt when there is no file at `path`.
PeerLookup lookup_peer(const std::optional<std::string>& text, const std::string& path, const std::string& device,
                       int phase);

// The row measured on the lesson's GPU whose launchers include the lesson's and whose shape is the
// lesson's problem ("n=64M", "M=N=K=4096"); nullptr when there is none.
const PeerRow* find_peer_row(const std::vector<PeerRow>& rows, const LessonRow& lesson);

// The peer's speed in the lesson's score units (LessonRow::score: % of the library measured in the
// lesson's run, or % of the peak). Both are proportional to the rate, so the peer's score is the
// lesson's score scaled by the ratio of the rates. nullopt when the peer has no rate in that unit.
std::optional<double> peer_score(const PeerRow& peer, const LessonRow& lesson);

}  // namespace wbcli
