#pragma once
// Small text helpers of messages, tables and reports: lists, JSON values, sizes and
// numbers as words.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace poreplab {

// The items separated by `sep`: {"a", "b"} -> "a, b".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// Names as an error message lists them: at most `shown` of them, each cut to `longest`
// bytes, then "and N more": {"a", "b", "c"} with shown 2 -> "a, b and 1 more". An error
// line stays short however many names (or how long a name) the input holds. Paths the
// user gave are listed whole (longest = npos).
inline constexpr std::size_t kNamesShown = 5;
inline constexpr std::size_t kNameLongest = 64;
std::string names_text(const std::vector<std::string>& names, std::size_t shown = kNamesShown,
                       std::size_t longest = kNameLongest);

// A JSON value as a validation message names what it got: `string "x"`, `number 3`,
// `boolean true`, `null`, `an array`, `an object`.
std::string show(const nlohmann::json& v);

// s with ASCII letters in lower case (for case-insensitive name matching).
std::string lower(std::string s);

// "2KiB", "8MiB", "32GiB", "1TiB" or a plain byte count; nullopt when not of that form.
std::optional<std::uint64_t> parse_size(std::string_view text);
std::string format_size(std::uint64_t bytes);  // 2048 -> "2KiB", 3000 -> "3000B"

// A count with an optional binary multiplier: "64Ki", "1Mi", "2Gi" or a plain integer;
// nullopt when not of that form or above 2^64 - 1.
std::optional<std::uint64_t> parse_count(std::string_view text);
std::string format_count(std::uint64_t n);  // 1048576 -> "1Mi", 1000 -> "1000"

// Short numeric text with `digits` significant digits ("712.3", "1.89e+09").
std::string format_number(double v, int digits = 4);

// A duration in the unit that reads best, 3 significant digits: "850 us", "12.5 s",
// "35.2 min", "2.95 h", "4.1 days".
std::string format_seconds(double s);

}  // namespace poreplab
