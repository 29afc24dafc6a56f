#pragma once
// How a timed labeling was checked against the portable reference, named once for the
// bench output, the records ("verified_by") and the runner's "verified_against".
#include <array>
#include <cstdint>
#include <string>

#include "poreplab/name_table.hpp"

namespace poreplab {

// full: the whole last layer equals the reference's; window: the window's labels equal the
// reference's on the same window; sampled: K nodes recomputed from the parents they read.
enum class check_method { full, window, sampled };
inline constexpr name_table kCheckMethods{"check method", std::array{named<check_method>{check_method::full, "full"},
                                                                      named<check_method>{check_method::window, "window"},
                                                                      named<check_method>{check_method::sampled, "sampled"}}};

struct verification {
  check_method method = check_method::full;
  std::uint64_t nodes = 0;  // sampled: the nodes recomputed per check

  // "full", "window", "sampled(K)": the record's verified_by.
  std::string text() const {
    const std::string name(kCheckMethods.name(method));
    return method == check_method::sampled ? name + "(" + std::to_string(nodes) + ")" : name;
  }
  // What the output was checked against, in words (the record's verified_against).
  std::string against() const {
    switch (method) {
      case check_method::full: return "the portable reference labeler";
      case check_method::window: return "the portable reference labeler on the same window";
      case check_method::sampled: break;
    }
    return "the portable reference, " + text() + " nodes recomputed from the parents they read";
  }
};

}  // namespace poreplab
