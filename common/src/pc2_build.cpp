// PC2 built chunk by chunk on a pc2_hasher, and the two host hashers.
#include "poreplab/sdr/pc2_build.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "poreplab/field/fr.hpp"
#include "poreplab/hash/poseidon.hpp"

namespace poreplab::sdr {

namespace {

namespace m = fr::mont;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

template <bool Plain>
class host_hasher final : public pc2_hasher {
 public:
  explicit host_hasher(int threads) : threads_(threads) {}
  std::string name() const override { return Plain ? "reference (plain Poseidon)" : "host (optimized Poseidon)"; }

  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    const auto& c = poseidon::constants_for(static_cast<int>(layers.size()));
    run(count, [&](std::uint64_t i) {
      m::elem in[poseidon::kMaxWidth];
      for (std::size_t l = 0; l < layers.size(); ++l) m::from_bytes(layers[l] + 32 * i, in[l]);
      m::to_bytes(hash(c, in), out + 32 * i);
    });
  }

  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    const auto& c = poseidon::constants_for(static_cast<int>(arity));
    run(count, [&](std::uint64_t i) {
      m::elem x[poseidon::kMaxWidth];
      for (std::uint32_t k = 0; k < arity; ++k) m::from_bytes(in + 32 * (arity * i + k), x[k]);
      m::to_bytes(hash(c, x), out + 32 * i);
    });
  }

 private:
  static m::elem hash(const poseidon::constants& c, const m::elem* in) {
    return Plain ? poseidon::hash_plain(c, in) : poseidon::hash(c, in);
  }
  template <class F>
  void run(std::uint64_t count, F&& f) {
    const auto n = static_cast<std::int64_t>(count);
    if (threads_ == 1 || n < 64) {
      for (std::int64_t i = 0; i < n; ++i) f(static_cast<std::uint64_t>(i));
      return;
    }
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) f(static_cast<std::uint64_t>(i));
  }
  int threads_;
};

bool is_power_of_8(std::uint64_t x) {
  if (x == 0) return false;
  while (x % 8 == 0) x /= 8;
  return x == 1;
}

void check_canonical(const std::uint8_t* p, std::uint64_t count, std::uint64_t first, const std::string& what) {
  for (std::uint64_t i = 0; i < count; ++i)
    if (!fr::is_canonical(p + 32 * i))
      throw std::runtime_error("pc2: " + what + " node " + std::to_string(first + i) +
                               " is not a canonical field element (>= r)");
}

// One base tree's file layout: where each row starts (in nodes), rows below `first_row`
// not stored.
struct row_layout {
  std::vector<std::uint64_t> width;   // nodes in row r, leaves r = 0
  std::vector<std::uint64_t> offset;  // node offset of row r in the file; unused below first_row
  std::uint32_t first_row = 0;
};

row_layout layout_of(std::uint64_t leaves, std::uint32_t first_row) {
  row_layout l;
  l.first_row = first_row;
  std::uint64_t at = 0;
  for (std::uint64_t w = leaves;; w /= 8) {
    l.width.push_back(w);
    l.offset.push_back(l.width.size() - 1 >= first_row ? at : 0);
    if (l.width.size() - 1 >= first_row) at += w;
    if (w == 1) break;
  }
  return l;
}

// A chunk's rows from its leaves up to its root (row `levels`), each row written where
// the file keeps it; returns the chunk's root.
bytes32 reduce_chunk(pc2_hasher& h, std::vector<std::uint8_t>& a, std::vector<std::uint8_t>& b, std::uint64_t leaves,
                     std::uint32_t levels, std::uint64_t chunk, const row_layout& lay, std::uint32_t file,
                     const pc2_job& job) {
  const auto emit = [&](std::uint32_t row, const std::uint8_t* p, std::uint64_t w) {
    if (job.write && row >= lay.first_row)
      job.write(file, (lay.offset[row] + chunk * w) * 32, p, w * 32);
  };
  emit(0, a.data(), leaves);
  std::uint64_t w = leaves;
  for (std::uint32_t r = 1; r <= levels; ++r) {
    w /= 8;
    h.hash_level(a.data(), w, 8, b.data());
    emit(r, b.data(), w);
    std::swap(a, b);
  }
  bytes32 root;
  std::copy_n(a.data(), 32, root.data());
  return root;
}

// Rows above the chunk roots, up to the tree's root, written likewise.
bytes32 reduce_top(pc2_hasher& h, std::vector<std::uint8_t> roots, std::uint32_t from_row, const row_layout& lay,
                   std::uint32_t file, const pc2_job& job) {
  std::vector<std::uint8_t> up;
  std::uint32_t row = from_row;
  while (roots.size() > 32) {
    const std::uint64_t w = roots.size() / 32 / 8;
    up.resize(w * 32);
    h.hash_level(roots.data(), w, 8, up.data());
    ++row;
    if (job.write && row >= lay.first_row) job.write(file, lay.offset[row] * 32, up.data(), w * 32);
    std::swap(roots, up);
  }
  bytes32 root;
  std::copy_n(roots.data(), 32, root.data());
  return root;
}

bytes32 compound_root(pc2_hasher& h, const std::vector<bytes32>& roots, const tree_shape& s) {
  if (s.sub_arity == 0) return roots[0];
  std::vector<std::uint8_t> in(roots.size() * 32);
  for (std::size_t i = 0; i < roots.size(); ++i) std::copy(roots[i].begin(), roots[i].end(), in.data() + 32 * i);
  const std::uint32_t groups = s.top_arity == 0 ? 1 : s.top_arity;
  std::vector<std::uint8_t> subs(groups * 32);
  h.hash_level(in.data(), groups, s.sub_arity, subs.data());
  bytes32 out;
  if (s.top_arity == 0) {
    std::copy_n(subs.data(), 32, out.data());
  } else {
    h.hash_level(subs.data(), 1, s.top_arity, out.data());
  }
  return out;
}

}  // namespace

std::unique_ptr<pc2_hasher> make_reference_pc2_hasher(int threads) { return std::make_unique<host_hasher<true>>(threads); }
std::unique_ptr<pc2_hasher> make_host_pc2_hasher(int threads) { return std::make_unique<host_hasher<false>>(threads); }

pc2_result build_pc2(const pc2_job& job, pc2_hasher& h) {
  if (job.layers != 2 && job.layers != 11)
    throw std::invalid_argument("pc2: " + std::to_string(job.layers) + " layers (2 or 11 expected)");
  const std::uint32_t count = job.shape.base_count();
  if (job.shape.base_arity != 8 || job.nodes % count != 0 || !is_power_of_8(job.nodes / count) || job.nodes / count < 8)
    throw std::invalid_argument("pc2: " + std::to_string(job.nodes) + " nodes do not split into " +
                                std::to_string(count) + " trees of a power of 8 leaves");
  const std::uint64_t per_tree = job.nodes / count;
  std::uint64_t chunk = job.chunk_nodes != 0             ? job.chunk_nodes
                        : h.preferred_chunk_nodes() != 0 ? h.preferred_chunk_nodes()
                                                         : std::uint64_t{1} << 18;
  if (!is_power_of_8(chunk) || chunk < 8)
    throw std::invalid_argument("pc2: chunk of " + std::to_string(chunk) + " nodes is not a power of 8 (at least 8)");
  chunk = std::min(chunk, per_tree);
  std::uint32_t levels = 0;
  for (std::uint64_t w = chunk; w > 1; w /= 8) ++levels;

  const std::uint32_t discard = tree_r_last_rows_to_discard(per_tree, 8);
  const row_layout c_lay = layout_of(per_tree, 0), r_lay = layout_of(per_tree, 1 + discard);
  std::vector<std::vector<std::uint8_t>> label(job.layers, std::vector<std::uint8_t>(chunk * 32));
  std::vector<const std::uint8_t*> label_ptr;
  for (const auto& v : label) label_ptr.push_back(v.data());
  std::vector<std::uint8_t> a(chunk * 32), b(chunk * 32 / 8);
  std::vector<bytes32> c_roots, r_roots;
  pc2_result res;
  std::uint64_t columns_done = 0, replica_done = 0;

  for (std::uint32_t t = 0; t < count; ++t) {
    const std::uint64_t base = t * per_tree;
    std::vector<std::uint8_t> chunk_roots;
    auto t0 = clock_type::now();
    for (std::uint64_t j = 0; j < per_tree / chunk; ++j) {
      const std::uint64_t first = base + j * chunk;
      for (std::uint32_t l = 1; l <= job.layers; ++l) {
        job.read_label(l, first, chunk, label[l - 1].data());
        check_canonical(label[l - 1].data(), chunk, first, "layer " + std::to_string(l) + " label of");
      }
      a.resize(chunk * 32);
      h.hash_columns(label_ptr, chunk, a.data());
      const bytes32 root = reduce_chunk(h, a, b, chunk, levels, j, c_lay, t, job);
      chunk_roots.insert(chunk_roots.end(), root.begin(), root.end());
      columns_done += chunk;
      if (job.progress) job.progress(columns_done, replica_done);
    }
    c_roots.push_back(reduce_top(h, std::move(chunk_roots), levels, c_lay, t, job));
    res.columns_s += seconds_since(t0);

    t0 = clock_type::now();
    chunk_roots.clear();
    for (std::uint64_t j = 0; j < per_tree / chunk; ++j) {
      const std::uint64_t first = base + j * chunk;
      a.resize(chunk * 32);
      job.read_replica(first, chunk, a.data());
      check_canonical(a.data(), chunk, first, "replica");
      const bytes32 root = reduce_chunk(h, a, b, chunk, levels, j, r_lay, count + t, job);
      chunk_roots.insert(chunk_roots.end(), root.begin(), root.end());
      replica_done += chunk;
      if (job.progress) job.progress(columns_done, replica_done);
    }
    r_roots.push_back(reduce_top(h, std::move(chunk_roots), levels, r_lay, count + t, job));
    res.tree_r_s += seconds_since(t0);
  }
  res.comm_c = compound_root(h, c_roots, job.shape);
  res.comm_r_last = compound_root(h, r_roots, job.shape);
  std::uint8_t pair[64];
  std::copy(res.comm_c.begin(), res.comm_c.end(), pair);
  std::copy(res.comm_r_last.begin(), res.comm_r_last.end(), pair + 32);
  h.hash_level(pair, 1, 2, res.comm_r.data());
  return res;
}

pc2_result build_pc2_in_memory(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                               std::uint64_t nodes, const tree_shape& shape, pc2_hasher& h) {
  pc2_job job;
  job.nodes = nodes;
  job.layers = static_cast<std::uint32_t>(labels.size());
  job.shape = shape;
  job.read_label = [&](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
    std::copy_n(labels[l - 1] + 32 * first, 32 * count, out);
  };
  job.read_replica = [&](std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
    std::copy_n(replica + 32 * first, 32 * count, out);
  };
  return build_pc2(job, h);
}

std::uint64_t poseidon_multiplies(std::uint32_t arity) {
  const auto& c = poseidon::constants_for(static_cast<int>(arity));
  const auto t = static_cast<std::uint64_t>(c.width);
  return static_cast<std::uint64_t>(c.full_rounds) * (t * t + 3 * t) +
         static_cast<std::uint64_t>(c.partial_rounds) * (2 * t + 2);
}

double pc2_multiplies(std::uint64_t nodes, std::uint32_t layers, const tree_shape& shape) {
  // Each tree over nodes leaves of arity 8 has (nodes - count) / 7 internal nodes.
  const double internal = static_cast<double>(nodes - shape.base_count()) / 7.0;
  return static_cast<double>(nodes) * static_cast<double>(poseidon_multiplies(layers)) +
         2 * internal * static_cast<double>(poseidon_multiplies(8));
}

}  // namespace poreplab::sdr
