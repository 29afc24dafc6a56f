#include "poreplab/json_input.hpp"

#include <stdexcept>
#include <string>

namespace poreplab {

std::string json_reason(const std::exception& e) {
  std::string what = e.what();
  if (const auto p = what.find("] "); what.rfind("[json.exception.", 0) == 0 && p != std::string::npos)
    what = what.substr(p + 2);
  return what;
}

nlohmann::json parse_json(std::string_view text, const std::string& source) {
  // nlohmann's lexer takes a NUL byte for the end of the input, so a file with NULs
  // appended (a damaged write, a padded copy) would parse as its valid prefix. JSON text
  // holds no raw NUL.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw std::runtime_error(source + ": a NUL byte at offset " + std::to_string(nul) +
                             " (JSON text holds none: the file is damaged or not JSON)");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(source + ": " + json_reason(e));
  }
}

}  // namespace poreplab
