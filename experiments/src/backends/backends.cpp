#include "backends/backends.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/placed_backend.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/label_kernel.hpp"
#include "poreplab/unavailable.hpp"
#include "util/text.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/backend.hpp"
#endif

namespace poreplab {

using nlohmann::json;

namespace {

std::vector<std::string> engine_choices() {
  std::vector<std::string> v = {"auto"};
  for (auto algo : hash_families())
    for (const auto& e : cpu::compiled_engines(algo))
      if (std::find(v.begin(), v.end(), e.name) == v.end()) v.emplace_back(e.name);
  return v;
}

param_spec text_knob(std::string name, std::string fallback, std::function<std::vector<std::string>()> choices,
                     std::vector<std::string> backends, std::string help) {
  param_spec k = text_param(std::move(name), std::move(fallback), std::move(choices), std::move(help));
  k.backends = std::move(backends);
  return k;
}

param_spec count_knob(std::string name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max,
                      std::vector<std::string> backends, std::string help) {
  param_spec k = count_param(std::move(name), fallback, min, max, std::move(help));
  k.backends = std::move(backends);
  return k;
}

// Each backend's name, spelled here only: its table entry and the knobs it reads use it.
const std::string kReference = "reference", kCpu = "cpu", kCudaEmu = "cuda-emu", kCuda = "cuda";
const std::vector<std::string> kGpu = {kCuda, kCudaEmu};

param_spec power_of_two(param_spec k) {
  k.power_of = 2;
  return k;
}

param_spec also_pc2(param_spec k) {
  k.works |= work_pc2;
  return k;
}

}  // namespace

const std::vector<param_spec>& backend_knobs() {
  static const std::vector<param_spec> knobs = {
      text_knob("engine", "auto", engine_choices, {kCpu},
                "engine of the point's hash; auto = the best for the sector count"),
      also_pc2(count_knob("threads", 0, 0, 4096, {kReference, kCpu, kCudaEmu}, "host threads (OpenMP); 0 = all")),
      text_knob("placement", "compact", [] { return cpu::kThreadPlacements.names(); }, {kCpu},
                "where labeling threads are pinned: compact (thread i on the i-th CPU of the affinity mask), spread "
                "(one per core before any SMT sibling), siblings (both SMT threads of a core before the next core), "
                "cores (one per core, siblings idle, threads capped at the cores), none (the OS decides)"),
      count_knob("prefetch_distance", 4, 0, 1024, {kCpu}, "nodes ahead whose parents are prefetched; 0 = none"),
      text_knob("prefetch_level", "l2", [] { return cpu::kPrefetchLevels.names(); }, {kCpu},
                "cache level the parents are prefetched into: l1 (prefetcht0) or l2 (prefetcht1, keeps L1 for the "
                "engine)"),
      text_knob("assembly", "auto", [] { return cpu::kMessageAssemblies.names(); }, {kCpu},
                "message assembly: chunks read in place, or copied into a per-lane buffer first (gather); "
                "auto = in-place"),
      text_knob("encoding", "normal", [] { return cpu::kFieldEncodings.names(); }, {kCpu},
                "ZigZag key + node: normal-form add, or the 2019 r2 Montgomery round trip (SDR: no effect)"),
      text_knob("huge_pages", "default", [] { return cpu::kHugePages.names(); }, {kCpu},
                "madvise the layers and the parent table MADV_HUGEPAGE (on) / MADV_NOHUGEPAGE (off)"),
      count_knob("pad_precompute", 0, 0, 1, {kCpu},
                 "1 = node 0's padding block with precomputed W+K (engines with sha256_pad64)"),
      count_knob("schedule_reuse", 1, 0, 1, {kCpu},
                 "1 = SDR's repeated message blocks reuse their first occurrence's W+K (engines that keep schedules)"),
      count_knob("header_ahead", 1, 0, 1, {kCpu},
                 "1 = SDR SHA-256: the header block (no parent in it) compressed off the chain, leaving 19 "
                 "chained compressions a node: by the producer where one runs, else for one-lane groups in the "
                 "labeling thread; 0 = all 20 on the chain"),
      count_knob("whole_node", 1, 0, 1, {kCpu},
                 "1 = SDR SHA-256, the engine hashes each node whole, parents in and label out: one lane "
                 "with its header off the chain (sha256_sdr_node: shani; without a producer it makes the next "
                 "node's header beside the chain), or many lanes read in place or "
                 "from a producer (sha256_sdr_nodes: avx512-x16); 0 = through the message's chunk rows"),
      text_knob("producer", "auto", [] { return cpu::kParentProducers.names(); }, {kCpu},
                "SDR SHA-256: a coordinator thread copies the parents of the nodes ahead, for a team of hashing "
                "threads (each a slice of the sectors), into a ring they hash from: off, on other cores (core: per "
                "last-level-cache domain, a coordinator and its hashers), on the SMT sibling of its one hasher "
                "(sibling); auto = core where the teams have a CPU for every hashing thread and a layer exceeds "
                "the last-level cache (and 64 MiB)"),
      power_of_two(count_knob("ring_depth", 0, 0, 4096, {kCpu},
                              "nodes a coordinator may run ahead (a power of two from 4); 0 = as many as fill half the "
                              "L2 (16 to 256)")),
      count_knob("hashers_per_coordinator", 0, 0, cpu::kMaxHashersPerCoordinator, {kCpu},
                 "hashing threads one coordinator feeds (producer core); 0 = every other CPU of its last-level-cache "
                 "domain"),
      text_knob("layout", "sector-minor", [] { return sdr::kSectorLayouts.names(); }, kGpu,
                "layer layout on the GPU"),
      count_knob("threads_per_block", 32, 1, 1024, kGpu, "GPU threads per block of the label kernel"),
      text_knob("kernel", "auto", [] { return sdr::kernel_choice_names(); }, kGpu,
                "sdr/sha256 label kernel: one thread per sector (standard; vec16: 16-byte parent loads; rolled: "
                "parent-pair loop not unrolled) or one block per sector (staged: parents loaded a node ahead; split: "
                "schedules and header too); auto = split up to one sector per SM, standard beyond"),
      count_knob("chunk_nodes", 0, 0, std::uint64_t{1} << 40, kGpu,
                 "stream the parent table in chunks of this many nodes; 0 = the memory planner decides"),
      count_knob("launch_nodes", 0, 0, std::uint64_t{1} << 40, kGpu,
                 "most nodes per label launch; 0 = sized by the device's occupancy (cuda) or unbounded (cuda-emu)"),
      also_pc2(count_knob("device", 0, 0, 63, {kCuda}, "CUDA device index")),
  };
  return knobs;
}

const param_spec* find_knob(std::string_view name) {
  for (const auto& k : backend_knobs())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<const param_spec*> knobs_of(std::string_view backend) {
  std::vector<const param_spec*> out;
  for (const auto& k : backend_knobs())
    if (std::find(k.backends.begin(), k.backends.end(), backend) != k.backends.end()) out.push_back(&k);
  return out;
}

namespace {

// Knobs folded into another: a config or flag that still names one gets the knob to use.
struct retired_knob {
  std::string_view name, instead;
};
constexpr retired_knob kRetiredKnobs[] = {
    {"pin_threads", "placement: pin_threads 0 is placement none, 1 is placement compact (the default)"}};

}  // namespace

backend_settings& backend_settings::set(std::string_view name, const json& v) {
  for (const auto& r : kRetiredKnobs)
    if (r.name == name) throw std::invalid_argument("backend option '" + std::string(name) + "' is now " + std::string(r.instead));
  const param_spec* k = find_knob(name);
  std::vector<std::string> names;
  for (const auto& x : backend_knobs()) names.push_back(x.name);
  if (k == nullptr) throw std::invalid_argument("unknown backend option '" + std::string(name) + "' (valid: " + join(names) + ")");
  values_[k->name] = param_value(*k, v);
  return *this;
}

const json& backend_settings::value(std::string_view name, param_type t) const {
  const param_spec* k = find_knob(name);
  if (k == nullptr || k->type != t) throw std::logic_error("backend option '" + std::string(name) + "' is not a knob of that type");
  const auto it = values_.find(k->name);
  return it != values_.end() ? *it : k->fallback;
}

std::string backend_settings::text(std::string_view name) const { return value(name, param_type::text).get<std::string>(); }

std::uint64_t backend_settings::count(std::string_view name) const {
  return value(name, param_type::count).get<std::uint64_t>();
}

namespace {

// The knobs cuda and cuda-emu share, into either's options.
template <class Options>
Options gpu_options(const backend_settings& o) {
  Options g;
  g.layout = sdr::parse_sector_layout(o.text("layout"));
  g.threads_per_block = static_cast<std::uint32_t>(o.count("threads_per_block"));
  g.kernel = sdr::parse_kernel_variant(o.text("kernel"));
  g.chunk_nodes = o.count("chunk_nodes");
  g.launch_nodes = o.count("launch_nodes");
  return g;
}

#ifdef POREPLAB_WITH_CUDA
cuda::backend_options cuda_options(const backend_settings& o) {
  auto c = gpu_options<cuda::backend_options>(o);
  c.device = static_cast<int>(o.count("device"));
  c.stop_requested = [] { return interrupt_signal() != 0; };  // Ctrl-C, Slurm's SIGTERM: stop between launches
  return c;
}
#endif

std::vector<backend_entry> make_entries() {
  std::vector<backend_entry> v;
  v.push_back({kReference, "portable code of common/ only, one OpenMP thread per sector (the oracle)", device_class::oracle,
               [](const backend_settings& o) { return sdr::make_reference_backend(static_cast<int>(o.count("threads"))); },
               [](sdr::label_scheme s, std::size_t, const backend_settings&) {
                 return &cpu::find_engine(s.hash, "portable");
               },
               true});
  v.push_back({kCpu, "the OpenMP labeler on the best (or the named) SHA-256/BLAKE2 engine", device_class::host_cpu,
               [](const backend_settings& o) -> std::unique_ptr<sdr::backend> {
                 return cpu::make_placed_cpu_backend(cpu_labeler_options(o), cpu_thread_placement(o));
               },
               [](sdr::label_scheme s, std::size_t sectors, const backend_settings& o) {
                 sdr::label_job job;
                 job.scheme = s;
                 job.sectors = static_cast<std::uint32_t>(sectors);
                 return &cpu::label_engine(cpu_labeler_options(o), job);
               },
               true});
  v.push_back({kCudaEmu, "the CUDA backend's kernels and launch sequence run on the host", device_class::gpu_emulated,
               [](const backend_settings& o) {
                 auto e = gpu_options<sdr::emulation_options>(o);
                 e.threads = static_cast<int>(o.count("threads"));
                 return sdr::make_emulated_backend(e);
               },
               nullptr, true});
  v.push_back({kCuda, "one GPU thread per sector on a CUDA device", device_class::gpu,
               [](const backend_settings& o) -> std::unique_ptr<sdr::backend> {
#ifdef POREPLAB_WITH_CUDA
                 return cuda::make_cuda_backend(cuda_options(o));
#else
                 (void)o;
                 throw unavailable_error("cuda backend unavailable: built without CUDA (POREPLAB_CUDA=OFF or no nvcc)");
#endif
               },
               nullptr,
#ifdef POREPLAB_WITH_CUDA
               true
#else
               false
#endif
  });
  return v;
}

}  // namespace

const std::vector<backend_entry>& backends() {
  static const std::vector<backend_entry> entries = make_entries();
  return entries;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& b : backends()) out.push_back(b.name);
  return out;
}

bool backend_entry::reads(std::string_view knob) const {
  for (const param_spec* k : knobs_of(name))
    if (k->name == knob) return true;
  return false;
}

const backend_entry& find_backend(std::string_view name) {
  for (const auto& b : backends())
    if (b.name == name) return b;
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (valid: " + join(backend_names()) + ")");
}

std::optional<device_class> device_class_of(std::string_view backend) {
  for (const auto& b : backends())
    if (b.name == backend) return b.device;
  return std::nullopt;
}

bool backend_is(std::string_view backend, device_class c) { return device_class_of(backend) == c; }

const std::string& backend_of(device_class c) {
  for (const auto& b : backends())
    if (b.device == c) return b.name;
  throw std::logic_error("no backend of class " + std::string(kDeviceClasses.name(c)));
}

std::vector<std::string> backends_of(std::initializer_list<device_class> classes) {
  std::vector<std::string> out;
  for (const auto& b : backends())
    if (std::find(classes.begin(), classes.end(), b.device) != classes.end()) out.push_back(b.name);
  return out;
}

std::unique_ptr<sdr::backend> make_backend(std::string_view name, const backend_settings& opt) {
  return find_backend(name).make(opt);
}

cpu::thread_placement cpu_thread_placement(const backend_settings& o) {
  return cpu::kThreadPlacements.parse(o.text("placement"));
}

cpu::labeler_options cpu_labeler_options(const backend_settings& o) {
  cpu::labeler_options l;
  l.engine = o.text("engine");
  l.threads = static_cast<int>(o.count("threads"));
  l.prefetch_distance = o.count("prefetch_distance");
  l.prefetch_to = cpu::kPrefetchLevels.parse(o.text("prefetch_level"));
  l.assembly = cpu::kMessageAssemblies.parse(o.text("assembly"));
  l.encoding = cpu::kFieldEncodings.parse(o.text("encoding"));
  l.pages = cpu::kHugePages.parse(o.text("huge_pages"));
  l.pad_precompute = o.count("pad_precompute") != 0;
  l.schedule_reuse = o.count("schedule_reuse") != 0;
  l.header_ahead = o.count("header_ahead") != 0;
  l.whole_node = o.count("whole_node") != 0;
  l.producer = cpu::kParentProducers.parse(o.text("producer"));
  l.ring_depth = o.count("ring_depth");
  l.hashers_per_coordinator = o.count("hashers_per_coordinator");
  return l;
}

}  // namespace poreplab
