// `poreplab vector verify`: recompute a reference vector on one or all backends.
#include <iostream>

#include "backends/backends.hpp"
#include "cli/backend_flags.hpp"
#include "cli/cli.hpp"
#include "poreplab/seal/vector_file.hpp"

namespace poreplab::cli {

namespace {
struct vector_options {
  std::string backend = "reference";
  std::vector<std::string> files;
};
}  // namespace

void add_vector_command(CLI::App& app) {
  auto opt = std::make_shared<vector_options>();
  auto* group = app.add_subcommand("vector", "Reference vectors");
  group->require_subcommand(1);
  auto* verify = group->add_subcommand("verify", "Recompute everything a vector file lists and compare");
  verify->add_option("--backend,-b", opt->backend, "backend name, or all")->capture_default_str();
  auto knobs = std::make_shared<backend_settings>();
  const auto apply_knobs = add_backend_flags(verify, knobs);
  verify->add_option("files", opt->files, "vector files (poreplab-sdr-vector/1)")->required();
  verify->callback([opt, knobs, apply_knobs] {
    apply_knobs();
    std::vector<std::string> backends;
    if (opt->backend == "all")
      backends = backend_names();
    else
      backends.push_back(opt->backend);
    // Load every file first: a malformed vector is an error before any work.
    std::vector<seal::sdr_vector> vectors;
    for (const auto& f : opt->files) vectors.push_back(seal::load_sdr_vector(f));
    std::size_t passed = 0, failed = 0, skipped = 0;
    for (const auto& v : vectors) {
      for (const auto& name : backends) {
        std::unique_ptr<sdr::backend> be;
        try {
          be = make_backend(name, *knobs);
        } catch (const std::runtime_error& e) {
          if (opt->backend != "all") throw;
          std::cout << "skip " << v.path.filename().string() << " [" << name << "]: " << e.what() << "\n";
          continue;
        }
        const bool ok = seal::verify_vector(v, *be, [&](const seal::check_result& r) {
          std::cout << (r.skipped ? "skip " : r.ok ? "ok   " : "FAIL ") << v.path.filename().string() << " [" << name
                    << "] " << r.name;
          if (!r.ok || r.skipped) std::cout << ": " << r.detail;
          std::cout << "\n" << std::flush;
          (r.skipped ? skipped : r.ok ? passed : failed)++;
        });
        if (!ok) set_exit_status(1);
      }
    }
    std::cout << passed << " passed, " << failed << " failed";
    if (skipped != 0) std::cout << ", " << skipped << " not in the vectors";
    std::cout << "\n";
  });
}

}  // namespace poreplab::cli
