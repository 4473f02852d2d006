// SPDX-License-Identifier: MIT
#include "tools/workbook/args.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace wbcli {

bool is_exercise_id(const std::string& text) {
  return text.size() == 4 && std::isdigit(static_cast<unsigned char>(text[0])) && text[1] == '.' &&
         std::isdigit(static_cast<unsigned char>(text[2])) && std::isdigit(static_cast<unsigned char>(text[3]));
}

std::optional<int> parse_phase(const std::string& text) {
  std::string digits;
  if (text.rfind("phase", 0) == 0)
    digits = text.substr(5);
  else if (text.rfind("p", 0) == 0)
    digits = text.substr(1);
  else
    return std::nullopt;
  if (digits.size() != 1 || !std::isdigit(static_cast<unsigned char>(digits[0]))) return std::nullopt;
  return digits[0] - '0';
}

std::string usage_text() {
  return "usage: ./workbook [--build-dir DIR] [VERB ...]\n"
         "  (no verb)                     your progress per phase and the next exercise\n"
         "  list                          every exercise with its state and best measured speed\n"
         "  run N.NN [-- lesson args]     build and run your lesson (e.g. -- --size 16M)\n"
         "  check [N.NN] [--fast]         build and grade one exercise (all without an id): the graded\n"
         "                                test, then its compute-sanitizer runs (memcheck with exact-size\n"
         "                                inputs; racecheck, synccheck where threads share memory); any\n"
         "                                finding fails. --fast: the graded test only, nothing marked\n"
         "                                passed. Without a GPU it compiles your file and shows the\n"
         "                                compiler's errors; grading needs a GPU.\n"
         "  hint [N.NN]                   the next hint: concept, then where to look, then nearly the answer\n"
         "  solution N.NN [--force]       the reference as a diff against your file (after you pass;\n"
         "                                --force: now)\n"
         "  watch [N.NN]                  re-check the exercise each time you save it (r: re-run, h: hint,\n"
         "                                q: quit; without a terminal for keys, Ctrl-C stops it)\n"
         "  reset N.NN | --all [--yes]    restore the untouched exercise file (asks first)\n"
         "  bench phaseN | N.NN [-- args] benchmark your kernels against the references: CSV + SVG plot\n"
         "  profile N.NN                  Nsight Compute metrics of your kernel beside the reference's\n"
         "  doctor                        check the CUDA set-up and name the fix for what is wrong\n"
         "  help                          this text\n"
         "Exit status: 0 success, 1 failed (tests, build, set-up), 2 usage error, 77 no usable GPU.\n";
}

namespace {

struct VerbSpec {
  Verb verb;
  enum class Id { None, Optional, Required } id;
  std::vector<std::string> flags;  // accepted --options
  bool takes_passthrough;
};

const std::map<std::string, VerbSpec>& verbs() {
  static const std::map<std::string, VerbSpec> table = {
      {"status", {Verb::Status, VerbSpec::Id::None, {}, false}},
      {"list", {Verb::List, VerbSpec::Id::None, {}, false}},
      {"run", {Verb::Run, VerbSpec::Id::Required, {}, true}},
      {"check", {Verb::Check, VerbSpec::Id::Optional, {"--fast"}, false}},
      {"hint", {Verb::Hint, VerbSpec::Id::Optional, {}, false}},
      {"solution", {Verb::Solution, VerbSpec::Id::Required, {"--force"}, false}},
      {"watch", {Verb::Watch, VerbSpec::Id::Optional, {}, false}},
      {"reset", {Verb::Reset, VerbSpec::Id::Optional, {"--all", "--yes"}, false}},
      {"bench", {Verb::Bench, VerbSpec::Id::Required, {}, true}},
      {"profile", {Verb::Profile, VerbSpec::Id::Required, {}, false}},
      {"doctor", {Verb::Doctor, VerbSpec::Id::None, {}, false}},
      {"help", {Verb::Help, VerbSpec::Id::None, {}, false}},
  };
  return table;
}

// The verb a typo most likely meant: within two edits (insert, delete, replace) of a verb, or "".
std::string closest_verb(const std::string& word) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& [verb, spec] : verbs()) {
    std::vector<std::size_t> row(verb.size() + 1);
    for (std::size_t j = 0; j <= verb.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= verb.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == verb[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    if (row[verb.size()] < best_distance) {
      best_distance = row[verb.size()];
      best = verb;
    }
  }
  return best;
}

ParsedCommand usage_error(const std::string& why) {
  return ParsedCommand{std::nullopt, why};
}

// The words of the command line apart from the options every verb shares (--build-dir, --help) and the
// arguments after --, which go into `command`. Returns the usage error, or "".
std::string split_words(const std::vector<std::string>& arguments, Command* command, std::vector<std::string>* words,
                        bool* passthrough) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& arg = arguments[i];
    if (*passthrough) {
      command->passthrough.push_back(arg);
    } else if (arg == "--") {
      *passthrough = true;
    } else if (arg == "--build-dir" || arg.rfind("--build-dir=", 0) == 0) {
      if (arg == "--build-dir") {
        if (i + 1 >= arguments.size()) return "--build-dir needs a directory";
        command->build_dir = arguments[++i];
      } else {
        command->build_dir = arg.substr(12);
      }
      if (command->build_dir.empty()) return "--build-dir needs a directory";
    } else if (arg == "-h" || arg == "--help") {
      command->verb = Verb::Help;
      return "";
    } else {
      words->push_back(arg);
    }
  }
  return "";
}

// One --option after the verb: one of the verb's own, or a usage error naming where it belongs.
std::string apply_option(const VerbSpec& spec, const std::string& verb, const std::string& word, Command* command) {
  bool known = false;
  for (const std::string& flag : spec.flags) known = known || flag == word;
  if (!known && spec.takes_passthrough)
    return "workbook " + verb + " has no option " + word + "; the program's own options go after --, " +
           (verb == "run" ? "e.g. ./workbook run 0.01 -- --size 16M" : "e.g. ./workbook bench phase1 -- --sizes 4096");
  if (!known) return "workbook " + verb + " has no option " + word;
  if (word == "--fast") command->fast = true;
  if (word == "--force") command->force = true;
  if (word == "--all") command->all = true;
  if (word == "--yes") command->yes = true;
  return "";
}

// One word after the verb that is not an option: the exercise id (or bench's phase).
std::string apply_operand(const VerbSpec& spec, const std::string& verb, const std::string& word, Command* command) {
  if (!command->exercise.empty() || command->phase >= 0)
    return "workbook " + verb + " takes one exercise, got '" + word + "' as well";
  if (spec.verb == Verb::Bench) {
    if (const std::optional<int> phase = parse_phase(word)) {
      command->phase = *phase;
      return "";
    }
    if (!is_exercise_id(word))
      return "workbook bench needs a phase (phase1) or an exercise id (1.03), got '" + word + "'";
    command->exercise = word;
    return "";
  }
  if (spec.id == VerbSpec::Id::None) return "workbook " + verb + " takes no exercise, got '" + word + "'";
  if (!is_exercise_id(word))
    return "'" + word + "' is not an exercise id: ids look like 0.01 or 1.03 (see: ./workbook list)";
  command->exercise = word;
  return "";
}

// What the whole command must hold once every word is read: what the verb requires, nothing it refuses.
std::string check_complete(const VerbSpec& spec, const std::string& verb, const Command& command, bool passthrough) {
  if (passthrough && !spec.takes_passthrough) return "workbook " + verb + " takes no arguments after --";
  if (spec.verb == Verb::Bench && command.exercise.empty() && command.phase < 0)
    return "workbook bench needs a phase (phase1) or an exercise id (1.03)";
  if (spec.id == VerbSpec::Id::Required && spec.verb != Verb::Bench && command.exercise.empty())
    return "workbook " + verb + " needs an exercise id, e.g. workbook " + verb + " 0.01";
  if (spec.verb == Verb::Reset) {
    if (command.all && !command.exercise.empty()) return "workbook reset takes an id or --all, not both";
    if (!command.all && command.exercise.empty())
      return "workbook reset needs an exercise id (./workbook reset 0.01) or --all";
  }
  return "";
}

}  // namespace

ParsedCommand parse_command_line(const std::vector<std::string>& arguments) {
  Command command;
  std::vector<std::string> words;
  bool passthrough = false;
  if (const std::string error = split_words(arguments, &command, &words, &passthrough); !error.empty())
    return usage_error(error);
  if (command.verb == Verb::Help) return ParsedCommand{command, ""};
  if (words.empty()) {
    if (passthrough) return usage_error("arguments after -- need a verb (run or bench)");
    return ParsedCommand{command, ""};
  }

  const auto found = verbs().find(words[0]);
  if (found == verbs().end()) {
    const std::string guess = closest_verb(words[0]);
    return usage_error("unknown command '" + words[0] + "'" +
                       (guess.empty() ? std::string() : "; did you mean ./workbook " + guess + "?"));
  }
  const VerbSpec& spec = found->second;
  command.verb = spec.verb;
  const std::string& verb = words[0];
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    const std::string error =
        word.rfind("--", 0) == 0 ? apply_option(spec, verb, word, &command) : apply_operand(spec, verb, word, &command);
    if (!error.empty()) return usage_error(error);
  }
  if (const std::string error = check_complete(spec, verb, command, passthrough); !error.empty())
    return usage_error(error);
  return ParsedCommand{command, ""};
}

}  // namespace wbcli
