// SPDX-License-Identifier: MIT
// compute-sanitizer output (memcheck, racecheck, initcheck, synccheck) turned into one plain
// sentence per finding that points at the line, e.g. "thread 37 of block 2 wrote 4 bytes past the
// end of `out` at 02_vector_add.cu:42". Line numbers need -lineinfo (common/CMakeLists.txt adds it).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace wbcli {

enum class FindingKind { InvalidAccess, Uninitialized, Race, Barrier, HardwareException, ApiError };

struct Dim3Text {
  long x = 0, y = 0, z = 0;
  bool present = false;
};

struct SanitizerFinding {
  FindingKind kind = FindingKind::InvalidAccess;
  std::string headline;  // the report's first line, without the ========= prefix
  std::string access;    // "read", "write" (or "access" when unknown)
  std::string space;     // "global", "shared", "local"
  long size_bytes = 0;
  std::string kernel, file;
  int line = 0;
  Dim3Text thread, block;
  bool out_of_bounds = false, misaligned = false;
  std::string relation;  // "after", "before", "inside" the nearest allocation; empty if none
  long long distance_bytes = 0, allocation_bytes = 0;
  // Racecheck: the other side of the race.
  std::string other_access, other_file;
  int other_line = 0;
  long hazards = 0;
  bool warning = false;
  // API errors: "cudaErrorInvalidValue", "invalid argument", "cudaMemcpy".
  std::string error_name, error_text, api_call;
  int repeats = 1;  // findings of the same kind at the same line, folded together
};

std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& text);
// Folds findings of the same kind, access and line (one per thread otherwise) into the first one.
std::vector<SanitizerFinding> fold_findings(const std::vector<SanitizerFinding>& findings);

// The array a source line indexes: for a write, the one left of the assignment (`out[i] = ...` ->
// out); for a read, the indexed names on the right ("a" or "a or b"); empty when it cannot tell.
std::string indexed_array_name(const std::string& source_line, bool write);

// (file, line) -> that source line, or "" when unknown; used to name the array.
using SourceLookup = std::function<std::string(const std::string& file, int line)>;
std::string explain_finding(const SanitizerFinding& finding, const SourceLookup& lookup);

}  // namespace wbcli
