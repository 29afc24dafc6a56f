#include "cli/cli.hpp"

#include <exception>
#include <new>
#include <string>
#include <iostream>

#include "poreplab/interrupt.hpp"
#include "poreplab/json_input.hpp"

namespace poreplab::cli {

namespace {
int g_exit_status = 0;

// An error is one line.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// CLI11's "Could not convert: --layers = -1" as "--layers: cannot use '-1' (not a value of
// this option)"; its other messages name the option already.
std::string usage_text(const CLI::ParseError& e) {
  std::string what = one_line(e.what());
  const std::string prefix = "Could not convert: ";
  if (what.rfind(prefix, 0) == 0) {
    const std::string rest = what.substr(prefix.size());
    if (const auto eq = rest.find(" = "); eq != std::string::npos)
      return rest.substr(0, eq) + ": cannot use '" + rest.substr(eq + 3) + "' (not a value of this option)";
  }
  return what;
}
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
  add_tune_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cout.flush();
    std::cerr << "poreplab: error: " << usage_text(e) << " (see --help)\n";
    return 1;  // every usage error, whatever CLI11's own code (104 for a value it cannot convert)
  } catch (const poreplab::interrupted& e) {
    std::cout.flush();
    std::cerr << "poreplab: error: " << e.what() << "\n";
    return 128 + e.signal;
  } catch (const std::bad_alloc&) {
    // Sizes that grow with the input are checked against MemAvailable first; this is
    // memory that ran out anyway (other processes, overcommit).
    std::cout.flush();
    std::cerr << "poreplab: error: out of memory: an allocation failed\n";
    return 1;
  } catch (const nlohmann::json::exception& e) {
    std::cout.flush();
    std::cerr << "poreplab: error: unexpected JSON value: " << json_reason(e) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "poreplab: error: " << one_line(e.what()) << "\n";
    return 1;
  }
  return g_exit_status;
}

}  // namespace poreplab::cli
