#pragma once
// Helpers shared by the model's parts (SASS text, the trace, the analysis); not part of
// the model's interface.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/gpu_model.hpp"

namespace poreplab::gpu_model::detail {

inline constexpr int kUniformBase = 256;    // UR0..UR63
inline constexpr int kPredicateBase = 512;  // P0..P7
inline constexpr int kUniformPredicateBase = 520;

std::string_view trim(std::string_view s);
bool has_modifier(const sass_instruction& in, std::string_view m);
bool is_predicate_name(std::string_view s);
// Bytes one load or store moves, from its width modifier.
double access_bytes(const sass_instruction& in);
// A decimal or 0x-prefixed immediate, possibly negative (two's complement).
std::optional<std::uint64_t> parse_number(std::string_view s);
std::string hex_address(std::uint32_t a);

}  // namespace poreplab::gpu_model::detail
