#pragma once
// The verdict: how sequential SDR labeling (PC1) fares on GPUs versus CPUs, per
// registered sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB) and device:
//   - wall time of PC1 (every layer of the proof) for one sector,
//   - how many sectors the device labels at once (memory: the GPU memory planner, RAM
//     for the CPU: two layers per sector plus the shared parent table),
//   - sectors per hour at the best measured (or modeled) throughput,
//   - optionally USD per sector/hour of throughput (--cost DEVICE=USD),
// and per size the crossover: the sector count from which the GPU labels more per second
// than the whole CPU.
// Every figure says where it comes from: measured (the record it was read from, at this
// sector size), extrapolated (a measured per-node rate from another size), modeled (the
// SASS latency model, never measured), or none. Only Filecoin's scheme (sdr/sha256) is
// judged. Inputs are result directories of `poreplab run` (label records; cuda-emu
// records stand in for the GPU only when no GPU record exists, and say so).
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/name_table.hpp"
#include "report/amax.hpp"
#include "model/storage_model.hpp"
#include "report/machines.hpp"
#include "report/reference.hpp"

namespace poreplab::verdict {

inline constexpr std::string_view kVerdictSchema = "poreplab-verdict/1";

// status: measured | extrapolated | modeled | none; text() = "measured (…)".
using source = amax::provenance;

using figure = poreplab::figure;

// A column of the verdict: a device measured, emulated or modeled in one way. Declared in
// the table's order: cores, whole CPUs, then GPUs.
enum class device_kind {
  cpu_core,            // one core of a CPU
  cpu,                 // the whole CPU
  cpu_no_sha_ni_core,  // one core on engines without the SHA extensions (an AVX-only CPU)
  cpu_no_sha_ni,
  gpu,                 // a GPU measured
  gpu_reference,       // a GPU measured elsewhere: a reference dataset the repository holds
  gpu_emulated,        // the GPU kernels run on the host CPU: not a GPU
  gpu_model,           // the SASS latency model: never measured
};
inline constexpr name_table kDeviceKinds{
    "device kind",
    std::array{named<device_kind>{device_kind::cpu_core, "cpu-core"}, named<device_kind>{device_kind::cpu, "cpu"},
               named<device_kind>{device_kind::cpu_no_sha_ni_core, "cpu-no-sha-ni-core"},
               named<device_kind>{device_kind::cpu_no_sha_ni, "cpu-no-sha-ni"}, named<device_kind>{device_kind::gpu, "gpu"},
               named<device_kind>{device_kind::gpu_reference, "gpu-reference"},
               named<device_kind>{device_kind::gpu_emulated, "gpu-emulated"}, named<device_kind>{device_kind::gpu_model, "gpu-model"}}};
constexpr bool is_cpu(device_kind k) { return k <= device_kind::cpu_no_sha_ni; }
constexpr bool is_one_core(device_kind k) { return k == device_kind::cpu_core || k == device_kind::cpu_no_sha_ni_core; }
// A GPU the verdict may judge: measured (here or in a reference dataset) or modeled, never
// the emulation.
constexpr bool is_judged_gpu(device_kind k) {
  return k == device_kind::gpu || k == device_kind::gpu_reference || k == device_kind::gpu_model;
}
// A GPU measured, here or elsewhere.
constexpr bool is_measured_gpu(device_kind k) { return k == device_kind::gpu || k == device_kind::gpu_reference; }
// The one-core column of a whole CPU's kind.
constexpr device_kind one_core_of(device_kind k) {
  return k == device_kind::cpu ? device_kind::cpu_core : k == device_kind::cpu_no_sha_ni ? device_kind::cpu_no_sha_ni_core : k;
}

struct device_row {
  std::string device;  // "CPU 1 core: <model>", "CPU 16 cores: <model>", "GPU: <name>"
  device_kind kind = device_kind::cpu;
  std::string name;    // the CPU model or GPU name alone
  std::string reference;  // gpu-reference: "2026-11-27, docs/results/<dataset>"
  figure pc1_seconds;        // one sector, all layers
  figure sectors_at_once;    // what fits in memory (RAM, device memory) at once
  figure sectors_per_hour;   // best throughput
  figure batch_sectors;      // sectors labeled together at that throughput
  figure pc1_seconds_at_rate;  // PC1 of each sector of that batch (all progress together)
  std::optional<double> usd_per_sector_hour;
  // What bounds sectors per hour at the real sizes (32GiB, 64GiB): the storage model's
  // binding bound for a CPU, the device memory for a GPU; "" elsewhere.
  std::string bound;
};

// One question of the verdict at one size (which device labels one sector sooner, which
// labels more sectors per hour) between the best CPU row and the GPU row (measured, else
// modeled; never the emulation).
struct contest {
  std::optional<std::string> why_not;  // set when a side has no figure
  std::string winner, loser;           // device names (the CPU model, the GPU)
  std::string winner_reference, loser_reference;  // a reference dataset's date and place, or 
  device_kind winner_kind = device_kind::cpu, loser_kind = device_kind::cpu;
  figure_status winner_source = figure_status::none, loser_source = figure_status::none;
  double winner_value = 0, loser_value = 0;  // seconds (one sector) or sectors/hour
  // How far ahead the winner is: the loser's figure would have to be this many times better
  // (or the winner's this many times worse) for the winner to change.
  double factor = 0;
};

// One part of a target machine (--machine): its CPU, or one kind of its GPUs, sized from
// this run's rates (extrapolated) or the GPU latency model (modeled).
struct machine_row {
  std::string machine;  // the machine's name
  std::string part;     // "CPU, 64 cores" | "8x H100 SXM 80GB (sm_90)"
  device_kind kind = device_kind::cpu;  // cpu or gpu
  figure pc1_seconds, sectors_at_once, sectors_per_hour, batch_sectors, pc1_seconds_at_rate;
  std::string bound;  // 32GiB, 64GiB: the storage model's binding bound
  // From the machine's price and power draw (the whole machine while this part labels).
  std::optional<double> usd_per_sector_hour, joules_per_sector, energy_usd_per_sector;
};

// One way to run the whole sealing pipeline (PC1 then PC2) on this run's devices: where each
// phase runs, each phase's time for one sector, the sectors per hour of the pipeline in
// steady state (phases sharing a device take turns; on separate devices they overlap) and
// the phase that limits it.
struct pipeline_row {
  std::string mix;  // "CPU only" | "GPU only" | "PC1 on the CPU, PC2 on the GPU"
  std::string pc1_device, pc2_device;
  figure pc1_seconds, pc2_seconds, sectors_per_hour;
  std::string bottleneck;  // "PC1" | "PC2" | ""
};

// The GPU model against a measured GPU at one size: model / measured of one sector's PC1
// and of sectors per hour (nullopt where either side has no figure).
struct model_check {
  std::string measured;  // the measured row's device text
  std::optional<double> pc1_ratio, per_hour_ratio;
};

struct size_row {
  std::string proof;
  std::uint64_t sector_size = 0;
  std::uint32_t layers = 0;
  std::uint64_t nodes = 0;
  std::vector<device_row> devices;
  figure crossover_sectors;  // smallest GPU sector count passing the whole CPU
  std::string crossover_text;
  contest one_sector;   // PC1 time of one sector: best CPU core vs GPU
  contest throughput;   // sectors per hour: whole CPU vs GPU
  std::vector<machine_row> machines;
  std::vector<model_check> model_checks;
  std::vector<pipeline_row> pipeline;
  std::vector<pipeline_row> machine_pipeline;  // each --machine whole: PC1 and PC2 on its parts
  // 32GiB, 64GiB where this machine seals no batch: each reference machine's CPU sized with
  // this machine's per-core rate (the storage model), and its whole pipeline.
  std::vector<machine_row> reference_machines;
  std::vector<pipeline_row> reference_pipeline;
  // CPU cores whose PC1 keeps one GPU's PC2 busy (one core's best PC1 rate against the
  // GPU's PC2 rate).
  figure cores_per_gpu;
};

struct report {
  std::vector<std::string> dirs;
  std::vector<size_row> sizes;
  std::vector<std::string> notes;
};

using cost_map = std::map<std::string, double>;

// Reads the result directories; throws std::runtime_error when a directory cannot be
// read or holds no usable record (no ok sdr/sha256 label record on any backend), and for
// a --cost that names no device.
// `machines` are sized per size as well; `usd_per_kwh` > 0 prices their energy per sector.
// `references` (report/reference.hpp): datasets measured elsewhere whose GPU records stand
// beside the model where these directories measured no GPU (a missing or corrupt one is a
// note and a warning on stderr, never a failure), and machine files sized at 32GiB and 64GiB
// with this machine's per-core rate where it seals no batch itself.
report compute(const std::vector<std::filesystem::path>& dirs, const cost_map& costs = {},
               const std::vector<machine>& machines = {}, double usd_per_kwh = 0,
               const reference_inputs& references = {});

std::string to_markdown(const report& r);
// Per size, in plain words: who wins one sector and throughput, by what factor, from which
// kind of figure, and how wrong the figures would have to be for that to change.
std::string plain_words(const report& r);
nlohmann::json to_json(const report& r);

// A target machine's GPU kind as the storage model reads it: this run's GPU of that
// architecture (its one-sector node time at the nearest size, its best many-sector rate,
// extrapolated), else the latency model's (MODELED); nullopt when neither exists.
std::optional<storage_model::gpu_part> machine_gpu_part(const records::result_set& in, const machine_gpu& mg,
                                                        std::uint64_t size);

// Thrown by compute() when the directories hold no record it can judge.
struct no_usable_record : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The runner's "verdict" report: DIR/verdict.md and DIR/verdict.json. Returns false
// (after a warning on stderr) on failure; with `when_usable`, a directory without a
// usable record is no failure and gets no files (the runner writes the verdict for every
// run whose records it can judge).
// `references` as compute() takes them.
bool write_report_files(const std::filesystem::path& dir, bool when_usable = false,
                        const reference_inputs& references = {});

}  // namespace poreplab::verdict
