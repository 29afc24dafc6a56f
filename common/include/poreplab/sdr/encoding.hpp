#pragma once
// Replica encoding (replica = data + key mod r, element-wise), the field-element check
// it rests on, and generated canonical field data for benchmarks.
#include <cstdint>
#include <vector>

namespace poreplab::sdr {

// replica = key + data mod r, element-wise over `elements` 32-byte values (any layout,
// as long as key, data and replica share it). Throws if a data element is not < r.
void encode(const std::uint8_t* key, const std::uint8_t* data, std::uint8_t* replica, std::uint64_t elements);
// data = replica - key mod r.
void decode(const std::uint8_t* key, const std::uint8_t* replica, std::uint8_t* data, std::uint64_t elements);

// Index of the first 32-byte element that is not a canonical field element, or -1.
std::int64_t first_noncanonical(const std::uint8_t* data, std::uint64_t elements);

// `bytes` of deterministic canonical field elements (top two bits of every 32-byte
// element clear): input data for benchmarks and profiles.
std::vector<std::uint8_t> generated_field_data(std::uint64_t bytes, std::uint64_t seed);

}  // namespace poreplab::sdr
