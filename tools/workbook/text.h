// SPDX-License-Identifier: MIT
// Small string and file helpers the workbook tool's modules share.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wbcli {

std::vector<std::string> split(const std::string& text, char separator);
std::vector<std::string> split_lines(const std::string& text);
std::string trim(const std::string& text);
// "void ns::<unnamed>::my_kernel<float>(const float*, int)" -> "ns::my_kernel<float>": a kernel's name as
// compute-sanitizer and ncu print it, without its return type, parameters and anonymous namespace.
std::string short_kernel_name(const std::string& name);
bool starts_with(const std::string& text, const std::string& prefix);
bool ends_with(const std::string& text, const std::string& suffix);
bool contains(const std::string& text, const std::string& part);
std::string join(const std::vector<std::string>& parts, const std::string& separator);
// "1,234" -> 1234; nullopt when the text is not a number.
std::optional<double> parse_number(const std::string& text);

std::optional<std::string> read_file(const std::string& path);
bool write_file(const std::string& path, const std::string& content);
bool file_exists(const std::string& path);
bool is_directory(const std::string& path);
bool make_directories(const std::string& path);
std::string parent_directory(const std::string& path);
std::string base_name(const std::string& path);
std::string join_path(const std::string& directory, const std::string& name);

// The current UTC time as 2026-11-22T23:54:00Z.
std::string utc_timestamp();

}  // namespace wbcli
