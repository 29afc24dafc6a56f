#include <algorithm>
#include <stdexcept>
#include <string>

#include "poreplab/byte_units.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/sdr/pc2.hpp"

namespace poreplab::sdr {

namespace {

namespace m = fr::mont;
using poseidon::elem;

bool is_power_of(std::uint64_t x, std::uint32_t arity) {
  if (x == 0) return false;
  while (x % arity == 0) x /= arity;
  return x == 1;
}

elem load_checked(const std::uint8_t* p, const std::string& what, std::uint64_t node) {
  elem e;
  if (!m::from_bytes(p, e))
    throw std::runtime_error("pc2: " + what + " of node " + std::to_string(node) +
                             " is not a canonical field element (>= r)");
  return e;
}

bytes32 to_bytes32(const elem& e) {
  bytes32 b;
  m::to_bytes(e, b.data());
  return b;
}

// Every row of one base tree, leaves first, root last.
std::vector<std::vector<elem>> build_rows(std::vector<elem> leaves, std::uint32_t arity) {
  const poseidon::constants& c = poseidon::constants_for(static_cast<int>(arity));
  std::vector<std::vector<elem>> rows;
  rows.push_back(std::move(leaves));
  while (rows.back().size() > 1) {
    const auto& below = rows.back();
    std::vector<elem> up(below.size() / arity);
    for (std::size_t i = 0; i < up.size(); ++i) up[i] = poseidon::hash(c, &below[i * arity]);
    rows.push_back(std::move(up));
  }
  return rows;
}

std::vector<std::uint8_t> rows_bytes(const std::vector<std::vector<elem>>& rows, std::size_t first_row) {
  std::size_t n = 0;
  for (std::size_t r = first_row; r < rows.size(); ++r) n += rows[r].size();
  std::vector<std::uint8_t> out(n * 32);
  std::uint8_t* p = out.data();
  for (std::size_t r = first_row; r < rows.size(); ++r)
    for (const elem& e : rows[r]) {
      m::to_bytes(e, p);
      p += 32;
    }
  return out;
}

// The root over the base trees' roots (merkletree from_trees / from_sub_trees).
elem compound_root(const std::vector<elem>& roots, const tree_shape& shape) {
  if (shape.sub_arity == 0) return roots[0];
  const auto& sub = poseidon::constants_for(static_cast<int>(shape.sub_arity));
  if (shape.top_arity == 0) return poseidon::hash(sub, roots.data());
  std::vector<elem> subs(shape.top_arity);
  for (std::uint32_t i = 0; i < shape.top_arity; ++i) subs[i] = poseidon::hash(sub, &roots[i * shape.sub_arity]);
  return poseidon::hash(poseidon::constants_for(static_cast<int>(shape.top_arity)), subs.data());
}

void check_shape(std::uint64_t nodes, const tree_shape& shape) {
  const bool ok = shape.base_arity == 8 && (shape.sub_arity == 0 || shape.sub_arity == 2 || shape.sub_arity == 8) &&
                  (shape.top_arity == 0 || (shape.top_arity == 2 && shape.sub_arity == 8));
  if (!ok) throw std::invalid_argument("pc2: unsupported tree shape");
  const std::uint64_t count = shape.base_count();
  if (nodes % count != 0 || nodes / count < shape.base_arity || !is_power_of(nodes / count, shape.base_arity))
    throw std::invalid_argument("pc2: " + std::to_string(nodes) + " nodes do not split into " + std::to_string(count) +
                                " trees of a power of " + std::to_string(shape.base_arity) + " leaves");
}

}  // namespace

tree_shape tree_shape_for_sector_size(std::uint64_t sector_size) {
  switch (sector_size) {
    case 2 * kKiB:
    case 8 * kMiB:
    case 512 * kMiB: return tree_shape{8, 0, 0};
    case 4 * kKiB:
    case 16 * kMiB:
    case 1 * kGiB: return tree_shape{8, 2, 0};
    case 16 * kKiB:
    case 32 * kGiB: return tree_shape{8, 8, 0};
    case 32 * kKiB:
    case 64 * kGiB: return tree_shape{8, 8, 2};
    default: throw std::invalid_argument("pc2: unsupported sector size " + std::to_string(sector_size));
  }
}

std::uint32_t tree_rows(std::uint64_t leaves, std::uint32_t arity) {
  if (arity < 2 || !is_power_of(leaves, arity))
    throw std::invalid_argument("pc2: " + std::to_string(leaves) + " leaves is not a power of " + std::to_string(arity));
  std::uint32_t rows = 1;
  for (std::uint64_t w = leaves; w > 1; w /= arity) ++rows;
  return rows;
}

std::uint64_t tree_nodes(std::uint64_t leaves, std::uint32_t arity) {
  tree_rows(leaves, arity);
  std::uint64_t n = 0;
  for (std::uint64_t w = leaves; w >= 1; w /= arity) {
    n += w;
    if (w == 1) break;
  }
  return n;
}

std::uint32_t tree_r_last_rows_to_discard(std::uint64_t leaves, std::uint32_t arity) {
  const std::uint32_t rows = tree_rows(leaves, arity);
  if (rows <= 2) return 0;
  if (rows == 3) return 1;
  // Arities 2 and 4 have fixed caps; the others take the rows_to_discard setting, 2 by default.
  const std::uint32_t cap = arity == 2 ? 7 : arity == 4 ? 5 : 2;
  return std::min(rows - 2, cap);
}

std::uint64_t tree_r_last_stored_nodes(std::uint64_t leaves, std::uint32_t arity) {
  const std::uint32_t skip = 1 + tree_r_last_rows_to_discard(leaves, arity);
  std::uint64_t w = leaves;
  for (std::uint32_t i = 0; i < skip; ++i) w /= arity;
  return tree_nodes(w, arity);
}

std::vector<pc2_file> pc2_tree_files(std::uint64_t sector_size) {
  const tree_shape shape = tree_shape_for_sector_size(sector_size);
  const std::uint64_t leaves = sector_size / 32 / shape.base_count();
  const std::uint64_t c_bytes = tree_nodes(leaves, shape.base_arity) * 32;
  const std::uint64_t r_bytes = tree_r_last_stored_nodes(leaves, shape.base_arity) * 32;
  std::vector<pc2_file> files;
  const auto name = [&](const char* id, std::uint32_t i) {
    std::string n = "sc-02-data-";
    n += id;
    if (shape.base_count() > 1) {
      n += '-';
      n += std::to_string(i);
    }
    n += ".dat";
    return n;
  };
  for (std::uint32_t i = 0; i < shape.base_count(); ++i) files.push_back({name("tree-c", i), c_bytes});
  for (std::uint32_t i = 0; i < shape.base_count(); ++i) files.push_back({name("tree-r-last", i), r_bytes});
  return files;
}

bytes32 column_hash(std::span<const std::uint8_t* const> layers, std::uint64_t node) {
  if (layers.size() != 2 && layers.size() != 11)
    throw std::invalid_argument("pc2: column hash over " + std::to_string(layers.size()) + " layers (2 or 11 expected)");
  elem col[11];
  for (std::size_t l = 0; l < layers.size(); ++l)
    col[l] = load_checked(layers[l] + node * 32, "layer " + std::to_string(l + 1) + " label", node);
  return to_bytes32(poseidon::hash(poseidon::constants_for(static_cast<int>(layers.size())), col));
}

pc2_output pc2_reference(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                         std::uint64_t nodes, const tree_shape& shape, bool want_files) {
  if (labels.size() != 2 && labels.size() != 11)
    throw std::invalid_argument("pc2: " + std::to_string(labels.size()) + " layers (2 or 11 expected)");
  check_shape(nodes, shape);
  const std::uint32_t count = shape.base_count();
  const std::uint64_t per_tree = nodes / count;
  const std::uint32_t discard = tree_r_last_rows_to_discard(per_tree, shape.base_arity);
  const auto& column = poseidon::constants_for(static_cast<int>(labels.size()));

  pc2_output out;
  std::vector<elem> c_roots, r_roots;
  for (std::uint32_t t = 0; t < count; ++t) {
    const std::uint64_t first = t * per_tree;
    std::vector<elem> c_leaves(per_tree), r_leaves(per_tree);
    for (std::uint64_t i = 0; i < per_tree; ++i) {
      const std::uint64_t node = first + i;
      elem col[11];
      for (std::size_t l = 0; l < labels.size(); ++l)
        col[l] = load_checked(labels[l] + node * 32, "layer " + std::to_string(l + 1) + " label", node);
      c_leaves[i] = poseidon::hash(column, col);
      r_leaves[i] = load_checked(replica + node * 32, "replica", node);
    }
    const auto c_rows = build_rows(std::move(c_leaves), shape.base_arity);
    const auto r_rows = build_rows(std::move(r_leaves), shape.base_arity);
    c_roots.push_back(c_rows.back()[0]);
    r_roots.push_back(r_rows.back()[0]);
    if (want_files) {
      // tree_c: merkletree's DiskStore, every row. tree_r_last: its LevelCacheStore,
      // without the leaves (read back from the replica) and the discarded rows.
      out.tree_c_files.push_back(rows_bytes(c_rows, 0));
      out.tree_r_last_files.push_back(rows_bytes(r_rows, 1 + discard));
    }
  }
  const elem comm_c = compound_root(c_roots, shape);
  const elem comm_r_last = compound_root(r_roots, shape);
  const elem pair[2] = {comm_c, comm_r_last};
  out.comm_c = to_bytes32(comm_c);
  out.comm_r_last = to_bytes32(comm_r_last);
  out.comm_r = to_bytes32(poseidon::hash(poseidon::constants_for(2), pair));
  return out;
}

pc2_output pc2_reference_for_sector(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                                    std::uint64_t sector_size, bool want_files) {
  return pc2_reference(labels, replica, sector_size / 32, tree_shape_for_sector_size(sector_size), want_files);
}

}  // namespace poreplab::sdr
