#include "bench/reads.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "records/payload_keys.hpp"
#include "util/text.hpp"

namespace poreplab {

namespace axis = records::axis;

using nlohmann::json;

namespace {

// The last sample drawn, kept for the next call on the same graph and plan: a runner sweep
// counts many geometries on one sample (drawing one at 32GiB takes about a second).
const sdr::parent_row_sample& sample_for(const graph::graph_params& g, std::uint64_t sector_size,
                                         const sdr::read_sample_plan& plan) {
  static std::mutex m;
  static std::unique_ptr<sdr::parent_row_sample> kept;
  static std::uint64_t kept_size = 0;
  static sdr::read_sample_plan kept_plan;
  const std::lock_guard<std::mutex> lock(m);
  if (!kept || kept_size != sector_size || kept_plan.runs != plan.runs || kept_plan.run_nodes != plan.run_nodes ||
      kept_plan.seed != plan.seed) {
    kept.reset();
    kept = std::make_unique<sdr::parent_row_sample>(sdr::parent_row_sample::draw(g, plan));
    kept_size = sector_size;
    kept_plan = plan;
  }
  return *kept;
}

}  // namespace

reads_result count_reads(const reads_options& opt) {
  if (opt.sector_size < 64 || (opt.sector_size & (opt.sector_size - 1)) != 0 || opt.sector_size / 32 > (1ull << 32))
    throw std::invalid_argument("sector size " + std::to_string(opt.sector_size) +
                                ": expected a power of two from 64 bytes to 128GiB");
  if (opt.sectors.empty() || opt.cache_nodes.empty()) throw std::invalid_argument("no sector count or cache size to count");
  if (opt.layers == 0 || opt.layers > 64) throw std::invalid_argument("layers: expected 1 to 64");
  for (const auto s : opt.sectors) sdr::check_geometry({s, 0, 4096});
  const auto t0 = std::chrono::steady_clock::now();
  reads_result r;
  r.options = opt;
  const graph::graph_params g = sdr::benchmark_graph(opt.sector_size, &r.graph);
  r.nodes = g.nodes;
  const auto& sample = sample_for(g, opt.sector_size, opt.plan);
  r.sample = sample.describe();
  for (const auto s : opt.sectors)
    for (const auto c : opt.cache_nodes) {
      const sdr::read_geometry geo{s, c, 4096};
      r.rows.push_back({geo, sample.count(geo, opt.layers)});
    }
  // The largest row and no cache: every page-range case of the counter at once.
  if (opt.check_nodes > 0) {
    r.check = sample.check_run(r.rows.back().geometry, 0, opt.check_nodes);
    if (r.check.empty()) r.check = sample.check_run(r.rows.front().geometry, 0, opt.check_nodes);
    r.checked_nodes = std::min(opt.check_nodes, sample.plan().run_nodes);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

json reads_row_json(const reads_row& r) {
  const auto& e = r.estimate;
  return {{axis::sectors, r.geometry.sectors},
          {"cache_nodes", r.geometry.cache_nodes},
          {"cache_bytes", r.geometry.cache_bytes()},
          {"page_bytes", r.geometry.page_bytes},
          {"row_bytes", r.geometry.row_bytes()},
          {"layer1_pages_per_node", e.layer1},
          {"later_pages_per_node", e.later},
          {"later_base_pages_per_node", e.later_base},
          {"later_expander_pages_per_node", e.later_expander},
          {"base_cached_share", e.base_cached_share},
          {axis::layers, e.layers},
          {"mean_pages_per_node", e.mean()},
          {"mean_half_width95", e.half_width95},
          {"reads_per_label", r.reads_per_label()},
          {"nodes_counted", e.nodes_counted}};
}

json reads_json(const reads_result& r) {
  json rows = json::array();
  for (const auto& row : r.rows) rows.push_back(reads_row_json(row));
  return {{axis::sector_size, r.options.sector_size},
          {"nodes", r.nodes},
          {"graph", r.graph},
          {"sample", r.sample},
          {"sample_runs", r.options.plan.runs},
          {"sample_run_nodes", r.options.plan.run_nodes},
          {"sample_seed", r.options.plan.seed},
          {"reference_check", r.check.empty() ? "equal" : r.check},
          {"reference_checked_nodes", r.checked_nodes},
          {"seconds", r.seconds},
          {"rows", rows}};
}

std::string reads_markdown(const reads_result& r) {
  std::ostringstream o;
  o << "Random " << 4096 << "-byte page reads per node, " << format_size(r.options.sector_size) << " ("
    << r.graph << "), counted on the graph: " << r.sample << "; the first " << r.checked_nodes
    << " nodes of run 0 recounted by the reference: " << (r.check.empty() ? "equal" : "DIFFERENT: " + r.check)
    << ". Layers node-major, sector-minor (a node's row is 32 x S bytes); the cache holds the C most recent nodes "
       "of the layer being labeled.\n\n"
    << "| S | cache C (nodes) | cache bytes | nodes per page | layer 1 | layers 2+ (base + expander) | base parents "
       "cached | " << r.options.layers << "-layer mean [95%] | reads per label |\n"
    << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& row : r.rows) {
    const auto& e = row.estimate;
    const auto& g = row.geometry;
    const std::string per_page = g.row_bytes() <= g.page_bytes ? std::to_string(g.page_bytes / g.row_bytes())
                                                                : "1/" + std::to_string(g.row_bytes() / g.page_bytes);
    o << "| " << g.sectors << " | " << format_count(g.cache_nodes) << " | " << format_size(g.cache_bytes()) << " | "
      << per_page << " | " << format_number(e.layer1, 3) << " | " << format_number(e.later, 3) << " ("
      << format_number(e.later_base, 3) << " + " << format_number(e.later_expander, 3) << ") | "
      << format_number(100 * e.base_cached_share, 3) << "% | " << format_number(e.mean(), 3) << " ± "
      << format_number(e.half_width95, 2) << " | " << format_number(row.reads_per_label(), 3) << " |\n";
  }
  return o.str();
}

}  // namespace poreplab
