#pragma once
// Small text helpers of the command line's messages: lists and JSON values as words.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace poreplab {

// The items separated by `sep`: {"a", "b"} -> "a, b".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// A JSON value as a validation message names what it got: `string "x"`, `number 3`,
// `boolean true`, `null`, `an array`, `an object`.
std::string show(const nlohmann::json& v);

// s with ASCII letters in lower case (for case-insensitive name matching).
std::string lower(std::string s);

}  // namespace poreplab
