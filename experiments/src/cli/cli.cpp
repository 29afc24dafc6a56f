#include "cli/cli.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <iostream>

#include "backends/backends.hpp"
#include "poreplab/interrupt.hpp"
#include "report/reference.hpp"
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
// this option)"; its other messages name the option already. Digits that passed
// whole_number_as_typed and still do not convert are past a narrower option's range.
std::string usage_text(const CLI::ParseError& e) {
  std::string what = one_line(e.what());
  const std::string prefix = "Could not convert: ";
  if (what.rfind(prefix, 0) == 0) {
    const std::string rest = what.substr(prefix.size());
    if (const auto eq = rest.find(" = "); eq != std::string::npos) {
      const std::string value = rest.substr(eq + 3);
      const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
      return rest.substr(0, eq) + ": " +
             (digits ? "'" + value + "' is out of range (too large for this option)"
                     : "cannot use '" + value + "' (not a value of this option)");
    }
  }
  return what;
}

// Numbers as typed. CLI11 converts with strtoull/strtoll and ignores their range errors:
// "-1" in an unsigned option became 2^64 - 1, and digits past 2^63 in a signed one became
// 2^63 - 1, both run as if typed. Every numeric option here takes a non-negative decimal
// number that fits its type (narrower types CLI11 checks itself), or is an error quoting
// the text.
std::string whole_number_as_typed(std::string& text, bool is_signed) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec == std::errc::invalid_argument || stop != end)
    return "'" + text + "' is not a whole number of 0 or more (decimal digits only)";
  const std::uint64_t max = is_signed ? std::numeric_limits<std::int64_t>::max() : ~std::uint64_t{0};
  if (ec == std::errc::result_out_of_range || v > max)
    return "'" + text + "' is out of range (at most " + std::to_string(max) + ")";
  return {};
}

std::string number_as_typed(std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || text[0] == '-' || ec != std::errc{} || stop != end || !std::isfinite(v))
    return "'" + text + "' is not a finite number of 0 or more";
  return {};
}

void check_numbers_as_typed(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    // CLI11 appends its validators' descriptions ("FLOAT:FLOAT in [0 - 30]"): an option
    // with a range is still a number, and its range alone lets NaN through.
    const std::string full = o->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type == "UINT" || type == "INT")
      o->check(CLI::Validator([is_signed = type == "INT"](std::string& t) { return whole_number_as_typed(t, is_signed); },
                              "", "number as typed"));
    else if (type == "FLOAT")
      o->check(CLI::Validator(number_as_typed, "", "number as typed"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_numbers_as_typed(*sub);
}
}

void set_exit_status(int status) {
  if (g_exit_status == 0) g_exit_status = status;
}

CLI::Option* add_backend_option(CLI::App* cmd, const backend_entry*& value, const std::string& help) {
  return add_parsed_option(
      cmd, "--backend", value, backend_names(), [](const std::string& s) { return &find_backend(s); }, value->name, help);
}

CLI::Option* add_reference_option(CLI::App* cmd, std::vector<std::string>& values) {
  return cmd
      ->add_option("--reference", values,
                   "a reference dataset (a folder of docs/results, e.g. a GPU measured elsewhere) whose GPU records the "
                   "verdict shows beside the model where these results measured no GPU, or none (repeatable; default: "
                   "the shipped ones, docs/results of a checkout or share/poreplab/reference of an install)")
      ->allow_extra_args(false);
}

verdict::reference_inputs reference_paths(const std::vector<std::string>& values) {
  try {
    return verdict::reference_inputs_for(verdict::parse_reference_flag(values));
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

int run_cli(int argc, char** argv) {
  CLI::App app{"poreplab: PoRep (Filecoin SDR) labeling experiments on CPUs and GPUs"};
  app.set_version_flag("--version", std::string("poreplab ") + POREPLAB_VERSION);
  app.require_subcommand(1);
  add_info_command(app);
  add_doctor_command(app);
  add_hash_command(app);
  add_selftest_command(app);
  add_bench_command(app);
  add_bench_label_command(app);
  add_bench_latency_command(app);
  add_bench_profile_command(app);
  add_bench_pc2_command(app);
  add_bench_disk_command(app);
  add_bench_disk_label_command(app);
  add_bench_reads_command(app);
  add_vector_command(app);
  add_seal_commands(app);
  add_run_commands(app);
  add_report_command(app);
  add_compare_command(app);
  add_model_command(app);
  add_parent_cache_command(app);
  add_tune_command(app);
  add_plan_command(app);
  check_numbers_as_typed(app);
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
  // What could not be written (a full disk, the file size limit of a redirected stdout)
  // is an error, not a report cut short without a word.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "poreplab: error: standard output: write failed: " << std::strerror(errno) << "\n";
    return 1;
  }
  return g_exit_status;
}

}  // namespace poreplab::cli
