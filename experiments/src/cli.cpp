#include "cli.hpp"

#include <exception>
#include <iostream>

namespace poreplab::cli {

namespace {
int g_exit_status = 0;
}

void set_exit_status(int status) {
  if (g_exit_status == 0) g_exit_status = status;
}

int run_cli(int argc, char** argv) {
  CLI::App app{"poreplab: PoRep (Filecoin SDR) labeling experiments on CPUs and GPUs"};
  app.set_version_flag("--version", std::string("poreplab ") + POREPLAB_VERSION);
  app.require_subcommand(1);
  add_info_command(app);
  add_hash_command(app);
  add_selftest_command(app);
  add_bench_command(app);
  add_bench_label_command(app);
  add_bench_latency_command(app);
  add_bench_profile_command(app);
  add_vector_command(app);
  add_seal_commands(app);
  add_run_commands(app);
  add_report_command(app);
  add_model_command(app);
  add_parent_cache_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cout.flush();
    std::cerr << "poreplab: error: " << e.what() << " (see --help)\n";
    return e.get_exit_code();
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "poreplab: error: " << e.what() << "\n";
    return 1;
  }
  return g_exit_status;
}

}  // namespace poreplab::cli
