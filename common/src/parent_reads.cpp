#include "poreplab/sdr/parent_reads.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <stdexcept>

#include "poreplab/graph/parent_table.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/stats.hpp"

namespace poreplab::sdr {

using graph::kBaseDegree;
using graph::kExpDegree;
using graph::kParentsPerNode;

namespace {

// Rows held at once by a sample: 2^22 x 56 bytes = 224 MiB.
constexpr std::uint64_t kMaxSampleNodes = std::uint64_t{1} << 22;

struct page_range {
  std::uint64_t first = 0, last = 0;  // inclusive
};

page_range pages_of(const read_geometry& g, std::uint64_t node) {
  const std::uint64_t begin = node * g.row_bytes();
  return {begin / g.page_bytes, (begin + g.row_bytes() - 1) / g.page_bytes};
}

// Pages in the union of at most 14 ranges (sorted in place, by insertion: few items).
std::uint32_t union_pages(page_range* r, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && r[j].first < r[j - 1].first; --j) std::swap(r[j], r[j - 1]);
  std::uint64_t pages = 0, end = 0;  // end: one past the last page counted
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t from = std::max(r[i].first, end);
    if (r[i].last + 1 > from) pages += r[i].last + 1 - from;
    end = std::max(end, r[i].last + 1);
  }
  return static_cast<std::uint32_t>(pages);
}

bool base_exists(std::uint64_t node, std::uint32_t parent) { return parent < node; }
bool base_cached(const read_geometry& g, std::uint64_t node, std::uint32_t parent) {
  return node - parent <= g.cache_nodes;
}

}  // namespace

void check_geometry(const read_geometry& g) {
  if (g.sectors == 0 || g.sectors > (1u << 20))
    throw std::invalid_argument("sectors " + std::to_string(g.sectors) + ": expected 1 to 1048576");
  if (g.page_bytes < 32 || g.page_bytes > (1u << 20) || (g.page_bytes & (g.page_bytes - 1)) != 0)
    throw std::invalid_argument("page size " + std::to_string(g.page_bytes) +
                                ": expected a power of two from 32 bytes to 1 MiB");
}

node_reads count_node_reads(const read_geometry& g, std::uint64_t node, const std::uint32_t* row, bool expander) {
  node_reads r;
  std::array<page_range, kParentsPerNode> ranges;
  std::size_t n = 0;
  for (std::uint32_t k = 0; k < kBaseDegree; ++k) {
    if (!base_exists(node, row[k])) continue;
    ++r.base_parents;
    if (base_cached(g, node, row[k])) ++r.base_cached;
    else ranges[n++] = pages_of(g, row[k]);
  }
  r.base_pages = union_pages(ranges.data(), n);
  if (!expander) return r;
  for (std::uint32_t k = 0; k < kExpDegree; ++k) ranges[k] = pages_of(g, row[kBaseDegree + k]);
  r.expander_pages = union_pages(ranges.data(), kExpDegree);
  return r;
}

node_reads reference_node_reads(const read_geometry& g, std::uint64_t node, const std::uint32_t* row, bool expander) {
  node_reads r;
  std::set<std::uint64_t> base, exp;
  auto add_row = [&](std::set<std::uint64_t>& pages, std::uint64_t parent) {
    for (std::uint64_t label = 0; label < g.sectors; ++label)
      pages.insert((parent * g.sectors + label) * 32 / g.page_bytes);
  };
  for (std::uint32_t k = 0; k < kBaseDegree; ++k) {
    if (row[k] >= node) continue;  // not labeled yet: nothing to read
    ++r.base_parents;
    if (node - row[k] <= g.cache_nodes) ++r.base_cached;
    else add_row(base, row[k]);
  }
  if (expander)
    for (std::uint32_t k = kBaseDegree; k < kParentsPerNode; ++k) add_row(exp, row[k]);
  r.base_pages = static_cast<std::uint32_t>(base.size());
  r.expander_pages = static_cast<std::uint32_t>(exp.size());
  return r;
}

graph::graph_params benchmark_graph(std::uint64_t sector_size, std::string* source) {
  const bytes32 id = benchmark_porep_id(sector_size);
  if (source != nullptr) {
    *source = "custom (the 32GiB V1_1 porep_id on a " + std::to_string(sector_size) + "-byte graph)";
    for (const auto& p : registered_proofs())
      if (p.sector_size == sector_size && p.api == graph::api_version::v1_1_0) *source = "registered " + std::string(p.name);
  }
  return graph::make_graph_params(id.data(), graph::api_version::v1_1_0, sector_size / 32);
}

parent_row_sample parent_row_sample::draw(const graph::graph_params& g, const read_sample_plan& plan) {
  if (plan.runs == 0 || plan.run_nodes == 0) throw std::invalid_argument("a read sample needs at least one run of one node");
  parent_row_sample s;
  s.graph_ = g;
  s.nodes_ = g.nodes;
  s.plan_ = plan;
  if (plan.run_nodes >= g.nodes) {  // the whole layer, once
    s.plan_.runs = 1;
    s.plan_.run_nodes = g.nodes;
  }
  if (static_cast<std::uint64_t>(s.plan_.runs) * s.plan_.run_nodes > kMaxSampleNodes)
    throw std::invalid_argument("a read sample of " + std::to_string(s.plan_.runs) + " runs of " +
                                std::to_string(s.plan_.run_nodes) + " nodes is over the limit of " +
                                std::to_string(kMaxSampleNodes) + " nodes");
  splitmix64 rng(plan.seed);
  for (std::uint32_t i = 0; i < s.plan_.runs; ++i)
    s.offsets_.push_back(s.plan_.run_nodes == g.nodes ? 0 : rng.next() % (g.nodes - s.plan_.run_nodes + 1));
  const std::uint64_t per_run = s.plan_.run_nodes * kParentsPerNode;
  s.rows_.resize(static_cast<std::size_t>(s.plan_.runs * per_run));
  const graph::feistel_table t = graph::make_feistel_table(g);
  const auto runs = static_cast<std::int64_t>(s.plan_.runs);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t i = 0; i < runs; ++i) {
    const auto k = static_cast<std::size_t>(i);
    graph::fill_parent_rows(g, t, s.offsets_[k], s.plan_.run_nodes, s.rows_.data() + k * per_run);
  }
  return s;
}

reads_estimate parent_row_sample::count(const read_geometry& geo, std::uint32_t layers) const {
  check_geometry(geo);
  if (layers == 0) throw std::invalid_argument("layers must be at least 1");
  reads_estimate e;
  e.layers = layers;
  double l1 = 0, base = 0, exp = 0, cached = 0, parents = 0;
  const std::uint32_t* row = rows_.data();
  for (const std::uint64_t first : offsets_) {
    double run_l1 = 0, run_later = 0;
    for (std::uint64_t v = first; v < first + plan_.run_nodes; ++v, row += kParentsPerNode) {
      const node_reads one = count_node_reads(geo, v, row, false);
      const node_reads two = count_node_reads(geo, v, row, true);
      run_l1 += one.pages();
      run_later += two.pages();
      base += two.base_pages;
      exp += two.expander_pages;
      cached += two.base_cached;
      parents += two.base_parents;
    }
    l1 += run_l1;
    const double n = static_cast<double>(plan_.run_nodes);
    e.run_means.push_back((run_l1 + (layers - 1) * run_later) / (layers * n));
  }
  const double total = static_cast<double>(plan_.run_nodes) * static_cast<double>(offsets_.size());
  e.nodes_counted = static_cast<std::uint64_t>(total);
  e.layer1 = l1 / total;
  e.later_base = base / total;
  e.later_expander = exp / total;
  e.later = e.later_base + e.later_expander;
  e.base_cached_share = parents > 0 ? cached / parents : 0;
  const std::size_t k = e.run_means.size();
  if (k > 1) {
    double mean = 0, var = 0;
    for (double x : e.run_means) mean += x / static_cast<double>(k);
    for (double x : e.run_means) var += (x - mean) * (x - mean) / static_cast<double>(k - 1);
    e.half_width95 = 1.96 * std::sqrt(var / static_cast<double>(k));
  }
  return e;
}

std::string parent_row_sample::check_run(const read_geometry& geo, std::uint32_t run, std::uint64_t max_nodes) const {
  check_geometry(geo);
  if (run >= offsets_.size()) throw std::invalid_argument("no run " + std::to_string(run) + " in the sample");
  const std::uint64_t n = std::min(max_nodes, plan_.run_nodes);
  std::vector<std::uint32_t> fresh(static_cast<std::size_t>(n * kParentsPerNode));
  graph::fill_parent_rows(graph_, offsets_[run], n, fresh.data());
  const std::uint32_t* kept = rows_.data() + static_cast<std::size_t>(run) * plan_.run_nodes * kParentsPerNode;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t v = offsets_[run] + i;
    const std::uint32_t* a = kept + i * kParentsPerNode;
    const std::uint32_t* b = fresh.data() + i * kParentsPerNode;
    if (!std::equal(a, a + kParentsPerNode, b)) return "node " + std::to_string(v) + ": its sampled parent row differs from the reference's";
    for (const bool expander : {false, true}) {
      const node_reads x = count_node_reads(geo, v, a, expander), y = reference_node_reads(geo, v, b, expander);
      if (x.base_pages != y.base_pages || x.expander_pages != y.expander_pages || x.base_cached != y.base_cached)
        return "node " + std::to_string(v) + (expander ? " (with expander parents)" : " (base parents only)") +
               ": counted " + std::to_string(x.pages()) + " pages, the reference " + std::to_string(y.pages());
    }
  }
  return {};
}

std::string parent_row_sample::describe() const {
  const std::uint64_t total = plan_.runs * plan_.run_nodes;
  if (plan_.run_nodes == nodes_) return "every node (" + std::to_string(nodes_) + ")";
  return std::to_string(plan_.runs) + " runs of " + std::to_string(plan_.run_nodes) + " nodes at seeded offsets (" +
         std::to_string(total) + " of " + std::to_string(nodes_) + " nodes)";
}

}  // namespace poreplab::sdr
