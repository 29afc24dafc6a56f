#pragma once
// Random page reads per node when S sectors are labeled together with their layers on
// disk, counted on the real graph (docs/scaling.md, "Reads per node against the node
// cache"). The layout is the production batch sealer's: a layer file holds node-major,
// sector-minor rows of 32 * S bytes (node n at byte n * 32 * S), so one 4 KiB page serves
// every sector of the nodes it holds, and a row larger than a page spans several pages.
// A node reads its base parents from the layer being labeled, except those held by the
// node cache (the C most recent nodes [v - C, v) of that layer, as a node buffer keeps
// them), and its expander parents from the previous layer; pages are deduplicated within
// one node. Host only.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "poreplab/graph/graph_params.hpp"

namespace poreplab::sdr {

struct read_geometry {
  std::uint32_t sectors = 1;        // S, labeled together
  std::uint64_t cache_nodes = 0;    // C, the current layer's most recent nodes in RAM
  std::uint32_t page_bytes = 4096;  // one random read

  std::uint64_t row_bytes() const { return std::uint64_t{32} * sectors; }
  std::uint64_t cache_bytes() const { return cache_nodes * row_bytes(); }
};

// Throws std::invalid_argument naming the field that is out of range (sectors 0 or above
// 2^20, a page that is no power of two from 32 bytes (one label) to 1 MiB).
void check_geometry(const read_geometry& g);

// Pages one node reads. `row` is its parent row (6 base, then 8 expander); expander
// parents count only where the layer has them (every layer after the first).
struct node_reads {
  std::uint32_t base_pages = 0;       // distinct pages of the current layer
  std::uint32_t expander_pages = 0;   // distinct pages of the previous layer
  std::uint32_t base_cached = 0;      // base parents the node cache held
  std::uint32_t base_parents = 0;     // base parents that exist (below v)
  std::uint32_t pages() const { return base_pages + expander_pages; }
};
node_reads count_node_reads(const read_geometry& g, std::uint64_t node, const std::uint32_t* row, bool expander);

// The same count by the plainest means: every byte of every missing parent's row mapped to
// its page, into a set. The check of count_node_reads (records and tests).
node_reads reference_node_reads(const read_geometry& g, std::uint64_t node, const std::uint32_t* row, bool expander);

// Where the sampled nodes lie: `runs` runs of `run_nodes` consecutive nodes at offsets
// drawn from `seed`, uniform over the layer; a run as long as the layer is the whole layer.
struct read_sample_plan {
  std::uint32_t runs = 64;
  std::uint64_t run_nodes = 4096;
  std::uint64_t seed = 0x7265616473ull;
};

// Pages per node of one geometry, from a sample.
struct reads_estimate {
  double layer1 = 0;            // base parents only
  double later = 0;             // base + expander (layers 2..L)
  double later_base = 0;        // of `later`: pages of the current layer
  double later_expander = 0;    // of `later`: pages of the previous layer
  double base_cached_share = 0; // of the base parents that exist, the share the cache held
  double half_width95 = 0;      // of mean(layers): 1.96 x the standard error over runs
  std::vector<double> run_means;  // per run: mean(layers) over its nodes
  std::uint32_t layers = 11;
  std::uint64_t nodes_counted = 0;

  // The L-layer mean: one layer without expander parents, L - 1 with.
  double mean() const { return (layer1 + (layers - 1) * later) / layers; }
};

// The parent rows of a sample of one graph, drawn once and counted for any geometry.
// The graph benchmarks label a sector size on (benchmark_porep_id, api 1.1.0); `source`
// gets "registered StackedDrg32GiBV1_1" or "custom (...)".
graph::graph_params benchmark_graph(std::uint64_t sector_size, std::string* source = nullptr);

class parent_row_sample {
 public:
  // Rows from the graph's Feistel table (graph::fill_parent_rows); throws
  // std::invalid_argument for a plan without nodes or over 2^26 nodes in all.
  static parent_row_sample draw(const graph::graph_params& g, const read_sample_plan& plan);

  reads_estimate count(const read_geometry& geo, std::uint32_t layers) const;
  // Recounts the first `max_nodes` nodes of run `run` with reference_node_reads on rows
  // regenerated node by node by the reference (graph::fill_parent_rows without the Feistel
  // table); "" when both agree, else the first difference.
  std::string check_run(const read_geometry& geo, std::uint32_t run, std::uint64_t max_nodes) const;

  std::uint64_t graph_nodes() const { return nodes_; }
  const read_sample_plan& plan() const { return plan_; }
  std::span<const std::uint64_t> run_offsets() const { return offsets_; }
  // "64 runs of 4096 nodes at seeded offsets (262144 nodes)", or "every node (1024)".
  std::string describe() const;

 private:
  graph::graph_params graph_{};
  std::uint64_t nodes_ = 0;
  read_sample_plan plan_;
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint32_t> rows_;  // offsets_.size() x run_nodes x 14
};

}  // namespace poreplab::sdr
