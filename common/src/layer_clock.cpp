#include "poreplab/sdr/layer_clock.hpp"

namespace poreplab::sdr {

void layer_clock_store::start() {
  done_.clear();
  since_ = std::chrono::steady_clock::now();
}

void layer_clock_store::layer_done(std::uint32_t l) {
  const auto now = std::chrono::steady_clock::now();
  done_.emplace_back(l, std::chrono::duration<double>(now - since_).count());
  inner_.layer_done(l);
  since_ = std::chrono::steady_clock::now();
}

std::string layer_group(porep_variant v, std::uint32_t layer) {
  if (v == porep_variant::zigzag) return layer % 2 == 1 ? "forward" : "reverse";
  return layer == 1 ? "layer 1" : "layers 2+";
}

std::vector<std::pair<std::string, double>> group_layers(porep_variant v, std::uint32_t first_layer,
                                                         const std::vector<double>& per_layer) {
  std::vector<std::pair<std::string, double>> sums;
  std::vector<std::uint32_t> counts;
  for (std::size_t i = 0; i < per_layer.size(); ++i) {
    const std::string g = layer_group(v, first_layer + static_cast<std::uint32_t>(i));
    std::size_t k = 0;
    while (k < sums.size() && sums[k].first != g) ++k;
    if (k == sums.size()) {
      sums.emplace_back(g, 0.0);
      counts.push_back(0);
    }
    sums[k].second += per_layer[i];
    ++counts[k];
  }
  for (std::size_t k = 0; k < sums.size(); ++k) sums[k].second /= counts[k];
  return sums;
}

}  // namespace poreplab::sdr
