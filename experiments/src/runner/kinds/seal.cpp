// The `seal` kind: a whole sector seal as `poreplab seal` does it (tree_d, labels written
// as layer files, encoding, replica), timed end to end in a scratch directory.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string_view>

#include "backends/backends.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "util/field_data.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Scratch directory removed with everything in it when the point ends.
// Registered for removal too, for a process that must end before the point unwinds.
class scratch_dir {
 public:
  scratch_dir() : path_(fresh_path()), registered_(path_) { fs::create_directories(path_); }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  static fs::path fresh_path() {
    static std::atomic<unsigned> counter{0};
    return fs::temp_directory_path() /
           ("poreplab-seal-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  }
  fs::path path_;
  poreplab::registered_path registered_;
};

// The registered V1_1 proof of this sector size, or the 2KiB one's id for other sizes
// (the graph only depends on porep_id, api version and node count).
seal::seal_inputs inputs_for(std::uint64_t sector_size, std::uint32_t layers) {
  seal::seal_inputs in;
  in.porep_id = sdr::make_porep_id(5);
  in.api = sdr::api_version::v1_1_0;
  for (const auto& p : sdr::registered_proofs())
    if (p.sector_size == sector_size && p.api == sdr::api_version::v1_1_0) {
      in.porep_id = sdr::porep_id_of(p);
      break;
    }
  in.layers = layers;
  in.prover_id.fill(0x11);
  in.sector_id = 7;
  in.ticket.fill(0x22);
  in.proof_name = "poreplab runner seal";
  return in;
}

void write_data_file(const fs::path& p, std::uint64_t size) {
  const std::vector<std::uint8_t> data = field_element_data(size, 0x2545f4914f6cdd1dull);
  write_file_atomic(p, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

std::string unavailable(const json& axes) {
  const double sector = axes[axis::sector_size].get<double>();
  const double layers = axes[axis::layers].get<double>();
  // Data, tree_d, labels and replica in memory at once, plus the parent table.
  if (auto m = memory_shortfall(6 * sector + sector / 32 * 14 * 4); !m.empty()) return m;
  // Input, layer files, tree_d and replica on disk, twice for the reference check.
  std::error_code ec;
  const auto space = fs::space(fs::temp_directory_path(ec), ec);
  const double disk = 2 * sector * (layers + 4);
  if (!ec && double(space.available) < disk)
    return "does not fit on disk in " + fs::temp_directory_path(ec).string() + ": needs about " + gib_text(disk) +
           ", " + gib_text(double(space.available)) + " free";
  try {
    make_backend(axes[axis::backend].get<std::string>(), knobs_of_point(axes));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  const std::uint64_t sector = axes[axis::sector_size];
  const std::uint32_t layers = axes[axis::layers];
  const std::string backend = axes[axis::backend];
  scratch_dir scratch;
  const fs::path data = scratch.path() / "data.bin";
  write_data_file(data, sector);
  const seal::seal_inputs in = inputs_for(sector, layers);
  auto be = make_backend(backend, knobs_of_point(axes));

  measurement m;
  m.metric = "seconds";
  seal::seal_result r;
  for (std::uint32_t i = 0; i < warmup + samples; ++i) {
    const fs::path out = scratch.path() / "sealed";
    fs::remove_all(out);
    const auto t0 = std::chrono::steady_clock::now();
    r = seal::seal(in, data, out, *be);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i >= warmup) m.samples.push_back(s);
  }
  const json& files = r.manifest["files"];
  m.digest = files[seal::kReplicaFile]["sha256"];

  if (!backend_is(backend, device_class::oracle)) {
    // The same sector sealed by the portable reference must give the same files.
    auto ref = sdr::make_reference_backend();
    const auto rr = seal::seal(in, data, scratch.path() / "reference", *ref);
    m.verified = rr.manifest["files"] == files && rr.comm_d == r.comm_d;
    m.verified_against = "the same sector sealed by the reference backend (every file's SHA-256)";
  } else {
    const fs::path back = scratch.path() / "unsealed.bin";
    seal::unseal(scratch.path() / "sealed", back, *be, false);
    m.verified = read_regular_file(data) == read_regular_file(back);
    m.verified_against = "unsealing the replica gives back the data";
  }
  const backend_entry& entry = find_backend(backend);
  const cpu::engine* e = entry.floor_engine ? entry.floor_engine(sdr::kFilecoinScheme, 1, knobs_of_point(axes)) : nullptr;
  const std::string engine = e != nullptr ? std::string(e->name) : be->name();
  m.context = {{ctx::engine, engine},
               {"nodes", sector / 32},
               {"comm_d", r.manifest.value("comm_d", "")},
               {"replica_id", r.manifest.value("replica_id", "")}};
  return m;
}

json rates(const json& axes, const json&, double median) {
  const double sector = axes[axis::sector_size].get<double>();
  const double layers = axes[axis::layers].get<double>();
  json r = {{"seconds", median}};
  if (median > 0) {
    r[rate::ns_per_node_layer] = median * 1e9 / (sector / 32 * layers);
    r["gb_per_s"] = sector / median / 1e9;
  }
  return r;
}

}  // namespace

kind_spec seal_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::seal);
  k.help = "a whole sector seal (tree_d, layer files, replica) as `poreplab seal` does it";
  k.axes = labeling_axes(false);
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
