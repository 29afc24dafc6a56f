// The `seal` kind: a whole sector seal as `poreplab seal` does it (tree_d, labels written
// as layer files, encoding, replica), timed end to end in a scratch directory.
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "backends/backends.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/seal/seal.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "runner/scratch_sector.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

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
  scratch_dir scratch(fs::temp_directory_path(), "poreplab-seal");
  const fs::path data = scratch.path() / "data.bin";
  write_runner_sector_data(data, sector);
  const seal::seal_inputs in = runner_seal_inputs(sector, layers);
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
