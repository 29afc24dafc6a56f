// The replication profile (profile.hpp): the cpu backend's labeling loop (layer_loop.hpp)
// of every scheme, one sector at a time, with its per-node phase timers compiled in
// (Timed) or out.
#include "poreplab/cpu/profile.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "layer_loop.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/perf_counter.hpp"
#include "poreplab/field/fr.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/layer_clock.hpp"
#include "poreplab/sdr/zigzag.hpp"
#include "poreplab/stats.hpp"

namespace poreplab::cpu {

namespace {

// Per layer group: 0 = sdr layer 1 / zigzag forward, 1 = the others.
struct group_ticks {
  std::uint64_t fetch = 0, hash = 0, layer = 0, llc_misses = 0;
  std::uint32_t layers = 0;
};

struct tick_counts : detail::phase_ticks {  // fetch, hash, encode: summed by the loop
  std::uint64_t io = 0;
  std::uint64_t labeling = 0;  // all layers
  std::uint64_t total = 0;     // layers and sdr's final encode pass
  group_ticks groups[2];
};

// Once per layer: the rule itself lives in sdr::layer_group.
std::size_t group_of(sdr::porep_variant v, std::uint32_t layer) {
  return sdr::layer_group(v, layer) == sdr::layer_group(v, 1) ? 0 : 1;
}

// One whole job: every layer, sector after sector, and for sdr the replica at the end.
template <bool Timed, sdr::porep_variant V, hash_family H>
tick_counts profile_run(const engine& e, const sdr::label_job& job, sdr::layer_store& store,
                        const std::uint8_t* sdr_data, std::uint8_t* replica, const profile_options& opt,
                        const perf_counter& llc) {
  tick_counts t;
  const detail::phase_clock<Timed> clk{opt.fenced};
  // The loop of the cpu backend, one sector at a time, every message gathered so that
  // the fetch phase holds every load of parent memory.
  labeler_options loop;
  loop.prefetch_distance = opt.prefetch_distance;
  loop.assembly = message_assembly::gather;
  const std::uint64_t start = detail::tsc_stamp(true);
  for (std::uint32_t l = 1; l <= job.layers; ++l) {
    group_ticks& g = t.groups[group_of(V, l)];
    const std::uint64_t fetch0 = t.fetch, hash0 = t.hash, misses0 = llc.read(), layer0 = detail::tsc_stamp(true);
    [[maybe_unused]] std::uint64_t a = clk.now();
    const sdr::layer_inputs in = sdr::begin_layer(job, store, l);
    if constexpr (Timed) t.io += clk.now() - a;
    for (std::uint32_t s = 0; s < job.sectors; ++s)
      detail::label_lanes<Timed, V, H>(e, job, detail::lane_layer<V>(job, l, in, s, 1), loop, clk, t);
    a = clk.now();
    store.layer_done(l);
    if constexpr (Timed) t.io += clk.now() - a;
    g.layer += detail::tsc_stamp(true) - layer0;
    g.llc_misses += llc.read() - misses0;
    g.fetch += t.fetch - fetch0;
    g.hash += t.hash - hash0;
    ++g.layers;
  }
  t.labeling = detail::tsc_stamp(true) - start;
  if constexpr (V == sdr::porep_variant::sdr) {
    // The replica: data + key mod r, the key being the last layer (PC2's encoding).
    [[maybe_unused]] const std::uint64_t a = clk.now();
    const std::uint8_t* key = store.layer(job.layers);
    const std::uint64_t elements = job.nodes * job.sectors;
    for (std::uint64_t i = 0; i < elements; ++i) fr::add(sdr_data + 32 * i, key + 32 * i, replica + 32 * i);
    if constexpr (Timed) t.encode += clk.now() - a;
  }
  t.total = detail::tsc_stamp(true) - start;
  return t;
}

// One timed run's ticks added to the kept samples' sums.
void accumulate(tick_counts& sum, const tick_counts& timed) {
  sum.fetch += timed.fetch;
  sum.hash += timed.hash;
  sum.encode += timed.encode;
  sum.io += timed.io;
  sum.total += timed.total;
  for (std::size_t k = 0; k < 2; ++k) {
    group_ticks& g = sum.groups[k];
    g.fetch += timed.groups[k].fetch;
    g.hash += timed.groups[k].hash;
    g.layer += timed.groups[k].layer;
    g.layers = timed.groups[k].layers;
  }
}

// Seconds and shares per phase, the per-direction figures and the medians, from the kept
// samples' sums and times.
void derive_figures(const sdr::label_job& job, std::uint32_t samples, const tick_counts& sum,
                    const std::uint64_t (&untimed_misses)[2], bool llc_ok,
                    const std::vector<double>& untimed_labeling_ticks, const std::vector<double>& backend_ticks,
                    profile_result& r) {
  const std::uint64_t elements = job.nodes * job.sectors;
  const double runs = static_cast<double>(samples);
  const double hz = r.tsc_hz > 0 ? r.tsc_hz : 1;
  const std::uint64_t other = sum.total - std::min(sum.total, sum.fetch + sum.hash + sum.encode + sum.io);
  r.seconds = {static_cast<double>(sum.fetch) / hz / runs, static_cast<double>(sum.hash) / hz / runs,
               static_cast<double>(sum.encode) / hz / runs, static_cast<double>(sum.io) / hz / runs,
               static_cast<double>(other) / hz / runs};
  if (sum.total != 0) {
    const double total = static_cast<double>(sum.total);
    r.share = {static_cast<double>(sum.fetch) / total, static_cast<double>(sum.hash) / total,
               static_cast<double>(sum.encode) / total, static_cast<double>(sum.io) / total, 0};
    r.share.other = std::max(0.0, 1.0 - (r.share.fetch + r.share.hash + r.share.encode + r.share.io));
  }
  for (std::size_t k = 0; k < 2; ++k) {
    const group_ticks& g = sum.groups[k];
    if (g.layers == 0) continue;
    profile_direction d;
    d.group = sdr::layer_group(job.scheme.variant, k == 0 ? 1 : 2);
    d.layers = g.layers;
    if (g.layer != 0) {
      d.fetch_share = static_cast<double>(g.fetch) / static_cast<double>(g.layer);
      d.hash_share = static_cast<double>(g.hash) / static_cast<double>(g.layer);
    }
    const double node_layers = runs * g.layers * static_cast<double>(elements);
    d.ns_per_node = static_cast<double>(g.layer) / hz * 1e9 / node_layers;
    if (llc_ok) d.llc_misses_per_node = static_cast<double>(untimed_misses[k]) / node_layers;
    r.directions.push_back(d);
  }
  r.total_s = median(r.timed_s);
  r.untimed_total_s = median(r.untimed_s);
  r.backend_total_s = median(r.backend_s);
  r.overhead = r.untimed_total_s > 0 ? r.total_s / r.untimed_total_s - 1 : 0;
  const double work = static_cast<double>(job.nodes) * job.layers * job.sectors;
  r.timed_ns_per_node_layer = r.total_s * 1e9 / work;
  r.untimed_ns_per_node_layer = r.untimed_total_s * 1e9 / work;
  r.backend_ns_per_node_layer = r.backend_total_s * 1e9 / work;
  const double bytes = static_cast<double>(r.hashed_bytes);
  r.cycles_per_byte = median(untimed_labeling_ticks) / bytes;
  r.backend_cycles_per_byte = median(backend_ticks) / bytes;
}

// A job the engine can label, and at least one sample.
void check_profile_job(const sdr::label_job& job, const engine& e, const profile_options& opt) {
  sdr::validate(job);
  if (e.algo != job.scheme.hash)
    throw std::invalid_argument("profile: engine '" + std::string(e.name) + "' is a " +
                                std::string(hash_family_name(e.algo)) + " engine; " + sdr::scheme_name(job.scheme) +
                                " hashes with " + sdr::label_hash_name(job.scheme.hash) + " (engines: " +
                                std::string(hash_family_name(job.scheme.hash)) + ")");
  if (opt.samples == 0) throw std::invalid_argument("profile: samples must be at least 1");
}

// The result's description of the job, the engine and the timer.
profile_result profile_of(const sdr::label_job& job, const engine& e, const profile_options& opt) {
  profile_result r;
  r.scheme = job.scheme;
  r.engine = std::string(e.name);
  r.nodes = job.nodes;
  r.layers = job.layers;
  r.sectors = job.sectors;
  r.samples = opt.samples;
  r.tsc_hz = tsc_hz();
  r.timer = opt.fenced ? "lfence+rdtsc" : "rdtsc";
  r.hashed_bytes = job.nodes * job.layers * job.sectors * sdr::message_bytes(job.scheme.variant);
  return r;
}

// sdr: the data the replica encodes (the job's, or generated here), and the replica's buffer.
struct replica_inputs {
  std::vector<std::uint8_t> own_data;
  const std::uint8_t* data = nullptr;
  huge_buffer replica;
};

replica_inputs replica_inputs_for(const sdr::label_job& job) {
  replica_inputs in;
  if (job.scheme.variant != sdr::porep_variant::sdr) return in;
  const std::uint64_t elements = job.nodes * job.sectors;
  const std::uint64_t layer_bytes = elements * 32;
  if (job.data != nullptr) {
    if (const auto bad = sdr::first_noncanonical(job.data, elements); bad >= 0)
      throw std::invalid_argument("profile: data element " + std::to_string(bad) +
                                  " is not a valid BLS12-381 field element");
    in.data = job.data;
  } else {
    in.own_data = sdr::generated_field_data(layer_bytes, 0x243f6a8885a308d3ull);
    in.data = in.own_data.data();
  }
  in.replica = huge_buffer(layer_bytes);
  return in;
}

// The reference backend's last layer digest into r, and for sdr the digest the replica
// must have (returned).
std::string reference_digests(const sdr::label_job& job, const std::uint8_t* data, profile_result& r) {
  const bool is_sdr = job.scheme.variant == sdr::porep_variant::sdr;
  const std::uint64_t elements = job.nodes * job.sectors;
  const std::uint64_t layer_bytes = elements * 32;
  std::string want_replica;
  sdr::rolling_layer_store ref(layer_bytes);
  sdr::make_reference_backend()->label(job, ref);
  r.reference_digest = sha256_hex(ref.layer(job.layers), layer_bytes);
  if (is_sdr) {
    huge_buffer want(layer_bytes);
    sdr::encode(ref.layer(job.layers), data, want.data(), elements);
    want_replica = sha256_hex(want.data(), layer_bytes);
  }
  r.verified_against = std::string("the portable reference backend (last layer") +
                       (is_sdr ? ", and the replica = data + last layer by sdr::encode)" : ")");
  return want_replica;
}

// The cpu backend on one thread with the same engine, timed beside the profile loop.
std::unique_ptr<sdr::backend> compare_backend(const engine& e, const profile_options& opt) {
  if (!opt.compare_backend) return nullptr;
  labeler_options bo;
  bo.engine = std::string(e.name);
  bo.threads = 1;
  bo.prefetch_distance = opt.prefetch_distance;
  return make_cpu_backend(bo);
}

}  // namespace

profile_result profile_labeling(const sdr::label_job& job, sdr::layer_store& store, const engine& e,
                                const profile_options& opt) {
  check_profile_job(job, e, opt);
  const bool is_sdr = job.scheme.variant == sdr::porep_variant::sdr;
  const std::uint64_t layer_bytes = job.nodes * job.sectors * 32;
  profile_result r = profile_of(job, e, opt);
  replica_inputs in = replica_inputs_for(job);
  const std::uint8_t* data = in.data;
  huge_buffer& replica = in.replica;
  const std::string want_replica = opt.verify ? reference_digests(job, data, r) : std::string();
  const std::unique_ptr<sdr::backend> be = compare_backend(e, opt);

  // Last-level-cache misses, counted where the PMU allows (often not in VMs).
  const perf_counter llc(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES);
  r.llc_counter = llc.ok() ? "PERF_COUNT_HW_CACHE_MISSES" : "not available (" + llc.why() + ")";
  bool ok = true;
  tick_counts sum;
  std::uint64_t untimed_misses[2] = {0, 0};
  std::vector<double> untimed_labeling_ticks, backend_ticks;
  auto check = [&](bool replica_too) {
    if (!opt.verify) return;
    r.digest = sha256_hex(store.layer(job.layers), layer_bytes);
    ok = ok && r.digest == r.reference_digest;
    if (replica_too && is_sdr) {
      r.replica_digest = sha256_hex(replica.data(), layer_bytes);
      ok = ok && r.replica_digest == want_replica;
    }
  };
  const auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (std::uint32_t i = 0; i < opt.warmup + opt.samples; ++i) {
    const bool keep = i >= opt.warmup;
    sdr::with_scheme(job.scheme, [&](auto v, auto h) {
      constexpr auto V = decltype(v)::value;
      constexpr auto H = decltype(h)::value;
      auto t0 = std::chrono::steady_clock::now();
      const tick_counts timed = profile_run<true, V, H>(e, job, store, data, replica.data(), opt, llc);
      const double timed_s = seconds_since(t0);
      check(true);
      t0 = std::chrono::steady_clock::now();
      const tick_counts untimed = profile_run<false, V, H>(e, job, store, data, replica.data(), opt, llc);
      const double untimed_s = seconds_since(t0);
      check(true);
      if (!keep) return;
      r.timed_s.push_back(timed_s);
      r.untimed_s.push_back(untimed_s);
      untimed_labeling_ticks.push_back(static_cast<double>(untimed.labeling));
      accumulate(sum, timed);
      for (std::size_t k = 0; k < 2; ++k) untimed_misses[k] += untimed.groups[k].llc_misses;
    });
    if (be) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::uint64_t c0 = detail::tsc_stamp(true);
      be->label(job, store);
      const std::uint64_t c1 = detail::tsc_stamp(true);
      const double s = seconds_since(t0);
      check(false);
      if (keep) {
        r.backend_s.push_back(s);
        backend_ticks.push_back(static_cast<double>(c1 - c0));
      }
    }
  }
  r.verified = opt.verify && ok;

  derive_figures(job, opt.samples, sum, untimed_misses, llc.ok(), untimed_labeling_ticks, backend_ticks, r);
  return r;
}

}  // namespace poreplab::cpu
