// The `tree_d` kind: building the comm_d Merkle tree over one sector of data.
#include <omp.h>

#include <algorithm>
#include <chrono>

#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/tree_d.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "util/field_data.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;

using nlohmann::json;

namespace {

// Above this the check uses the library's O(log n) comm_d instead of the slow naive one.
constexpr std::uint64_t kNaiveCheckLimit = 64ull << 20;


// comm_d node by node through the streaming SHA-256 (docs/spec/sdr.md section 7): a check that
// shares nothing with the tree builder's precomputed padding.
std::vector<std::uint8_t> naive_comm_d(const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> row = data;
  while (row.size() > 32) {
    std::vector<std::uint8_t> up(row.size() / 2);
    for (std::size_t i = 0; i < up.size(); i += 32) {
      const auto h = hash_bytes(hash_algo::sha256, row.data() + 2 * i, 64);
      std::copy(h.begin(), h.end(), up.begin() + static_cast<std::ptrdiff_t>(i));
      up[i + 31] &= 0x3f;
    }
    row.swap(up);
  }
  return row;
}

// The optional A/B axes: engine "library" is sdr::build_tree_d (always precomputed).
std::string engine_of(const json& axes) { return axes.contains(axis::engine) && axes[axis::engine].is_string() ? axes[axis::engine].get<std::string>() : "library"; }
bool pad_of(const json& axes) { return !axes.contains("pad_precompute") || axes["pad_precompute"].is_null() || axes["pad_precompute"].get<std::uint64_t>() != 0; }

std::string unavailable(const json& axes) {
  const std::string e = engine_of(axes);
  if (e != "library") {
    try {
      const cpu::engine& en = cpu::find_engine(hash_family::sha256, e);
      if (pad_of(axes) && en.sha256_pad64 == nullptr) return "engine '" + e + "' has no precomputed-padding path";
    } catch (const std::exception& x) {
      return x.what();
    }
  } else if (!pad_of(axes)) {
    return "the library tree builder always precomputes the padding; name an engine for pad_precompute 0";
  }
  const double sector = axes[axis::sector_size].get<double>();
  return memory_shortfall(3 * sector + (sector <= double(kNaiveCheckLimit) ? sector : 0));
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  const std::uint64_t sector = axes[axis::sector_size];
  const std::uint64_t nodes = sector / 32;
  const int threads = static_cast<int>(axes[axis::threads].get<std::uint64_t>());
  const int saved = omp_get_max_threads();
  const std::string engine = engine_of(axes);
  const bool pad = pad_of(axes);
  if (threads > 0) omp_set_num_threads(threads);
  const std::vector<std::uint8_t> data = field_element_data(sector, 0x9e3779b97f4a7c15ull);
  std::vector<std::uint8_t> tree(sdr::tree_d_bytes(nodes));
  measurement m;
  m.metric = "ns_per_node";
  sdr::bytes32 root{};
  for (std::uint32_t i = 0; i < warmup + samples; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    root = engine == "library" ? sdr::build_tree_d(data.data(), nodes, tree.data())
                               : cpu::build_tree_d(cpu::find_engine(hash_family::sha256, engine), data.data(),
                                                   nodes, tree.data(), pad);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    if (i >= warmup) m.samples.push_back(ns / double(nodes));
  }
  if (threads > 0) omp_set_num_threads(saved);
  m.digest = to_hex(root.data(), root.size());
  if (sector <= kNaiveCheckLimit) {
    m.verified = naive_comm_d(data) == std::vector<std::uint8_t>(root.begin(), root.end());
    m.verified_against = "comm_d hashed node by node with the streaming SHA-256";
  } else {
    m.verified = sdr::comm_d(data.data(), nodes) == root;
    m.verified_against = "comm_d from the O(log n) subtree-stack builder";
  }
  m.context = {{"nodes", nodes},
               {ctx::threads, threads > 0 ? threads : saved},
               {ctx::engine, engine == "library" ? "portable" : engine},
               {"pad_precompute", pad},
               {ctx::device, cpu::detect().model}};
  return m;
}

json rates(const json&, const json&, double median) {
  json r = {{"ns_per_node", median}};
  if (median > 0) r["gb_per_s"] = 32.0 / median;  // a leaf is 32 bytes of sector data
  return r;
}

}  // namespace

kind_spec tree_d_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::tree_d);
  k.help = "the comm_d Merkle tree (tree_d) over one sector of data";
  k.axes = {size_param(axis::sector_size, 2048, 64, true, "sector size, a power of two"),
            count_param(axis::threads, 0, 0, 4096, "OpenMP threads; 0 = the default")};
  param_spec engine = text_param(
      axis::engine, "library",
      [] {
        auto v = engine_names(hash_family::sha256);
        v.insert(v.begin(), "library");
        return v;
      },
      "library (sdr::build_tree_d, portable, padding precomputed) or a SHA-256 engine (cpu::build_tree_d)");
  engine.optional = true;
  param_spec pad = count_param("pad_precompute", 1, 0, 1,
                             "1 = each parent's padding block from its precomputed W+K; 0 = its schedule computed");
  pad.optional = true;
  k.axes.push_back(std::move(engine));
  k.axes.push_back(std::move(pad));
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
