#pragma once
// A GPU latency model that needs no GPU: it reads the SASS of the compiled kernels
// (embedded at build time, see cmake/sass_embed.cmake), follows one iteration of each
// kernel's main loop (one node of a label kernel, one compression of a hash chain),
// and turns instruction counts and the read-after-write critical path into predicted
// latencies and device-wide rates with the per-architecture figures of a latency table
// (experiments/data/gpu-latency.json). Every figure it produces is modeled, not measured.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/sdr/scheme.hpp"
#include "records/schema.hpp"

namespace poreplab::gpu_model {

// A malformed latency table or SASS text, or a request the model cannot answer.
struct model_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- SASS ----

// Registers as integer keys: R0..R255, UR0..UR63, P0..P6, UP0..UP6. RZ, URZ, PT and UPT
// are constants and get no key.
int register_key(std::string_view name);  // -1 for a constant or not a register
std::string register_name(int key);

struct sass_instruction {
  std::uint32_t address = 0;
  std::string guard;                  // "", "P0", "!P0", "UP1"...
  std::string opcode;                 // with modifiers: "IADD3.X", "LDG.E.128"
  std::string base;                   // "IADD3"
  std::vector<std::string> operands;  // as written
  std::vector<int> dests, srcs;       // register keys; the guard is a source
  std::optional<std::uint32_t> target;  // BRA / CALL target address
  std::string text;                   // "@P0 IADD3 R4, P0, R2, R3, RZ"
};

struct sass_function {
  std::string arch;     // "sm_80"
  std::string mangled;  // as in "Function : <mangled>"
  std::string name;     // demangled
  std::vector<sass_instruction> code;
  int registers = 0;  // per thread, from cuobjdump -res-usage; 0 when unknown
};

// Parses cuobjdump -sass output (raw or compacted). `arch` applies until the text names
// one ("code for sm_80" / "arch = sm_80"). Throws model_error on an instruction it
// cannot read.
std::vector<sass_function> parse_sass(std::string_view text, const std::string& arch = {});
// Only the functions whose kernel_label() is `label` (cheaper: others are not parsed).
std::vector<sass_function> parse_sass(std::string_view text, const std::string& arch, const std::string& label);
// One instruction line without its address: "IADD3 R4, P0, R2, R3, RZ".
sass_instruction parse_instruction(std::string_view line, std::uint32_t address = 0);
// "<mangled> REG:<n> STACK:<n>" lines (cuobjdump -res-usage, as embedded) -> registers.
std::map<std::string, int> parse_resources(std::string_view text);

std::string demangle(const std::string& mangled);  // the input when it is not a C++ name
// The kernels the model analyses, spelled once: the label kernel, whose label carries
// its scheme and design, and one hash chain kernel per family (poreplab/hash/chain_kernel.hpp).
inline constexpr std::string_view kLabelKernel = "label_layer_kernel";
// A family's chain kernel is <family>_chain_kernel, by the name kHashFamilies gives it.
inline std::string chain_kernel_label(hash_family f) { return std::string(hash_family_name(f)) + "_chain_kernel"; }
// "label_layer_kernel<sdr, sha256>"; a design other than standard follows the hash
// ("label_layer_kernel<sdr, sha256, split>").
std::string label_kernel_label(sdr::label_scheme s, sdr::kernel_variant k = sdr::kernel_variant::standard);
// Whether a label (kernel_label's) names the label kernel (one node an iteration) rather
// than a chain kernel (one compression).
bool is_label_kernel(std::string_view label);
// Every label a config may name, whether or not this build has its SASS.
std::vector<std::string> kernel_labels();

// "label_layer_kernel<sdr, sha256>", "sha256_chain_kernel"; empty when `name` is none of
// the kernels the model analyses.
std::string kernel_label(const std::string& demangled);
// The design of a label kernel named by kernel_label (standard when the label names none).
sdr::kernel_variant kernel_variant_of_label(const std::string& label);

// ---- loops and one iteration ----

// A loop closed by a backward branch: instructions head..latch (indices into code).
struct loop_range {
  std::size_t head = 0, latch = 0;
  std::size_t size() const { return latch - head + 1; }
};
// Every backward branch except self-branches (the "BRA ." after EXIT).
std::vector<loop_range> find_loops(const sass_function& f);
// The largest loop (the outermost one); nullopt without a loop.
std::optional<loop_range> main_loop(const sass_function& f);

// The instructions one iteration of `loop` issues, in order. Branches whose predicate
// follows from constants set inside the iteration (inner loop counters) are followed
// exactly; any other branch takes its larger side and never leaves the loop early;
// an inner loop whose trip count cannot be derived runs once (noted).
struct iteration_trace {
  std::vector<std::size_t> path;    // indices into code
  std::vector<std::string> notes;  // what was assumed
  bool exact = true;               // no branch needed a guess
};
// With `tid`, the trace follows the thread of that index in block 0: branches on the
// thread index (roles of a block kernel) are resolved, from the code before the loop on.
iteration_trace trace_iteration(const sass_function& f, const loop_range& loop,
                                std::optional<std::uint32_t> tid = std::nullopt);

// ---- latency table ----

// An execution pipe of an SM sub-partition and how long one warp instruction occupies it:
// a pipe of 16 lanes takes a 32-thread warp instruction in 2 cycles, so a warp cannot
// issue to it more often than every 2 cycles even when nothing else holds it back.
struct issue_pipe {
  std::string name;   // "alu", "fma", "lsu"...
  double cycles = 0;  // cycles the pipe is busy per warp instruction
};

struct arch_params {
  std::string arch;    // "sm_80"
  std::string device;  // which product the figures describe
  double sm_count = 0, clock_mhz = 0, schedulers_per_sm = 0, issue_per_scheduler = 0;
  std::vector<issue_pipe> pipes;
  // Opcode, with leading modifiers where they change the pipe ("IMAD.WIDE"), -> pipes index.
  std::map<std::string, std::size_t> opcode_pipe;
  double max_threads_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0, register_alloc_unit = 0;
  double hbm_gb_per_s = 0;
  std::map<std::string, double> memory_cycles;  // l1, l2, dram, shared, constant
  std::string global_load_level;                 // which memory level LDG/LD see: l1, l2, dram
  std::map<std::string, double> opcode_cycles;  // base opcode -> cycles (loads resolved)
  std::map<std::string, std::string> opcode_memory;  // base opcode -> memory level
  double default_cycles = 0;
  std::vector<std::string> assumed;  // fields marked "status": "assumed"
};

struct latency_table {
  std::string file;  // for messages
  std::map<std::string, arch_params> archs;
};

// Validates every field; any problem is one model_error naming the file and the field
// ("gpu-latency.json: /archs/sm_80/opcodes/IADD3/cycles: expected a positive number, got -4").
latency_table parse_latency_table(const nlohmann::json& j, const std::string& file);
// Reads and validates FILE; an empty path reads the table compiled into the binary.
latency_table load_latency_table(const std::string& path);
const arch_params& arch_of(const latency_table& t, const std::string& arch);  // model_error when absent

// The latency of one instruction on an architecture, with its memory level resolved
// (`load_level` overrides the table's global_load_level when not empty).
double instruction_cycles(const sass_instruction& in, const arch_params& a, const std::string& load_level = {});
// The pipe an instruction issues to: the longest opcode prefix (whole modifiers) the table
// names; nullopt for an opcode on no pipe (it costs its issue slot only).
std::optional<std::size_t> pipe_of(const sass_instruction& in, const arch_params& a);

// What one instruction occupies besides its issue slot: a pipe (index; -1 for none) for
// `cycles` cycles.
struct pipe_use {
  std::ptrdiff_t pipe = -1;
  double cycles = 0;
};
pipe_use pipe_use_of(const sass_instruction& in, const arch_params& a);

// ---- analysis ----

// Longest read-after-write path (operands ready at 0 at the start) and the cycle at
// which one warp issuing in order, one instruction per cycle, has finished. With a pipe
// function, an instruction also waits until its pipe has taken the previous warp
// instruction sent to it (the in-order schedule; the critical path ignores pipes).
struct schedule_result {
  double critical_path = 0;
  double in_order = 0;
  std::vector<std::size_t> path;  // the critical path, positions in `seq`
};
template <class Latency, class Pipe>
schedule_result schedule(const std::vector<const sass_instruction*>& seq, Latency latency, Pipe pipe);
template <class Latency>
schedule_result schedule(const std::vector<const sass_instruction*>& seq, Latency latency) {
  return schedule(seq, latency, [](const sass_instruction&) { return pipe_use{}; });
}

// One role of a block kernel (label_pipelined.hpp): the traced thread's issue per phase
// (the stretches between block barriers) of one step.
struct role_analysis {
  std::string name;
  std::uint32_t tid = 0, lanes = 1;     // traced thread; active lanes of its warp
  std::size_t instructions = 0;         // issued per step by its warp
  std::vector<double> phase_cycles;     // in-order cycles of each phase
  double bytes = 0;                     // global loads and stores of the warp per step
  std::vector<std::string> notes;
  bool exact = true;
};

struct kernel_analysis {
  std::string arch, label, mangled, name;
  std::string unit;  // "node" (label kernels) or "compression" (chain kernels)
  sdr::kernel_variant kernel = sdr::kernel_variant::standard;  // label kernels: the design
  bool has_loop = false;
  std::uint32_t loop_head = 0, loop_latch = 0;  // addresses
  std::size_t instructions = 0;                 // issued per iteration
  std::map<std::string, std::size_t> by_opcode;  // base opcode -> count
  double critical_path_cycles = 0;
  double in_order_cycles = 0;
  double bytes_per_iteration = 0;  // global/generic loads and stores, repeats counted
  std::size_t round_constant_hits = 0;  // SHA-256 K[0] immediates: compressions in the trace
  int registers = 0;
  std::string registers_source;
  std::string load_level;
  std::vector<std::string> notes;
  std::set<std::string> default_latency_opcodes;  // took the table's default latency
  std::set<std::string> unpiped_opcodes;          // on no pipe of the table: issue slot only
  // Cycles each pipe is busy per iteration, over every warp that issues it (for a block
  // kernel, the sum over its roles' warps).
  std::map<std::string, double> pipe_cycles;
  bool exact = true;
  // Block kernels: one block per sector; a step's phases each last as long as their
  // slowest role, plus a barrier. in_order_cycles is then the step (one node).
  std::uint32_t block_threads = 0;  // 0: one thread per sector
  std::vector<role_analysis> roles;
  std::vector<double> phase_cycles;  // the slowest role's, per phase
  std::size_t warp_instructions = 0;  // issued per node by all the block's warps
};

kernel_analysis analyze(const sass_function& f, const arch_params& a, const std::string& load_level = {});

struct prediction {
  double single_thread_cycles = 0;  // the in-order schedule of one iteration
  double single_thread_ns = 0;
  double critical_path_ns = 0;
  double resident_threads = 0;  // device-wide
  std::string resident_limit;   // what limits them: threads, blocks, registers
  double issue_rate = 0, latency_rate = 0, memory_rate = 0;  // iterations per second
  double rate = 0;
  std::string bound;  // "issue", "latency" or "memory"
  std::string issue_limit;  // what bounds issue_rate: "issue slots" or "<name> pipe"
};

prediction predict(const kernel_analysis& k, const arch_params& a, unsigned threads_per_block);
// Predicted ns per iteration when `parallel` independent threads (sectors, chains) run.
double predicted_ns_per_iteration(const prediction& p, double parallel);

// ---- the build's SASS ----

struct embedded_arch {
  std::string arch, text, resources;
};
std::vector<embedded_arch> embedded_sass();
std::string embedded_note();  // why there is none, or ""
// The analysed kernels of the build, for the given architectures (empty: all), and only
// the one named `label` when it is not empty.
std::vector<sass_function> embedded_kernels(const std::vector<std::string>& archs = {}, const std::string& label = {});
// The names (kernel_label) of the analysed kernels of one architecture, without parsing
// their instructions.
std::vector<std::string> embedded_kernel_labels(const std::string& arch);

// ---- the whole model ----

struct model_options {
  std::vector<std::string> archs;  // empty: every architecture of the table that has SASS
  std::string load_level;          // empty: the table's
  unsigned threads_per_block = 32;
};

struct model_row {
  kernel_analysis analysis;
  prediction predicted;
  std::string device;
};

std::vector<model_row> run_model(const latency_table& t, const model_options& o);
nlohmann::json to_json(const model_row& r);

// Measured GPU records (kind label/hash, backend cuda) from RESULTS_DIR/records.jsonl.
struct measured_point {
  std::string dir, experiment, device, algo;  // algo: sha256, blake2s, blake2b (label: sha256)
  records::record_kind kind = records::record_kind::label;  // label or hash
  std::string arch;    // sm_80 / sm_90 from the device name, or "" when unknown
  std::string metric;  // the record's metric: records::rate::ns_per_node_layer, ns_per_block...
  double value = 0;    // median
  double kernel_value = 0;  // label points: the label kernels alone (CUDA events); 0 when not recorded
  double parallel = 0;  // sectors / chains
  // Label points: the kernel that ran (the record's kernel_used, else its kernel axis;
  // none when neither names one), and whether the layers were sector-major.
  std::optional<sdr::kernel_variant> kernel;
  bool sector_major = false;
  nlohmann::json axes;
};
std::vector<measured_point> read_measured(const std::string& dir);

// ---- template definition ----

template <class Latency, class Pipe>
schedule_result schedule(const std::vector<const sass_instruction*>& seq, Latency latency, Pipe pipe) {
  schedule_result r;
  std::map<std::ptrdiff_t, double> pipe_free;  // pipe -> first cycle it takes another instruction
  std::map<int, double> ready;
  std::map<int, std::size_t> writer;  // key -> position of the last writer
  std::vector<std::ptrdiff_t> parent(seq.size(), -1);
  std::vector<double> finish(seq.size(), 0);
  double issue = -1;  // in-order: the cycle of the previous issue
  std::map<int, double> ready_in_order;
  double end_in_order = 0;
  std::ptrdiff_t last = -1;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const sass_instruction& in = *seq[i];
    const double lat = latency(in);
    double start = 0, start_in_order = issue + 1;
    std::ptrdiff_t from = -1;
    auto consider = [&](int key) {
      if (auto it = ready.find(key); it != ready.end() && it->second > start) {
        start = it->second;
        from = static_cast<std::ptrdiff_t>(writer[key]);
      }
      if (auto it = ready_in_order.find(key); it != ready_in_order.end() && it->second > start_in_order)
        start_in_order = it->second;
    };
    for (int s : in.srcs) consider(s);
    // A guarded write keeps the old value when the guard is false: it depends on it.
    if (!in.guard.empty())
      for (int d : in.dests) consider(d);
    const pipe_use use = pipe(in);
    if (use.pipe >= 0) {
      if (auto it = pipe_free.find(use.pipe); it != pipe_free.end()) start_in_order = std::max(start_in_order, it->second);
      pipe_free[use.pipe] = start_in_order + use.cycles;
    }
    parent[i] = from;
    finish[i] = start + (in.dests.empty() ? 1.0 : lat);
    for (int d : in.dests) {
      ready[d] = start + lat;
      writer[d] = i;
      ready_in_order[d] = start_in_order + lat;
    }
    issue = start_in_order;
    end_in_order = std::max(end_in_order, start_in_order + (in.dests.empty() ? 1.0 : lat));
    if (last < 0 || finish[i] > r.critical_path) {
      r.critical_path = finish[i];
      last = static_cast<std::ptrdiff_t>(i);
    }
  }
  r.in_order = end_in_order;
  for (std::ptrdiff_t i = last; i >= 0; i = parent[static_cast<std::size_t>(i)])
    r.path.insert(r.path.begin(), static_cast<std::size_t>(i));
  return r;
}

}  // namespace poreplab::gpu_model
