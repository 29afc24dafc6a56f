// Reads per node with the layers on disk (sdr/parent_reads.hpp): the counter against a
// brute force over every node of small graphs, the sample of a real graph, and bad input.
#include <catch2/catch.hpp>

#include <set>

#include "poreplab/graph/parents.hpp"
#include "poreplab/sdr/parent_reads.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "support.hpp"

using namespace poreplab;

namespace {

// Every node's parents from the reference (node_parents), every missing parent's pages by
// walking its bytes one 32-byte label at a time into a set of (layer, page).
struct brute_counts {
  double layer1 = 0, later = 0, cached = 0, parents = 0;
};

brute_counts brute_force(const graph::graph_params& g, std::uint32_t sectors, std::uint64_t cache, std::uint32_t page) {
  brute_counts c;
  const std::uint64_t row = 32ull * sectors;
  for (std::uint64_t v = 0; v < g.nodes; ++v) {
    std::uint32_t parents[graph::kParentsPerNode];
    graph::node_parents(g, v, parents);
    std::set<std::pair<int, std::uint64_t>> base, all;
    for (std::uint32_t k = 0; k < graph::kParentsPerNode; ++k) {
      const bool is_base = k < graph::kBaseDegree;
      if (is_base && parents[k] >= v) continue;  // not labeled yet
      if (is_base) ++c.parents;
      if (is_base && v - parents[k] <= cache) {
        ++c.cached;
        continue;
      }
      for (std::uint64_t byte = parents[k] * row; byte < (parents[k] + 1) * row; byte += 32) {
        const auto key = std::make_pair(is_base ? 0 : 1, byte / page);
        if (is_base) base.insert(key);
        all.insert(key);
      }
    }
    c.layer1 += double(base.size());
    c.later += double(all.size());
  }
  c.layer1 /= double(g.nodes);
  c.later /= double(g.nodes);
  return c;
}

graph::graph_params small_graph(std::uint64_t nodes) {
  const auto id = sdr::benchmark_porep_id(32ull << 30);
  return graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
}

}  // namespace

TEST_CASE("parent reads: the counter equals a brute force over every node", "[parent_reads]") {
  const auto g = small_graph(test::kSanitized ? 256 : 1024);
  const auto whole = sdr::parent_row_sample::draw(g, {1, g.nodes, 1});
  CHECK(whole.describe() == "every node (" + std::to_string(g.nodes) + ")");
  // Rows within a page, across page boundaries (S = 3, 130) and larger than a page (130).
  for (const std::uint32_t sectors : {1u, 3u, 64u, 130u})
    for (const std::uint64_t cache : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{300}})
      for (const std::uint32_t page : {4096u, 32u}) {
        INFO("S " << sectors << ", C " << cache << ", page " << page);
        const auto e = whole.count({sectors, cache, page}, 11);
        const auto b = brute_force(g, sectors, cache, page);
        CHECK(e.layer1 == Approx(b.layer1).epsilon(1e-12));
        CHECK(e.later == Approx(b.later).epsilon(1e-12));
        CHECK(e.base_cached_share == Approx(b.parents > 0 ? b.cached / b.parents : 0).epsilon(1e-12));
        CHECK(e.mean() == Approx((b.layer1 + 10 * b.later) / 11).epsilon(1e-12));
      }
}

TEST_CASE("parent reads: what the layout and the cache imply", "[parent_reads]") {
  const auto g = small_graph(1024);
  const auto whole = sdr::parent_row_sample::draw(g, {4, 1u << 20, 9});
  // A cache of the whole layer holds every base parent: only expander pages are read.
  const auto all_cached = whole.count({64, g.nodes, 4096}, 11);
  CHECK(all_cached.layer1 == 0);
  CHECK(all_cached.later_base == 0);
  CHECK(all_cached.base_cached_share == 1);
  // Without a cache, v - 1 is read too; with one node of cache it is not.
  const auto none = whole.count({128, 0, 4096}, 11), one = whole.count({128, 1, 4096}, 11);
  CHECK(none.layer1 > one.layer1);
  CHECK(none.layer1 - one.layer1 == Approx(1.0).margin(0.01));  // node 0 has no predecessor
  // One node per page (S = 128): pages are distinct parents; rows of two pages (S = 256)
  // read twice as many pages.
  const auto two_pages = whole.count({256, 1, 4096}, 11);
  CHECK(two_pages.later == Approx(2 * one.later));
  // Reads per node fall as more nodes share a page; never above 14.
  const auto many = whole.count({1, 0, 4096}, 11);
  CHECK(many.later < none.later);
  CHECK(none.later <= 14);
}

TEST_CASE("parent reads: sampled runs of a real graph, checked by the reference", "[parent_reads]") {
  const auto& proof = sdr::find_registered_proof("StackedDrg32GiBV1_1");
  std::string source;
  const auto g = sdr::benchmark_graph(proof.sector_size, &source);
  CHECK(source == "registered StackedDrg32GiBV1_1");
  const auto sample = sdr::parent_row_sample::draw(g, {8, 1024, 5});
  CHECK(sample.describe().find("8 runs of 1024 nodes") == 0);
  for (const auto off : sample.run_offsets()) CHECK(off + 1024 <= g.nodes);
  const sdr::read_geometry supraseal{64, 1u << 20, 4096};
  CHECK(sample.check_run(supraseal, 3, 256).empty());
  const auto e = sample.count(supraseal, 11);
  CHECK(e.run_means.size() == 8);
  CHECK(e.half_width95 > 0);
  // supra_seal pc1/README.md: of 13 parents besides v - 1, about 3 hit a 1M-node cache,
  // "about 10 random reads per node".
  CHECK(e.later > 8.5);
  CHECK(e.later < 11.5);
  CHECK(e.later_expander == Approx(8).margin(0.1));
  // The same seed draws the same runs.
  const auto again = sdr::parent_row_sample::draw(g, {8, 1024, 5});
  CHECK(again.count(supraseal, 11).mean() == e.mean());
}

TEST_CASE("parent reads: bad geometries and samples are refused", "[parent_reads][reliability]") {
  CHECK_THROWS_WITH(sdr::check_geometry({0, 0, 4096}), Catch::Contains("sectors 0"));
  CHECK_THROWS_WITH(sdr::check_geometry({(1u << 20) + 1, 0, 4096}), Catch::Contains("sectors"));
  CHECK_THROWS_WITH(sdr::check_geometry({1, 0, 1000}), Catch::Contains("page size 1000"));
  CHECK_THROWS_WITH(sdr::check_geometry({1, 0, 16}), Catch::Contains("page size 16"));
  const auto g = small_graph(1024);
  CHECK_THROWS_WITH(sdr::parent_row_sample::draw(g, {0, 10, 1}), Catch::Contains("at least one run"));
  const auto big = sdr::benchmark_graph(32ull << 30);
  CHECK_THROWS_WITH(sdr::parent_row_sample::draw(big, {4096, 1u << 20, 1}), Catch::Contains("over the limit"));
  const auto s = sdr::parent_row_sample::draw(g, {2, 16, 1});
  CHECK_THROWS_WITH(s.count({1, 0, 4096}, 0), Catch::Contains("layers"));
  CHECK_THROWS_WITH(s.check_run({1, 0, 4096}, 2, 16), Catch::Contains("no run 2"));
}
