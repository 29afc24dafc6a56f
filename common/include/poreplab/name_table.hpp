#pragma once
// An enum's names, spelled once: one table gives the text of each value, parses text back
// (with one error listing the valid names) and lists the names for knobs and help.
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab {

template <class E>
struct named {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
struct name_table {
  std::string_view what;  // "producer placement": the error says "unknown producer placement 'x'"
  std::array<named<E>, N> entries;

  constexpr std::string_view name(E v) const {
    for (const auto& e : entries)
      if (e.value == v) return e.name;
    return {};
  }
  // std::invalid_argument "unknown <what> '<s>' (valid: a, b, c)".
  E parse(std::string_view s) const {
    for (const auto& e : entries)
      if (e.name == s) return e.value;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(s) + "' (valid: " + valid() + ")");
  }
  constexpr bool has(std::string_view s) const {
    for (const auto& e : entries)
      if (e.name == s) return true;
    return false;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries) out.emplace_back(e.name);
    return out;
  }
  std::string valid() const {
    std::string out;
    for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
    return out;
  }
};

template <class E, std::size_t N>
name_table(std::string_view, std::array<named<E>, N>) -> name_table<E, N>;

}  // namespace poreplab
