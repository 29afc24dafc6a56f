#include "poreplab/json_input.hpp"

#include <stdexcept>

namespace poreplab {

std::string json_reason(const std::exception& e) {
  std::string what = e.what();
  if (const auto p = what.find("] "); what.rfind("[json.exception.", 0) == 0 && p != std::string::npos)
    what = what.substr(p + 2);
  return what;
}

nlohmann::json parse_json(std::string_view text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(source + ": " + json_reason(e));
  }
}

}  // namespace poreplab
