#include <stdexcept>
#include <string>

#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

memory_layer_store::memory_layer_store(std::uint64_t layer_bytes, std::uint32_t layers)
    : layer_bytes_(layer_bytes) {
  layers_.reserve(layers);
  for (std::uint32_t l = 0; l < layers; ++l) layers_.emplace_back(layer_bytes);
}

std::uint8_t* memory_layer_store::layer(std::uint32_t l) {
  if (l == 0 || l > layers_.size()) throw std::out_of_range("layer " + std::to_string(l) + " out of range");
  return layers_[l - 1].data();
}

const std::uint8_t* memory_layer_store::layer(std::uint32_t l) const {
  if (l == 0 || l > layers_.size()) throw std::out_of_range("layer " + std::to_string(l) + " out of range");
  return layers_[l - 1].data();
}

rolling_layer_store::rolling_layer_store(std::uint64_t layer_bytes) : buf_{huge_buffer(layer_bytes), huge_buffer(layer_bytes)} {}

std::uint8_t* rolling_layer_store::layer(std::uint32_t l) { return buf_[l % 2].data(); }

}  // namespace poreplab::sdr
