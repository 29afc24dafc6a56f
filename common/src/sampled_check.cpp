#include "poreplab/sdr/sampled_check.hpp"

#include <cstring>
#include <stdexcept>

#include "poreplab/file_io.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/stats.hpp"

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

sampled_result check_layer_file_samples(const graph::graph_params& g, const std::uint8_t* replica_id,
                                        std::uint32_t layer, const std::filesystem::path& layer_file,
                                        const std::filesystem::path& previous_layer_file, std::uint64_t samples,
                                        std::uint64_t seed) {
  const unique_fd cur = open_regular_for_reading(layer_file);
  const unique_fd prev = layer > 1 ? open_regular_for_reading(previous_layer_file) : unique_fd{};
  sampled_result r;
  for_each_sampled_index(g.nodes, samples, seed, [&](std::uint64_t node) {
    std::uint8_t label[32], want[32], parents[32 * kParents] = {};
    pread_exact(cur.get(), label, 32, 32 * node, layer_file);
    if (node != 0) {
      std::uint32_t row[kParents];
      graph::fill_parent_rows(g, node, 1, row);
      const std::uint32_t read = layer == 1 ? kBaseDegree : kParents;  // layer 1 hashes base parents only
      for (std::uint32_t k = 0; k < read; ++k) {
        const bool base = k < kBaseDegree;
        pread_exact(base ? cur.get() : prev.get(), parents + 32 * k, 32, 32ull * row[k],
                    base ? layer_file : previous_layer_file);
      }
    }
    label_from_parent_labels(hash_family::sha256, replica_id, layer, node, parents, want);
    ++r.checked;
    if (std::memcmp(want, label, 32) != 0 && r.mismatched++ == 0) r.first_mismatch = "node " + std::to_string(node);
  });
  return r;
}

sampled_result sampling_layer_store::verify() const {
  sampled_result r;
  for (const pick& p : picks_) {
    if (!p.captured) continue;
    std::uint8_t want[32];
    const std::uint8_t* id = job_.replica_ids + 32ull * p.sector;
    label_from_parent_labels(job_.scheme.hash, id, p.layer, p.node, p.parents, want);
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
