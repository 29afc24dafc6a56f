#pragma once
// What a labeling job computes: the PoRep structure (variant) and the hash that derives
// each node's key. `sdr` + `sha256` is Filecoin's SDR and the only combination that must
// match rust-fil-proofs; every other one is a what-if variant for the hash study and is
// labelled so wherever it is reported.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab::sdr {

enum class porep_variant : std::uint8_t {
  sdr,     // docs/spec/sdr.md: 6 + 8 parents, layers in separate buffers, header hashed
  zigzag,  // docs/spec/r2-zigzag.md: 5 + 8 parents, alternating direction, in place
};

enum class label_hash : std::uint8_t { sha256, blake2s, blake2b_256 };

struct label_scheme {
  porep_variant variant = porep_variant::sdr;
  label_hash hash = label_hash::sha256;
  constexpr bool is_filecoin() const { return variant == porep_variant::sdr && hash == label_hash::sha256; }
  friend constexpr bool operator==(label_scheme, label_scheme) = default;
};

inline constexpr label_scheme kFilecoinScheme{};

inline const char* variant_name(porep_variant v) { return v == porep_variant::sdr ? "sdr" : "zigzag"; }

inline const char* label_hash_name(label_hash h) {
  switch (h) {
    case label_hash::sha256: return "sha256";
    case label_hash::blake2s: return "blake2s";
    case label_hash::blake2b_256: return "blake2b-256";
  }
  return "?";
}

inline const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> v{"sdr", "zigzag"};
  return v;
}

inline const std::vector<std::string>& label_hash_names() {
  static const std::vector<std::string> v{"sha256", "blake2s", "blake2b-256"};
  return v;
}

inline porep_variant parse_variant(std::string_view s) {
  if (s == "sdr") return porep_variant::sdr;
  if (s == "zigzag") return porep_variant::zigzag;
  throw std::invalid_argument("unknown PoRep variant '" + std::string(s) + "' (valid: sdr, zigzag)");
}

inline label_hash parse_label_hash(std::string_view s) {
  if (s == "sha256") return label_hash::sha256;
  if (s == "blake2s") return label_hash::blake2s;
  if (s == "blake2b-256") return label_hash::blake2b_256;
  throw std::invalid_argument("unknown label hash '" + std::string(s) + "' (valid: sha256, blake2s, blake2b-256)");
}

// How the GPU label kernel of Filecoin's scheme (sdr/sha256) reads and walks its parents;
// every variant computes the same labels. Other schemes have the standard kernel only.
enum class kernel_variant : std::uint8_t {
  standard,  // parent labels read byte by byte, the parent-pair loop fully unrolled
  vec16,     // each 32-byte parent label read as two aligned 16-byte loads
  rolled,    // the parent-pair loop left rolled: far fewer instructions to fetch
};

inline const std::vector<std::string>& kernel_variant_names() {
  static const std::vector<std::string> v{"standard", "vec16", "rolled"};
  return v;
}

inline const char* kernel_variant_name(kernel_variant k) {
  return k == kernel_variant::vec16 ? "vec16" : k == kernel_variant::rolled ? "rolled" : "standard";
}

inline kernel_variant parse_kernel_variant(std::string_view s) {
  if (s == "standard") return kernel_variant::standard;
  if (s == "vec16") return kernel_variant::vec16;
  if (s == "rolled") return kernel_variant::rolled;
  throw std::invalid_argument("unknown kernel variant '" + std::string(s) + "' (valid: standard, vec16, rolled)");
}

// "sdr/sha256", "zigzag/blake2s", ...
inline std::string scheme_name(label_scheme s) {
  return std::string(variant_name(s.variant)) + "/" + label_hash_name(s.hash);
}

// "filecoin" or "what-if": printed beside every figure of a scheme.
inline const char* scheme_status(label_scheme s) { return s.is_filecoin() ? "filecoin" : "what-if"; }

// Bytes the hash consumes per regular node (header and parents, before padding), and
// the compressions that takes: the figures cycles/byte and floors are computed from.
inline constexpr std::uint64_t kSdrMessageBytes = 64 + 37 * 32;  // header + 37 parent chunks, 1248
inline constexpr std::uint64_t kZigzagMessageBytes = 14 * 32;  // replica_id + 13 parents, 448

constexpr std::uint64_t message_bytes(porep_variant v) {
  return v == porep_variant::sdr ? kSdrMessageBytes : kZigzagMessageBytes;
}

constexpr std::uint32_t compressions_per_node(label_scheme s) {
  const std::uint64_t bytes = message_bytes(s.variant);
  switch (s.hash) {
    case label_hash::sha256: return static_cast<std::uint32_t>((bytes + 8) / 64 + 1);  // 0x80 + length
    case label_hash::blake2s: return static_cast<std::uint32_t>((bytes + 63) / 64);
    case label_hash::blake2b_256: return static_cast<std::uint32_t>((bytes + 127) / 128);
  }
  return 0;
}

// Default layer counts: SDR's 11 (V1_1 proofs of 32GiB and 64GiB use 11; small ones 2)
// are chosen per proof elsewhere; ZigZag uses 10.
inline constexpr std::uint32_t kZigzagLayers = 10;

}  // namespace poreplab::sdr
