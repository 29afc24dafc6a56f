#include "text.hpp"

#include <cctype>

namespace poreplab {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string show(const nlohmann::json& v) {
  using t = nlohmann::json::value_t;
  switch (v.type()) {
    case t::string: return "string " + v.dump();
    case t::boolean: return "boolean " + v.dump();
    case t::null: return "null";
    case t::array: return "an array";
    case t::object: return "an object";
    default: return "number " + v.dump();
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace poreplab
