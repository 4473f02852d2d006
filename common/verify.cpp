// SPDX-License-Identifier: MIT
#include "common/verify.h"

#include <cstdio>
#include <sstream>

namespace wb {
namespace {

std::string format_number(double v) {
  char text[48];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

std::string format_index(std::size_t index, std::size_t cols) {
  if (cols == 0) return "[" + std::to_string(index) + "]";
  return "[" + std::to_string(index / cols) + ", " + std::to_string(index % cols) + "]";
}

void print_mismatch(std::ostringstream& out, const Mismatch& m, std::size_t cols) {
  out << "  " << format_index(m.index, cols) << " expected " << format_number(m.expected) << ", got "
      << (m.untouched ? std::string("untouched (poison)") : format_number(m.got)) << "\n";
}

}  // namespace

namespace detail {

void record_mismatch(CompareReport& report, const Mismatch& m) {
  if (report.bad == 0) report.first_bad = m.index;
  report.last_bad = m.index;
  ++report.bad;
  if (m.untouched) ++report.untouched;
  if (report.first.size() < CompareReport::kShown) {
    report.first.push_back(m);
  } else {
    if (report.last.size() == CompareReport::kShown) report.last.erase(report.last.begin());
    report.last.push_back(m);
  }
}

void finish_report(CompareReport& report) {
  // "Everything from index k on is untouched" is the signature of a grid that is too small.
  if (report.untouched > 0 && report.untouched == report.bad && report.last_bad == report.count - 1 &&
      report.last_bad - report.first_bad + 1 == report.untouched) {
    report.untouched_is_tail = true;
    report.tail_untouched_from = report.first_bad;
  }
}

}  // namespace detail

std::string CompareReport::describe(const std::string& what) const {
  std::ostringstream out;
  if (first.empty() && bad > 0) {
    out << what << ": the output has the wrong number of elements (" << bad << " too many or too few)\n";
    return out.str();
  }
  if (ok()) {
    out << what << ": all " << count << " elements match\n";
    return out.str();
  }
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.3g%%", 100.0 * static_cast<double>(bad) / static_cast<double>(count));
  out << what << ": " << bad << " of " << count << " elements wrong (" << pct << ")";
  if (first_bad > 0) out << "; elements before " << format_index(first_bad, cols) << " are right";
  out << "\n";
  for (const Mismatch& m : first) print_mismatch(out, m, cols);
  if (!last.empty()) {
    if (last.front().index != first.back().index + 1) out << "  ...\n";
    for (const Mismatch& m : last) print_mismatch(out, m, cols);
  }
  out << "  (tolerance: |got - expected| <= " << format_number(tolerance.abs) << " + " << format_number(tolerance.rel)
      << " * |expected|)\n";
  if (untouched == count) {
    out << "Output untouched: no element was written. Is the kernel implemented, and is it launched?\n";
  } else if (untouched_is_tail) {
    out << "Everything from " << format_index(tail_untouched_from, cols)
        << " on was never written: the grid does not cover the whole output (round the block count up, "
           "or loop with a grid stride).\n";
  } else if (untouched > 0) {
    out << untouched << " elements were never written (still poison): some indices are skipped. Check the "
        << "index formula and the bounds check.\n";
  } else if (nan > 0) {
    out << nan << " elements are NaN: the kernel read memory it never initialized or read past the end of an "
        << "input.\n";
  } else {
    out << "Every element was written, but " << bad << " values are wrong: check the arithmetic and which "
        << "input element each thread reads.\n";
  }
  return out.str();
}

std::string CompareReport::reason() const {
  if (ok()) return "";
  if (first.empty()) return "wrong number of elements";
  const std::string of_count = " of " + std::to_string(count);
  if (untouched == count) return "output untouched";
  if (untouched_is_tail) return "untouched from " + format_index(tail_untouched_from, cols) + " on";
  if (untouched > 0) return std::to_string(untouched) + of_count + " elements never written";
  if (nan > 0) return std::to_string(nan) + of_count + " elements NaN";
  return std::to_string(bad) + of_count + " elements wrong";
}

std::string GuardReport::reason() const {
  if (back_damaged > 0 && front_damaged > 0) return "wrote past the end and before the start";
  if (back_damaged > 0) return "wrote past the end";
  if (front_damaged > 0) return "wrote before the start";
  return "";
}

std::string GuardReport::describe(const std::string& what) const {
  std::ostringstream out;
  if (ok()) {
    out << what << ": guard regions intact\n";
    return out.str();
  }
  if (back_damaged > 0) {
    out << what << ": wrote past the end of the output: " << back_damaged
        << " guard elements after the last valid index "
        << (count == 0 ? std::string("(none: n = 0)") : std::to_string(count - 1)) << " changed, the first at index "
        << first_after << ". A thread with i >= n stored anyway: add or fix the bounds check.\n";
  }
  if (front_damaged > 0) {
    out << what << ": wrote before the start of the output: " << front_damaged
        << " guard elements changed, the first at index " << first_before
        << ". An index went negative: check the offset arithmetic.\n";
  }
  return out.str();
}

}  // namespace wb
