#pragma once
// Per-layer timing of a labeling run, by any backend: a store that notes the time at
// which each layer is done. Layers are barriers (layer l reads all of layer l-1), so the
// interval between two layer_done calls is one layer's labeling, whatever the backend.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

// Forwards to `inner`. Layer l's time runs from start() (first layer) or the end of the
// previous layer's layer_done to the call of its own layer_done, so what the inner store
// does when a layer is done (flush, digest, sample capture) counts in no layer.
// A device backend hands layers over when they reach the host, so there the intervals
// are host arrivals, not kernel times.
class layer_clock_store final : public layer_store {
 public:
  explicit layer_clock_store(layer_store& inner) : inner_(inner) {}
  std::uint8_t* layer(std::uint32_t l) override { return inner_.layer(l); }
  void layer_done(std::uint32_t l) override;
  void start();
  // (layer, seconds) in the order the layers were done.
  const std::vector<std::pair<std::uint32_t, double>>& layer_seconds() const { return done_; }

 private:
  layer_store& inner_;
  std::chrono::steady_clock::time_point since_{};
  std::vector<std::pair<std::uint32_t, double>> done_;
};

// The group a layer's time is reported in: sdr "layer 1" (base parents only) and
// "layers 2+" (expander parents read from the previous layer); zigzag "forward" (odd
// layers) and "reverse" (even layers, which read the graph's rows backwards).
std::string layer_group(porep_variant v, std::uint32_t layer);

// Per group, the mean of the given per-layer values (index 0 = layer `first_layer`), in
// the order the groups first appear.
std::vector<std::pair<std::string, double>> group_layers(porep_variant v, std::uint32_t first_layer,
                                                         const std::vector<double>& per_layer);

}  // namespace poreplab::sdr
