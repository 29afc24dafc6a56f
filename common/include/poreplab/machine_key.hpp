#pragma once
// A secret of this user on this machine, kept outside every output directory. A seal's
// state file carries a MAC under it, so that the state file and the layer files it vouches
// for cannot be rewritten together by whatever can write only the output directory
// (docs/reliability.md, "Resumed seals").
#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace poreplab {

struct machine_key {
  std::array<std::uint8_t, 32> bytes{};
  std::filesystem::path file;
};

// $POREPLAB_STATE_DIR, else $XDG_STATE_HOME/poreplab, else $HOME/.local/state/poreplab;
// empty when none of them is set.
std::filesystem::path state_dir();

// The key in state_dir()/seal-key, created on first use (32 random bytes, mode 0600, made
// whole before it appears). nullopt, with `why`, when it can be neither read nor created,
// or the file is not a 32-byte regular file of this user that no one else may write.
std::optional<machine_key> load_machine_key(std::string& why);

// The HMAC-SHA256 under the key of a JSON value's compact text, as 64 lowercase hex
// digits: the "mac" a seal's state file and seal.json carry over their other fields.
std::string json_mac(const nlohmann::json& fields, const machine_key& key);

}  // namespace poreplab
