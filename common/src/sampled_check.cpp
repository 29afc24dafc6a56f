#include "poreplab/sdr/sampled_check.hpp"

#include <cstring>
#include <stdexcept>

#include "poreplab/sdr/label.hpp"

namespace poreplab::sdr {

namespace {

std::uint64_t next(std::uint64_t& s) {
  std::uint64_t x = (s += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

sampling_layer_store::sampling_layer_store(layer_store& inner, const label_job& job, std::uint64_t samples,
                                           std::uint64_t seed)
    : inner_(inner), job_(job) {
  validate(job);
  if (job.scheme.variant != porep_variant::sdr)
    throw std::invalid_argument("sampled verification applies to sdr only; zigzag is verified in full");
  if (samples == 0) throw std::invalid_argument("sampled verification: zero samples");
  const std::uint32_t layers = job.layers - job.start_layer() + 1;
  const std::uint64_t per_layer = (samples + layers - 1) / layers;
  const std::uint64_t span = job.node_end() - job.node_begin();
  picks_.reserve(per_layer * layers);
  std::uint64_t s = seed;
  for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l)
    for (std::uint64_t i = 0; i < per_layer; ++i) {
      pick p{};
      p.layer = l;
      p.sector = static_cast<std::uint32_t>(next(s) % job.sectors);
      p.node = job.node_begin() + next(s) % span;
      picks_.push_back(p);
    }
}

void sampling_layer_store::layer_done(std::uint32_t l) {
  const std::uint64_t stride = 32ull * job_.sectors;
  const std::uint8_t* cur = inner_.layer(l);
  const std::uint8_t* prev = l > 1 ? inner_.layer(l - 1) : nullptr;
  for (pick& p : picks_) {
    if (p.layer != l) continue;
    const std::uint64_t lane = 32ull * p.sector;
    std::memcpy(p.label, cur + p.node * stride + lane, 32);
    if (p.node != 0) {
      const std::uint32_t* row = job_.row(p.node);
      for (std::uint32_t k = 0; k < kParents; ++k) {
        if (k >= kBaseDegree && prev == nullptr) break;  // layer 1 reads base parents only
        const std::uint8_t* from = k < kBaseDegree ? cur : prev;
        std::memcpy(p.parents + 32 * k, from + row[k] * stride + lane, 32);
      }
    }
    p.captured = true;
  }
  inner_.layer_done(l);
}

sampled_result sampling_layer_store::verify() const {
  sampled_result r;
  for (const pick& p : picks_) {
    if (!p.captured) continue;
    std::uint8_t want[32];
    const std::uint8_t* id = job_.replica_ids + 32ull * p.sector;
    with_scheme(job_.scheme, [&](auto, auto h) {
      label_from_parent_labels<decltype(h)::value>(id, p.layer, p.node, p.parents, want);
    });
    ++r.checked;
    if (std::memcmp(want, p.label, 32) != 0) {
      if (r.mismatched++ == 0) {
        r.first_mismatch = "layer " + std::to_string(p.layer);
        r.first_mismatch += ", node ";
        r.first_mismatch += std::to_string(p.node);
        r.first_mismatch += ", sector ";
        r.first_mismatch += std::to_string(p.sector);
      }
    }
  }
  return r;
}

}  // namespace poreplab::sdr
