#pragma once
// What the OpenMP CPU labeler (labeler.hpp) is told: the engine, threads, and its ablation
// switches, each enum with its names.
#include <array>
#include <cstddef>
#include <string>

#include "poreplab/name_table.hpp"

namespace poreplab::cpu {

class thread_placer;  // placed_backend.hpp

// Ablation switches (the 2019 report's optimisation steps, each bit-exact):
// message assembly: the chunks read where they lie (in_place) or first copied into a
// per-lane buffer (gather); auto = in_place.
enum class message_assembly { automatic, in_place, gather };
// ZigZag's key + node: normal-form add, or the Montgomery round trip of the 2019 r2 code
// (SDR labeling adds nothing in the field, so it is unaffected).
enum class field_encoding { normal, montgomery };
// Layer buffers and the parent table: madvise(MADV_HUGEPAGE / MADV_NOHUGEPAGE) or the
// system's default (transparent huge pages as configured).
enum class huge_pages { system, on, off };
// Where the parents of the node `prefetch_distance` ahead are prefetched: into L1
// (prefetcht0) or into L2 only (prefetcht1), so that lines waiting for their node neither
// evict the engine's working set or each other from L1 (with a node record of 1 KiB or a
// larger power of two, a lane group's lines fall in 8 or fewer L1 sets) nor hold L1 miss
// buffers for a DRAM latency (docs/cpu-backend.md, "Prefetch into L2").
enum class prefetch_level { l1, l2 };
// SDR + SHA-256 (in place): a coordinator thread copies the parents of the nodes ahead, for
// a team of hashing threads, into a ring they hash from (parent_ring.hpp), so that their
// DRAM latency and page walks stall the coordinator, not the hash chains. Each hasher owns
// a contiguous slice of the batch's sectors. Where it runs: off; core (per last-level-cache
// domain, a coordinator and up to hashers_per_coordinator hashers on CPUs of their own,
// topology.hpp's coordinator_teams); sibling (the SMT sibling of its one hasher's CPU: the
// producer of docs/cpu-backend.md); auto (core, when the teams have a CPU for every hashing
// thread asked for and a layer is larger than the last-level cache and 64 MiB; else off).
enum class parent_producer { off, automatic, core, sibling };
// Their names, as the knobs and records spell them (parse throws std::invalid_argument
// listing the valid ones).
inline constexpr name_table kMessageAssemblies{
    "message assembly", std::array{named<message_assembly>{message_assembly::automatic, "auto"},
                                   named<message_assembly>{message_assembly::in_place, "in-place"},
                                   named<message_assembly>{message_assembly::gather, "gather"}}};
inline constexpr name_table kFieldEncodings{"field encoding",
                                            std::array{named<field_encoding>{field_encoding::normal, "normal"},
                                                       named<field_encoding>{field_encoding::montgomery, "montgomery"}}};
inline constexpr name_table kHugePages{"huge_pages setting", std::array{named<huge_pages>{huge_pages::system, "default"},
                                                                        named<huge_pages>{huge_pages::on, "on"},
                                                                        named<huge_pages>{huge_pages::off, "off"}}};
inline constexpr name_table kPrefetchLevels{
    "prefetch level", std::array{named<prefetch_level>{prefetch_level::l1, "l1"}, named<prefetch_level>{prefetch_level::l2, "l2"}}};
inline constexpr name_table kParentProducers{
    "producer placement", std::array{named<parent_producer>{parent_producer::off, "off"},
                                     named<parent_producer>{parent_producer::automatic, "auto"},
                                     named<parent_producer>{parent_producer::core, "core"},
                                     named<parent_producer>{parent_producer::sibling, "sibling"}}};

struct labeler_options {
  // Engine name, looked up per job among the engines of the job's hash (sha256 ->
  // hash_family::sha256, blake2s -> blake2s, blake2b-256 -> blake2b); "auto" = the best
  // available for the sector count (pick_label_engine).
  std::string engine = "auto";
  int threads = 0;              // 0 = OpenMP default
  bool pin_threads = true;      // pin thread i to the i-th CPU of the affinity mask
  std::size_t prefetch_distance = 4;  // nodes ahead whose parents are prefetched
  prefetch_level prefetch_to = prefetch_level::l2;
  message_assembly assembly = message_assembly::automatic;
  field_encoding encoding = field_encoding::normal;
  huge_pages pages = huge_pages::system;
  // Node 0 of an SDR layer (a 64-byte message): finish with the padding block's
  // precomputed W+K (sha256_pad64) instead of compressing the padding block.
  bool pad_precompute = false;
  // SDR's repeated message blocks (sdr::label_block_repeats) run on the W+K kept from
  // their first occurrence, on engines that keep schedules (engine::sha256_repeat).
  bool schedule_reuse = true;
  // SDR with SHA-256: a node's header block (it depends on no parent) is compressed off
  // its chain, which then starts from the header state: the chain a node waits on is 19
  // compressions. A producer thread makes the headers where one runs; otherwise the labeling
  // thread makes node v + 1's beside node v's chain, in a group of one lane only (a lone
  // chain leaves issue slots idle; several lanes fill them, and the header's separate call
  // only adds work). header_off_chain (labeler.hpp) says which applies to a job.
  bool header_ahead = true;
  // One lane with its header off the chain: an engine with sha256_sdr_node hashes each node
  // whole (parents in, label out), from the header state a producer made or, in place, from
  // the one it made beside the previous node's chain; less work between one node's chain
  // and the next than through the message's chunk rows. Many lanes (with schedule reuse): an
  // engine with sha256_sdr_nodes hashes their nodes whole, from the rows where the parents
  // lie (read in place, not gathered; header block included) or from a producer's ring
  // (from its header states).
  bool whole_node = true;
  parent_producer producer = parent_producer::automatic;
  // Nodes a coordinator may run ahead (a power of two); 0 = auto: as many as fill half the L2
  // (16 to 256 slots; a slot holds a node's parents for every lane of the team).
  std::size_t ring_depth = 0;
  // Hashers one coordinator feeds; 0 = every other CPU of its last-level-cache domain.
  std::size_t hashers_per_coordinator = 0;
  // Where a placed labeling puts its threads and records where they ran (placed_backend.hpp);
  // null: the labeler pins as pin_threads says.
  thread_placer* placer = nullptr;
};
inline constexpr std::size_t kMaxHashersPerCoordinator = 1024;

// Whether a labeling thread without a coordinator compresses a group's headers off its chain:
// a one-lane group only (labeler_options::header_ahead).
inline bool header_ahead_in_thread(const labeler_options& o, std::size_t group_lanes) {
  return o.header_ahead && group_lanes == 1;
}

}  // namespace poreplab::cpu
