#pragma once
// Keys that more than one of poreplab's file formats spell for the same quantity: seal.json,
// the test-vector files and the records' payload (records/payload_keys.hpp brings them in by
// name). One quantity, one key, spelled here.
namespace poreplab::format_keys {
inline constexpr const char* sector_size = "sector_size";  // bytes
}  // namespace poreplab::format_keys
