#pragma once
// The keys inside a point that more than one kind or reader shares: of its axes (a config's
// axis names too), its context (a bench's row) and its rates (a metric names one), spelled
// once. A key that two of those carry is defined once and brought into the other by name.
// plot.py reads the same names from experiments/data/record-schema.json ("axis_keys",
// "context_keys", "rate_keys"), which a test holds equal to the lists below. A kind's keys
// that no one else reads stay the kind's own.
#include <array>

#include "poreplab/format_keys.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::records {

namespace rate {
inline constexpr const char* ns_per_node_layer = "ns_per_node_layer";  // a label's sampled metric
inline constexpr const char* labels_per_s = "labels_per_s";            // labels of all its sectors
inline constexpr const char* efficiency = "efficiency";                // the hash floor over the median
}  // namespace rate

namespace axis {
inline constexpr const char* backend = "backend";
inline constexpr const char* sector_size = format_keys::sector_size;  // bytes
inline constexpr const char* sectors = "sectors";
inline constexpr const char* threads = "threads";  // 0: every core
inline constexpr const char* layers = "layers";
inline constexpr const char* engine = "engine";    // as asked ("auto"); the context's is the one that ran
inline constexpr const char* variant = "variant";  // sdr or zigzag
inline constexpr const char* producer = "producer";
inline constexpr const char* window_nodes = "window_nodes";  // > 0: a window of a full-size sector
inline constexpr const char* window_backing = "window_backing";
inline constexpr const char* source = "source";  // PC2's labels: kPc2Sources
}  // namespace axis

// Where PC2's labels come from: generated field elements in memory (the synthetic figure),
// or files on a disk (PC2 as an operator runs it).
enum class pc2_source { memory, files };
inline constexpr name_table<pc2_source, 2> kPc2Sources{
    "pc2 source", {named<pc2_source>{pc2_source::memory, "memory"}, named<pc2_source>{pc2_source::files, "files"}}};

namespace ctx {
using axis::backend;
using axis::engine;
using axis::producer;
using axis::threads;  // the threads that ran (an axis of 0 resolved)
using axis::window_backing;
using rate::efficiency;
using rate::labels_per_s;       // bench label's own, at its own median
using rate::ns_per_node_layer;  // likewise
inline constexpr const char* device = "device";  // the CPU model or GPU name that ran it
inline constexpr const char* scheme = "scheme";  // "sdr/sha256"...
inline constexpr const char* scheme_status = "scheme_status";
inline constexpr const char* core_hz = "core_hz";  // the core clock measured beside the point
inline constexpr const char* thread_map = "thread_map";
inline constexpr const char* coordinators = "coordinators";
inline constexpr const char* hashers = "hashers";
inline constexpr const char* hashers_per_coordinator_max = "hashers_per_coordinator_max";
inline constexpr const char* coordinator_busy_share = "coordinator_busy_share";
inline constexpr const char* window_alias_period_bytes = "window_alias_period_bytes";
inline constexpr const char* window_page_bytes = "window_page_bytes";
inline constexpr const char* hasher = "hasher";  // PC2's Poseidon as the backend named it
inline constexpr const char* pace = "pace";      // what set a PC2 pipeline's pace (sdr::kPc2Paces)
inline constexpr const char* kernel_ns_per_node = "kernel_ns_per_node";  // a device's PC2 kernels alone; < 0: not timed
}  // namespace ctx

// The schema file's lists.
inline constexpr std::array kAxisKeys{axis::backend, axis::sector_size, axis::sectors,      axis::threads,
                                      axis::layers,  axis::engine,      axis::variant,      axis::producer,
                                      axis::window_nodes,               axis::window_backing, axis::source};
inline constexpr std::array kContextKeys{ctx::backend,        ctx::engine,
                                         ctx::producer,       ctx::threads,
                                         ctx::efficiency,     ctx::window_backing,
                                         ctx::labels_per_s,   ctx::ns_per_node_layer,
                                         ctx::device,         ctx::scheme,
                                         ctx::scheme_status,  ctx::core_hz,
                                         ctx::thread_map,     ctx::coordinators,
                                         ctx::hashers,        ctx::hashers_per_coordinator_max,
                                         ctx::coordinator_busy_share, ctx::window_alias_period_bytes,
                                         ctx::window_page_bytes,      ctx::hasher,
                                         ctx::pace,                   ctx::kernel_ns_per_node};
inline constexpr std::array kRateKeys{rate::ns_per_node_layer, rate::labels_per_s, rate::efficiency};

}  // namespace poreplab::records
