// `poreplab seal`, `poreplab pc2` and `poreplab unseal`.
#include <cstdlib>
#include <iostream>

#include "backends/backends.hpp"
#include "cli/backend_flags.hpp"
#include "cli/cli.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/name_table.hpp"
#include "poreplab/seal/pc2_seal.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

// The last phase `seal` runs.
enum class seal_through { pc1, pc2 };
constexpr name_table<seal_through, 2> kSealThrough{
    "--through phase", {named<seal_through>{seal_through::pc1, "pc1"}, named<seal_through>{seal_through::pc2, "pc2"}}};

struct seal_options {
  std::string proof, porep_id, api_version, prover_id, ticket, data, out, backend = backend_of(device_class::host_cpu);
  std::string parent_cache, memory_limit, through = "pc1";
  double progress_interval = 10;
  std::uint32_t layers = 0;
  std::uint64_t sector_id = 0;
  bool force = false;
};

struct pc2_options {
  std::string sealed, backend = backend_of(device_class::host_cpu);
  double progress_interval = 10;
  bool force = false;
};

struct unseal_options {
  std::string sealed, out, backend = backend_of(device_class::host_cpu), parent_cache;
  bool recompute = false;
  bool force = false;
};

sdr::bytes32 parse32(const std::string& hex, const char* what) {
  const auto v = from_hex(hex, 32, what);
  sdr::bytes32 b;
  std::copy(v.begin(), v.end(), b.begin());
  return b;
}

// --parent-cache, else $FIL_PROOFS_PARENT_CACHE, else none (generate in memory).
std::string parent_cache_dir(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("FIL_PROOFS_PARENT_CACHE");
  return env != nullptr ? env : "";
}

void check_progress_interval(double s) {
  if (!(s >= 0) || s > 1e6) throw usage_error("--progress-interval: expected seconds from 0 to 1000000");
}

// PC2 of a sealed directory on `be`, and its commitments on stdout.
void run_pc2(const std::string& dir, sdr::backend& be, bool force, double progress_interval) {
  auto h = be.make_pc2_hasher();
  seal::pc2_seal_options opt;
  opt.existing = force ? seal::existing_output::replace : seal::existing_output::refuse;
  opt.progress_interval_s = progress_interval;
  if (progress_interval > 0) opt.progress = &std::cerr;
  const auto r = seal::pc2_sealed(dir, *h, be.name(), opt);
  std::cout << "comm_c      " << to_hex(r.trees.comm_c) << "\ncomm_r_last " << to_hex(r.trees.comm_r_last)
            << "\ncomm_r      " << to_hex(r.trees.comm_r) << "\npc2 of " << dir << " in " << r.seconds << " s ("
            << h->name() << ")"
            << (r.inputs_checked ? "; the layers and replica read match seal.json's digests"
                                 : "; seal.json records no file digests")
            << "\n"
            << "seal.json: " << r.trust.text()
            << (r.trust.mac_verified ? "" : ", and the replica decoded to comm_d; its new seal.json carries no MAC")
            << "\n";
  const auto& p = r.trees.pipeline;
  std::cout << "pipeline: feed " << p.feed_s << " s (" << p.bytes_read << " bytes read and checked), hashing " << p.hash_s
            << " s, end to end " << p.end_to_end_s << " s, pace set by " << sdr::kPc2Paces.name(sdr::pace_of(p)) << "; "
            << p.overlapped_reads << " of " << p.chunks << " chunk reads overlapped a hash";
  if (p.digest_s > 0) std::cout << "; digests " << p.digest_s << " s beside them";
  std::cout << "\n";
}

// The proof's parameters and the sector's identity from the flags.
seal::seal_inputs seal_inputs_of(const seal_options& so) {
  seal::seal_inputs in;
  if (!so.proof.empty()) {
    const auto& p = sdr::find_registered_proof(so.proof);
    if (!so.api_version.empty() || so.layers != 0)
      throw usage_error("--api-version and --layers come from --proof; give them only with --porep-id");
    in.porep_id = sdr::porep_id_of(p);
    in.api = p.api;
    in.layers = p.layers;
    in.expected_sector_size = p.sector_size;
    in.proof_name = std::string(p.name);
  } else if (!so.porep_id.empty()) {
    if (so.api_version.empty() || so.layers == 0) throw usage_error("--porep-id needs --api-version and --layers");
    in.porep_id = parse32(so.porep_id, "--porep-id");
    in.api = sdr::parse_api_version(so.api_version);
    if (so.layers > sdr::kMaxLayers)
      throw usage_error("--layers: " + std::to_string(so.layers) + " is not from 1 to " + std::to_string(sdr::kMaxLayers) +
                        " (Filecoin's SDR uses 2 or 11)");
    in.layers = so.layers;
  } else {
    throw usage_error("give --proof NAME, or --porep-id HEX with --api-version and --layers");
  }
  in.prover_id = parse32(so.prover_id, "--prover-id");
  in.sector_id = so.sector_id;
  in.ticket = parse32(so.ticket, "--ticket");
  return in;
}

void run_seal(const seal_options& so, sdr::backend& be) {
  const seal::seal_inputs in = seal_inputs_of(so);
  seal::seal_options opt;
  opt.existing = so.force ? seal::existing_output::replace : seal::existing_output::refuse;
  if (!so.memory_limit.empty()) {
    const auto limit = parse_size(so.memory_limit);
    if (!limit || *limit == 0)
      throw usage_error("--memory-limit: '" + so.memory_limit + "' is not a size such as 3GiB or 512MiB");
    opt.memory_limit = *limit;
  }
  check_progress_interval(so.progress_interval);
  seal_through through = seal_through::pc1;
  try {
    through = kSealThrough.parse(so.through);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  if (through == seal_through::pc2) be.make_pc2_hasher();  // unavailable: said before the seal, not after
  opt.progress_interval_s = so.progress_interval;
  if (so.progress_interval > 0) opt.progress = &std::cerr;
  const interrupt_scope on_signal;  // Ctrl-C stops after the current layer, removing the .tmp files
  const auto r = seal::seal(in, so.data, so.out, be, parent_cache_dir(so.parent_cache), opt);
  std::cout << "comm_d      " << to_hex(r.comm_d) << "\nreplica_id  " << to_hex(r.replica_id) << "\nsealed into " << so.out
            << "\n";
  if (through == seal_through::pc2) run_pc2(so.out, be, so.force, so.progress_interval);
}

void add_seal_command(CLI::App& app) {
  auto so = std::make_shared<seal_options>();
  auto* seal = app.add_subcommand("seal", "Seal a sector: layer files, tree_d, replica and seal.json (PC1 layout)");
  auto* proof = seal->add_option("--proof", so->proof, "registered proof name, e.g. StackedDrg2KiBV1_1");
  auto* pid = seal->add_option("--porep-id", so->porep_id, "porep_id (32 bytes hex), instead of --proof");
  seal->add_option("--api-version", so->api_version, "with --porep-id: 1.0.0 | 1.1.0 | 1.2.0");
  seal->add_option("--layers", so->layers, "with --porep-id: number of layers");
  proof->excludes(pid);
  pid->excludes(proof);
  seal->add_option("--prover-id", so->prover_id, "prover id (32 bytes hex)")->required();
  seal->add_option("--sector-id", so->sector_id, "sector number")->required();
  seal->add_option("--ticket", so->ticket, "ticket (32 bytes hex)")->required();
  seal->add_option("--data", so->data, "staged (fr32-padded) sector data")->required();
  seal->add_option("--out", so->out, "output directory")->required();
  seal->add_option("--backend", so->backend, "labeling backend")->capture_default_str();
  auto seal_knobs = std::make_shared<backend_settings>();
  const auto apply_seal_knobs = add_backend_flags(seal, seal_knobs);
  seal->add_option("--parent-cache", so->parent_cache, "parent cache directory (default $FIL_PROOFS_PARENT_CACHE)");
  seal->add_option("--memory-limit", so->memory_limit,
                   "memory the seal may use, e.g. 3GiB (default: MemAvailable, capped by the cgroup's limit); "
                   "past 4x the sector it streams everything through files (bounded mode)");
  seal->add_option("--progress-interval", so->progress_interval,
                   "seconds between progress lines on stderr within a layer (0: none)")
      ->capture_default_str();
  seal->add_flag("--force", so->force,
                 "replace a previous seal in --out (its layer files, tree_d, replica.dat, seal.json; other files are kept)");
  seal->add_option("--through", so->through,
                   "last phase: pc1 (layers, tree_d, replica) or pc2 (also tree_c, tree_r_last and comm_r, as `poreplab "
                   "pc2` writes them)")
      ->capture_default_str();
  seal->callback([so, seal_knobs, apply_seal_knobs] {
    apply_seal_knobs();
    run_seal(*so, *make_backend(so->backend, *seal_knobs));
  });
}

void add_pc2_command(CLI::App& app) {
  auto po = std::make_shared<pc2_options>();
  auto* pc2 = app.add_subcommand(
      "pc2", "PC2 of a sealed directory: tree_c over the layers' columns, tree_r_last over the replica, comm_r (Poseidon), "
             "written beside the seal and into its seal.json; two reader threads read and check the next chunks of the "
             "layer files while the hasher hashes one, and the files' digests are checked beside them (timed by "
             "`bench pc2 --source files --from DIR`)");
  pc2->add_option("--sealed", po->sealed, "directory written by poreplab seal")->required();
  pc2->add_option("--backend", po->backend, "backend whose Poseidon runs it")->capture_default_str();
  auto pc2_knobs = std::make_shared<backend_settings>();
  const auto apply_pc2_knobs = add_backend_flags(pc2, pc2_knobs, {}, work_pc2);
  pc2->add_option("--progress-interval", po->progress_interval, "seconds between progress lines on stderr (0: none)")
      ->capture_default_str();
  pc2->add_flag("--force", po->force, "compute PC2 again where seal.json already records it, replacing its tree files");
  pc2->callback([po, pc2_knobs, apply_pc2_knobs] {
    check_progress_interval(po->progress_interval);
    apply_pc2_knobs();
    auto be = make_backend(po->backend, *pc2_knobs);
    const interrupt_scope on_signal;  // Ctrl-C stops between chunks, removing the .tmp files
    run_pc2(po->sealed, *be, po->force, po->progress_interval);
  });

}

void add_unseal_command(CLI::App& app) {
  auto uo = std::make_shared<unseal_options>();
  auto* unseal = app.add_subcommand("unseal", "Recover the data of a sealed directory and check it against comm_d");
  unseal->add_option("--sealed", uo->sealed, "directory written by poreplab seal")->required();
  unseal->add_option("--out", uo->out, "file to write the recovered data to")->required();
  unseal->add_flag("--recompute", uo->recompute, "recompute the labels instead of reading the last layer file");
  unseal->add_option("--backend", uo->backend, "labeling backend (with --recompute)")->capture_default_str();
  auto unseal_knobs = std::make_shared<backend_settings>();
  const auto apply_unseal_knobs = add_backend_flags(unseal, unseal_knobs);
  unseal->add_option("--parent-cache", uo->parent_cache, "parent cache directory (default $FIL_PROOFS_PARENT_CACHE)");
  unseal->add_flag("--force", uo->force, "replace --out if it exists");
  unseal->callback([uo, unseal_knobs, apply_unseal_knobs] {
    apply_unseal_knobs();
    auto be = make_backend(uo->backend, *unseal_knobs);
    const interrupt_scope on_signal;
    const auto r = seal::unseal(uo->sealed, uo->out, *be, uo->recompute, parent_cache_dir(uo->parent_cache),
                               uo->force ? seal::existing_output::replace : seal::existing_output::refuse);
    std::cout << "comm_d " << to_hex(r.comm_d) << " matches; data written to " << uo->out
              << (r.recomputed ? " (labels recomputed)" : "")
              << (r.digests_checked ? "; the files read match seal.json's digests"
                                    : "; seal.json records no file digests: the files read were checked "
                                      "against comm_d only")
              << "\n";
    if (!r.recomputed) std::cout << "seal.json: " << r.trust.text() << "\n";
  });
}

}  // namespace

void add_seal_commands(CLI::App& app) {
  add_seal_command(app);
  add_pc2_command(app);
  add_unseal_command(app);
}

}  // namespace poreplab::cli
