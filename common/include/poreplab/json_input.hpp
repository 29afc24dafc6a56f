#pragma once
// JSON read from files: every problem is reported as "<source>: <reason>", with
// nlohmann's "[json.exception.parse_error.101] " tag dropped and numbers out of range
// (1e400, which the parser refuses with an out_of_range exception) included.
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace poreplab {

// Throws std::runtime_error "<source>: <reason>", also for a NUL byte anywhere (which
// nlohmann would take for the end of the text, accepting what precedes it).
nlohmann::json parse_json(std::string_view text, const std::string& source);

// The exception's message without nlohmann's "[json.exception.<kind>.<id>] " prefix.
std::string json_reason(const std::exception& e);

}  // namespace poreplab
