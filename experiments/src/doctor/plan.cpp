#include "doctor/plan.hpp"

#include <stdexcept>

#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"

namespace poreplab::doctor {

seal_plan make_plan(std::uint64_t sector_bytes, std::uint32_t sectors) {
  if (sectors == 0) throw std::invalid_argument("zero sectors");
  if (sector_bytes % 32 != 0) throw std::invalid_argument("a sector is a whole number of 32-byte nodes");
  seal_plan p;
  p.sector_bytes = sector_bytes;
  p.nodes = sector_bytes / 32;
  p.sectors = sectors;
  // The proof benchmarks label this size with; its graph when the size has one, else the
  // graph of that porep_id at this size.
  const sdr::bytes32 id = sdr::benchmark_porep_id(sector_bytes);
  const sdr::registered_proof* proof = nullptr;
  for (const auto& r : sdr::registered_proofs())
    if (sdr::porep_id_of(r) == id) proof = &r;
  if (proof == nullptr) throw std::logic_error("the benchmarks' porep_id is no registered proof's");
  if (proof->sector_size == sector_bytes) p.proof = std::string(proof->name);
  p.layers = proof->layers;
  p.graph = graph::make_graph_params(id.data(), proof->api, p.nodes);

  cuda::memory_request req;
  req.sector_bytes = sector_bytes;
  req.sectors = sectors;
  req.layers = p.layers;
  p.memory = cuda::plan_memory(req);
  p.label_bytes = 2 * p.memory.layer_bytes + p.memory.parent_table_bytes;
  p.kept_bytes = p.memory.host_store_bytes + p.memory.parent_table_bytes;
  p.resident_bytes = seal::resident_previous_need(p.memory.layer_bytes);
  p.disk_bytes = sectors * seal::seal_disk_need(sector_bytes, p.layers);
  return p;
}

}  // namespace poreplab::doctor
