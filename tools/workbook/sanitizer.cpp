// SPDX-License-Identifier: MIT
#include "tools/workbook/sanitizer.h"

#include <map>
#include <optional>
#include <regex>
#include <tuple>

#include "tools/workbook/lesson_csv.h"
#include "tools/workbook/text.h"

namespace wbcli {
namespace {

// "========= " prefix, then the text; indented detail lines keep their leading spaces.
bool strip_prefix(const std::string& line, std::string* rest) {
  const std::string::size_type start = line.find("=========");
  if (start == std::string::npos) return false;
  std::string::size_type i = start;
  while (i < line.size() && line[i] == '=') ++i;
  if (i < line.size() && line[i] == ' ') ++i;
  *rest = line.substr(i);
  return true;
}

long long number_of(const std::string& text) {
  return static_cast<long long>(parse_number(text).value_or(0));
}

Dim3Text parse_dim3(const std::string& text) {
  Dim3Text d;
  const std::vector<std::string> parts = split(text, ',');
  if (parts.size() != 3) return d;
  d.x = static_cast<long>(number_of(parts[0]));
  d.y = static_cast<long>(number_of(parts[1]));
  d.z = static_cast<long>(number_of(parts[2]));
  d.present = true;
  return d;
}

// "at kernel(args)+0x70 in /path/file.cu:42" (current) or "at 0x70 in /path/file.cu:42:kernel(args)"
// (older releases); without -lineinfo there is no "in file:line".
void parse_location(const std::string& text, std::string* kernel, std::string* file, int* line) {
  static const std::regex current(R"(^(.*)\+0x[0-9a-fA-F]+ in (.+):([0-9]+)$)");
  static const std::regex older(R"(^0x[0-9a-fA-F]+ in (.+?):([0-9]+):(.*)$)");
  static const std::regex no_line(R"(^(.*)\+0x[0-9a-fA-F]+$)");
  std::smatch m;
  if (std::regex_match(text, m, current)) {
    *kernel = m[1];
    *file = m[2];
    *line = static_cast<int>(number_of(m[3]));
  } else if (std::regex_match(text, m, older)) {
    *file = m[1];
    *line = static_cast<int>(number_of(m[2]));
    *kernel = m[3];
  } else if (std::regex_match(text, m, no_line)) {
    *kernel = m[1];
  }
}

std::string who(const SanitizerFinding& f) {
  if (!f.thread.present) return "a thread";
  auto one_d = [](const Dim3Text& d) { return d.y == 0 && d.z == 0; };
  auto text = [&](const Dim3Text& d) {
    return one_d(f.thread) && one_d(f.block)
               ? std::to_string(d.x)
               : "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
  };
  return "thread " + text(f.thread) + " of block " + text(f.block);
}

std::string where(const std::string& file, int line) {
  if (file.empty()) return "(no line number: build with -lineinfo)";
  return base_name(file) + ":" + std::to_string(line);
}

std::string bytes(long long count) {
  return std::to_string(count) + (count == 1 ? " byte" : " bytes");
}

// A line of its own (not indented): the headline of a finding, or nothing for banners, summaries, leak
// lines and the program's own messages.
std::optional<SanitizerFinding> parse_headline(const std::string& body) {
  static const std::regex access(
      R"(^Invalid __(global|shared|local)__ (read|write|atomic)[a-z ]* of size ([0-9,]+) bytes?)");
  static const std::regex uninitialized(
      R"(^Uninitialized __(global|shared|local)__ memory (read|write) of size ([0-9,]+) bytes?)");
  static const std::regex race(
      R"(^(Error|Warning): Race reported between (Read|Write) access at (.*?)( \[([0-9,]+) hazards?\])?$)");
  static const std::regex api(R"re(^Program hit (\w+) \(error [0-9]+\) due to "([^"]*)" on CUDA API call to (\w+))re");
  static const std::regex hardware(
      R"(^(Warp Illegal Address|Warp Misaligned Address|Out-of-range Shared or Local Address|Warp Illegal Instruction|Warp Out-of-range Address|Illegal Instruction|Misaligned Shared or Local Address))");
  SanitizerFinding f;
  f.headline = body;
  std::smatch m;
  if (std::regex_search(body, m, access)) {
    f.kind = FindingKind::InvalidAccess;
    f.space = m[1];
    f.access = m[2] == "atomic" ? "write" : std::string(m[2]);
    f.size_bytes = static_cast<long>(number_of(m[3]));
  } else if (std::regex_search(body, m, uninitialized)) {
    f.kind = FindingKind::Uninitialized;
    f.space = m[1];
    f.access = m[2];
    f.size_bytes = static_cast<long>(number_of(m[3]));
  } else if (std::regex_search(body, m, race)) {
    f.kind = FindingKind::Race;
    f.warning = m[1] == "Warning";
    f.access = m[2] == "Read" ? "read" : "write";
    f.space = "shared";
    parse_location(m[3], &f.kernel, &f.file, &f.line);
    if (m[5].matched) f.hazards = static_cast<long>(number_of(m[5]));
  } else if (starts_with(body, "Barrier error detected")) {
    f.kind = FindingKind::Barrier;
  } else if (std::regex_search(body, m, api)) {
    f.kind = FindingKind::ApiError;
    f.error_name = m[1];
    f.error_text = m[2];
    f.api_call = m[3];
  } else if (std::regex_search(body, m, hardware)) {
    f.kind = FindingKind::HardwareException;
  } else {
    return std::nullopt;
  }
  return f;
}

// An indented line under a headline: where, which thread, which address, the other side of a race.
void parse_detail(const std::string& body, SanitizerFinding* finding) {
  static const std::regex race_other(R"(^and (Read|Write) access at (.*?)( \[([0-9,]+) hazards?\])?$)");
  static const std::regex by_thread(R"(^by thread \(([0-9, ]+)\) in block \(([0-9, ]+)\))");
  static const std::regex address(R"(^Address 0x[0-9a-fA-F]+ is (out of bounds|misaligned))");
  static const std::regex nearest(
      R"(^and is (([0-9,]+) bytes? (after|before)|inside) the nearest allocation at 0x[0-9a-fA-F]+ of size ([0-9,]+) bytes?)");
  SanitizerFinding& f = *finding;
  std::smatch m;
  if (starts_with(body, "at ") && f.kind != FindingKind::Race) {
    parse_location(body.substr(3), &f.kernel, &f.file, &f.line);
  } else if (std::regex_search(body, m, by_thread)) {
    f.thread = parse_dim3(m[1]);
    f.block = parse_dim3(m[2]);
  } else if (std::regex_search(body, m, address)) {
    f.out_of_bounds = m[1] == "out of bounds";
    f.misaligned = m[1] == "misaligned";
  } else if (std::regex_search(body, m, nearest)) {
    if (m[1] == "inside") {
      f.relation = "inside";
    } else {
      f.distance_bytes = number_of(m[2]);
      f.relation = m[3];
    }
    f.allocation_bytes = number_of(m[4]);
  } else if (std::regex_search(body, m, race_other) && f.kind == FindingKind::Race && f.other_access.empty()) {
    f.other_access = m[1] == "Read" ? "read" : "write";
    std::string kernel;
    parse_location(m[2], &kernel, &f.other_file, &f.other_line);
    if (m[4].matched) f.hazards += static_cast<long>(number_of(m[4]));
  }
}

}  // namespace

std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& text) {
  std::vector<SanitizerFinding> findings;
  SanitizerFinding* current = nullptr;  // the finding the indented lines below belong to
  for (const std::string& raw : split_lines(text)) {
    std::string rest;
    if (!strip_prefix(raw, &rest)) continue;
    const bool indented = !rest.empty() && (rest[0] == ' ' || rest[0] == '\t');
    const std::string body = trim(rest);
    if (indented) {
      if (current != nullptr) parse_detail(body, current);
      continue;
    }
    current = nullptr;
    if (std::optional<SanitizerFinding> finding = parse_headline(body)) {
      findings.push_back(*finding);
      current = &findings.back();
    }
  }
  return findings;
}

std::vector<SanitizerFinding> fold_findings(const std::vector<SanitizerFinding>& findings) {
  // Once memcheck stops a kernel at a bad access, every later CUDA call fails with
  // cudaErrorLaunchFailure: one finding says so, instead of one per call.
  bool device_finding = false;
  for (const SanitizerFinding& f : findings) device_finding = device_finding || f.kind != FindingKind::ApiError;
  std::vector<SanitizerFinding> folded;
  std::size_t cascade = findings.size();
  std::map<std::tuple<int, std::string, std::string, int, std::string, int, std::string>, std::size_t> index;
  for (const SanitizerFinding& f : findings) {
    if (device_finding && f.kind == FindingKind::ApiError && f.error_name == "cudaErrorLaunchFailure") {
      if (cascade == findings.size()) {
        cascade = folded.size();
        folded.push_back(f);
        folded.back().api_call = "cascade";
      } else {
        folded[cascade].repeats += 1;
      }
      continue;
    }
    const auto key = std::make_tuple(static_cast<int>(f.kind), f.access, f.file, f.line, f.other_file, f.other_line,
                                     f.error_name + f.api_call);
    const auto found = index.find(key);
    if (found == index.end()) {
      index[key] = folded.size();
      folded.push_back(f);
    } else {
      folded[found->second].repeats += 1;
      folded[found->second].hazards += f.hazards;
    }
  }
  return folded;
}

std::string indexed_array_name(const std::string& source_line, bool write) {
  // Cut comments, then find the assignment (=, +=, ... but not ==, <=, >=, !=).
  std::string code = source_line.substr(0, source_line.find("//"));
  std::string::size_type assign = std::string::npos;
  for (std::string::size_type i = 0; i < code.size(); ++i) {
    if (code[i] != '=') continue;
    const char before = i > 0 ? code[i - 1] : ' ';
    const char after = i + 1 < code.size() ? code[i + 1] : ' ';
    if (after == '=' || before == '=' || before == '<' || before == '>' || before == '!') {
      if (after == '=') ++i;
      continue;
    }
    assign = i;
    break;
  }
  static const std::regex indexed(R"(([A-Za-z_][A-Za-z_0-9]*)\s*\)?\s*\[)");
  auto names_in = [](const std::string& part) {
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(part.begin(), part.end(), indexed); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      bool seen = false;
      for (const std::string& n : names) seen = seen || n == name;
      if (!seen) names.push_back(name);
    }
    return names;
  };
  if (write) {
    if (assign == std::string::npos) return "";
    const std::vector<std::string> left = names_in(code.substr(0, assign));
    return left.empty() ? "" : left.back();  // the one nearest the assignment
  }
  std::vector<std::string> right = names_in(assign == std::string::npos ? code : code.substr(assign + 1));
  if (right.empty()) return "";
  if (right.size() > 3) right.resize(3);
  return join(right, "` or `");
}

namespace {

// An out-of-bounds or misaligned access: where it fell (past the end, before the start, outside a tile,
// nowhere) and the usual bug behind each.
std::string explain_invalid_access(const SanitizerFinding& f, const std::string& verb, const std::string& array,
                                   const std::string& array_text) {
  std::string sentence;
  const std::string space = f.space == "shared" ? " shared-memory" : f.space == "local" ? " local" : "";
  if (f.misaligned) {
    sentence = who(f) + " " + verb + " " + bytes(f.size_bytes) + " at a misaligned address (not a multiple of " +
               bytes(f.size_bytes) + ")" + (array.empty() ? "" : " through" + array_text) + " at " +
               where(f.file, f.line) +
               ": a vector access (float4) needs an aligned base and an index that is a "
               "multiple of its width";
  } else if (f.relation == "after") {
    sentence = who(f) + " " + verb + " " + bytes(f.size_bytes) + " past the end of" +
               (array.empty() ? space + " an array" : array_text) + " at " + where(f.file, f.line) + " (" +
               bytes(f.distance_bytes) + " after the end of an allocation of " + bytes(f.allocation_bytes) +
               "): is a bounds check like `if (i < n)` missing, or is the grid larger than the data?";
  } else if (f.relation == "before") {
    sentence = who(f) + " " + verb + " " + bytes(f.size_bytes) + " before the start of" +
               (array.empty() ? space + " an array" : array_text) + " at " + where(f.file, f.line) + " (" +
               bytes(f.distance_bytes) + " before an allocation of " + bytes(f.allocation_bytes) +
               "): is an index negative, e.g. i - 1 at i = 0?";
  } else if (f.space == "shared") {
    sentence = who(f) + " " + verb + " " + bytes(f.size_bytes) + " outside the shared-memory array" + array_text +
               " at " + where(f.file, f.line) + ": is the index larger than the tile it was declared with?";
  } else {
    sentence = who(f) + " " + verb + " " + bytes(f.size_bytes) + (array.empty() ? "" : " through" + array_text) +
               " at an address no allocation covers, at " + where(f.file, f.line) +
               ": a wild or host pointer, or an index far out of range?";
  }
  return sentence;
}

// A race on shared memory: the two accesses, and the barrier (block) or __syncwarp (warp) between them.
std::string explain_race(const SanitizerFinding& f) {
  std::string sentence;
  const std::string first = f.access + " at " + where(f.file, f.line);
  const std::string second =
      (f.other_access.empty() ? std::string("access") : f.other_access) + " at " + where(f.other_file, f.other_line);
  const std::string count = f.hazards > 0 ? " (" + std::to_string(f.hazards) + " hazards)" : "";
  // racecheck reports a race between threads of one warp as a warning: the warp-synchronous step
  // that happens to run in lockstep today, with nothing (no __syncwarp) making it so.
  if (f.warning)
    sentence = std::string("threads of one warp race on shared memory: a ") + first + " and a " + second +
               " touch the same address with no __syncwarp() between them" + count +
               ": the warp runs in lockstep only by chance; add __syncwarp() between the warp's steps";
  else
    sentence = std::string("threads of one block race on shared memory: a ") + first + " and a " + second +
               " touch the same address with no __syncthreads() between them" + count +
               ": add a barrier after the writes and before the reads (and before the next overwrite)";
  return sentence;
}

}  // namespace

std::string explain_finding(const SanitizerFinding& f, const SourceLookup& lookup) {
  const std::string source = f.file.empty() || !lookup ? "" : lookup(f.file, f.line);
  const bool write = f.access == "write";
  const std::string verb = write ? "wrote" : "read";
  std::string array = source.empty() ? "" : indexed_array_name(source, write);
  const std::string array_text = array.empty() ? "" : " `" + array + "`";
  std::string sentence;
  switch (f.kind) {
    case FindingKind::InvalidAccess:
      sentence = explain_invalid_access(f, verb, array, array_text);
      break;
    case FindingKind::Uninitialized:
      sentence = who(f) + " read " + bytes(f.size_bytes) + " of" + (array.empty() ? " global memory" : array_text) +
                 " that nothing had written yet, at " + where(f.file, f.line) +
                 ": is an earlier step (a copy, a kernel) missing or too short?";
      break;
    case FindingKind::Race:
      sentence = explain_race(f);
      break;
    case FindingKind::Barrier:
      sentence = "a __syncthreads() at " + where(f.file, f.line) + " is reached by only some threads of " +
                 (f.block.present ? "block " + std::to_string(f.block.x) : std::string("a block")) +
                 ": a barrier inside a branch or after an early return hangs or corrupts the block; move it "
                 "where every thread reaches it";
      break;
    case FindingKind::HardwareException:
      sentence = who(f) + " raised \"" + f.headline + "\" at " + where(f.file, f.line) +
                 ": the kernel touched memory it must not (an index out of range or a bad pointer)";
      break;
    case FindingKind::ApiError:
      if (f.api_call == "cascade") {
        return "after that, " + std::to_string(f.repeats) + " CUDA call" + (f.repeats == 1 ? "" : "s") +
               " failed with cudaErrorLaunchFailure: the kernel was stopped at the bad access above, so fix that "
               "first";
      }
      sentence = "the CUDA call " + f.api_call + " failed with " + f.error_name + " (" + f.error_text + ")";
      if (f.error_name == "cudaErrorInvalidConfiguration")
        sentence += ": the launch configuration is invalid (more than 1024 threads per block, or a grid of 0?)";
      break;
  }
  if (f.repeats > 1) sentence += "; " + std::to_string(f.repeats - 1) + " more reports at the same line";
  if (f.kind == FindingKind::InvalidAccess || f.kind == FindingKind::Uninitialized || f.kind == FindingKind::Barrier)
    if (!f.kernel.empty()) sentence += " [in " + short_kernel_name(f.kernel) + "]";
  return sentence;
}

}  // namespace wbcli
