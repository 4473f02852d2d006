// SPDX-License-Identifier: MIT
#include "tools/workbook/text.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

namespace wbcli {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const std::string::size_type end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& text) {
  const char* space = " \t\r\n";
  const std::string::size_type first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

std::string short_kernel_name(const std::string& name) {
  std::string shortened = name.substr(0, name.find('('));
  if (starts_with(shortened, "void ")) shortened = shortened.substr(5);
  const std::string anonymous = "<unnamed>::";
  for (std::string::size_type at = shortened.find(anonymous); at != std::string::npos; at = shortened.find(anonymous))
    shortened.erase(at, anonymous.size());
  return trim(shortened);
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? separator : "") + parts[i];
  return text;
}

std::optional<double> parse_number(const std::string& text) {
  std::string digits;
  for (char c : trim(text))
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(digits.c_str(), &end);
  if (errno != 0 || end == nullptr || *end != '\0') return std::nullopt;
  return value;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

bool write_file(const std::string& path, const std::string& content) {
  make_directories(parent_directory(path));
  // Write beside the target and rename, so an interrupted write never leaves half a file.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << content;
    if (!out.flush()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool make_directories(const std::string& path) {
  if (path.empty() || is_directory(path)) return true;
  if (!make_directories(parent_directory(path))) return false;
  return ::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}

std::string parent_directory(const std::string& path) {
  const std::string::size_type slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const std::string::size_type slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join_path(const std::string& directory, const std::string& name) {
  if (directory.empty() || (!name.empty() && name[0] == '/')) return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

std::string utc_timestamp() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace wbcli
