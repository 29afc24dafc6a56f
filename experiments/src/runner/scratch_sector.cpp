// The runner's own sealed sectors (scratch_sector.hpp).
#include "runner/scratch_sector.hpp"

#include <unistd.h>

#include <atomic>
#include <string_view>
#include <vector>

#include "poreplab/file_io.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "util/field_data.hpp"

namespace poreplab::runner {

namespace fs = std::filesystem;

namespace {

fs::path fresh_scratch_path(const fs::path& parent, const std::string& prefix) {
  static std::atomic<unsigned> counter{0};
  return parent / (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

}  // namespace

scratch_dir::scratch_dir(const fs::path& parent, const std::string& prefix)
    : path_(fresh_scratch_path(parent, prefix)), registered_(path_) {
  fs::create_directories(path_);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

seal::seal_inputs runner_seal_inputs(std::uint64_t sector_size, std::uint32_t layers) {
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

void write_runner_sector_data(const fs::path& p, std::uint64_t size) {
  const std::vector<std::uint8_t> data = field_element_data(size, 0x2545f4914f6cdd1dull);
  write_file_atomic(p, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

}  // namespace poreplab::runner
