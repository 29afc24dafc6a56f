#include "poreplab/hash/algo.hpp"

#include <stdexcept>
#include <variant>

#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"

namespace poreplab {

std::vector<std::string_view> hash_algo_names() {
  std::vector<std::string_view> names;
  for (const auto& d : kDigests) names.push_back(d.name);
  return names;
}

hash_algo parse_hash_algo(std::string_view name) {
  for (const auto& d : kDigests)
    if (d.name == name) return d.algo;
  if (kHashFamilies.has(name)) return full_digest(kHashFamilies.parse(name));
  std::string valid;
  for (auto n : hash_algo_names()) valid += (valid.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument("unknown hash algorithm '" + std::string(name) + "' (valid: " + valid + ")");
}

std::string_view hash_algo_name(hash_algo a) { return digest_of(a).name; }

struct streaming_hash::impl {
  hash_algo algo;
  std::variant<sha256::ctx, blake2s::ctx, blake2b::ctx> ctx;
};

streaming_hash::streaming_hash(hash_algo a) : impl_(std::make_unique<impl>()) {
  impl_->algo = a;
  switch (a) {
    case hash_algo::sha256: {
      sha256::ctx c;
      sha256::init(c);
      impl_->ctx = c;
      break;
    }
    case hash_algo::blake2s_256: {
      blake2s::ctx c;
      blake2s::init(c, 32);
      impl_->ctx = c;
      break;
    }
    case hash_algo::blake2b_256:
    case hash_algo::blake2b_512: {
      blake2b::ctx c;
      blake2b::init(c, hash_algo_digest_bytes(a));
      impl_->ctx = c;
      break;
    }
  }
}

streaming_hash::~streaming_hash() = default;

void streaming_hash::update(const void* data, std::size_t len) {
  std::visit(
      [&](auto& c) {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, sha256::ctx>) sha256::update(c, data, len);
        else if constexpr (std::is_same_v<C, blake2s::ctx>) blake2s::update(c, data, len);
        else blake2b::update(c, data, len);
      },
      impl_->ctx);
}

std::vector<std::uint8_t> streaming_hash::finish() {
  std::vector<std::uint8_t> out(hash_algo_digest_bytes(impl_->algo));
  std::visit(
      [&](auto& c) {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, sha256::ctx>) sha256::final(c, out.data());
        else if constexpr (std::is_same_v<C, blake2s::ctx>) blake2s::final(c, out.data());
        else blake2b::final(c, out.data());
      },
      impl_->ctx);
  return out;
}

std::vector<std::uint8_t> hash_bytes(hash_algo a, const void* data, std::size_t len) {
  streaming_hash h(a);
  h.update(data, len);
  return h.finish();
}

}  // namespace poreplab
