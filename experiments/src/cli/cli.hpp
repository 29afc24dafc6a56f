#pragma once
// The `poreplab` command line: each subcommand lives in its own cmd_*.cpp and adds
// itself to the CLI11 app. Errors are exceptions, reported once by run_cli().
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/name_table.hpp"
#include "report/reference.hpp"
#include "runner/param_renames.hpp"
#include "util/param_spec.hpp"

namespace poreplab {
struct backend_entry;
}

namespace poreplab::cli {

// Where `report` and `plan` read results when given no directory: `poreplab run`'s default -o.
inline constexpr const char* kDefaultResults = "results/default";

// An error the user can act on: printed as "poreplab: error: <what>", exit status 1.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The flag of parameter `name` (flag_of: --name with '_' as '-') storing into `into`; the
// flags of its older names (runner::kParamRenames) still read into it, hidden from --help, each
// noting the rename on standard error when used; both at once are refused.
template <typename T>
CLI::Option* add_param_option(CLI::App* cmd, std::string_view name, T& into, const std::string& help) {
  CLI::Option* o = cmd->add_option(flag_of(name), into, help);
  for (const auto& r : runner::kParamRenames) {
    if (r.name != name) continue;
    const std::string was = flag_of(r.old_name), now = flag_of(name);
    const std::string both = was + " is " + now + ", which is given too";
    CLI::Option* old = cmd->add_option(was, into, "renamed " + now)->group("");
    old->each([was, now, both, o](const std::string&) {
      if (o->count() > 0) throw usage_error(both);
      std::cerr << "poreplab: note: " << was << " is now " << now << " (read as it)\n";
    });
    o->each([both, old](const std::string&) {
      if (old->count() > 0) throw usage_error(both);
    });
  }
  return o;
}

void add_info_command(CLI::App& app);
void add_doctor_command(CLI::App& app);   // cmd_doctor.cpp: doctor
void add_hash_command(CLI::App& app);
void add_selftest_command(CLI::App& app);
void add_bench_command(CLI::App& app);    // cmd_bench.cpp: bench hash | label | latency
void add_bench_label_command(CLI::App& app);  // cmd_bench_label.cpp: bench label
void add_bench_latency_command(CLI::App& app);
void add_bench_profile_command(CLI::App& app);
void add_bench_pc2_command(CLI::App& app);
void add_bench_disk_command(CLI::App& app);        // cmd_bench_disk.cpp: bench disk
void add_bench_disk_label_command(CLI::App& app);  // cmd_bench_disk.cpp: bench disk-label
void add_bench_reads_command(CLI::App& app);       // cmd_bench_reads.cpp: bench reads
void add_plan_command(CLI::App& app);              // cmd_plan.cpp: plan
void add_vector_command(CLI::App& app);   // cmd_vector.cpp: vector verify
void add_seal_commands(CLI::App& app);    // cmd_seal.cpp: seal, unseal
void add_run_commands(CLI::App& app);     // cmd_run.cpp: run, merge
void add_report_command(CLI::App& app);   // cmd_report.cpp: report amax
void add_compare_command(CLI::App& app);  // cmd_compare.cpp: compare
void add_model_command(CLI::App& app);    // cmd_model_gpu.cpp: model gpu
void add_parent_cache_command(CLI::App& app);  // cmd_parent_cache.cpp: parent-cache
void add_tune_command(CLI::App& app);     // cmd_tune.cpp: tune

// An option whose text is one of `names`, stored as what `parse` makes of it: the text is
// parsed here, at the edge, and a name outside `names` is a usage error listing them.
template <class T, class Parse>
CLI::Option* add_parsed_option(CLI::App* cmd, const std::string& flag, T& value, std::vector<std::string> names,
                               Parse parse, const std::string& default_text, const std::string& help) {
  return cmd->add_option_function<std::string>(flag, [&value, parse](const std::string& s) { value = parse(s); }, help)
      ->check(CLI::IsMember(std::move(names)))
      ->default_str(default_text);
}
// The same for a name of a name table's enum.
template <class E, std::size_t N>
CLI::Option* add_named_option(CLI::App* cmd, const std::string& flag, E& value, const name_table<E, N>& table,
                              const std::string& help) {
  return add_parsed_option(cmd, flag, value, table.names(), [&table](const std::string& s) { return table.parse(s); },
                           std::string(table.name(value)), help);
}

// --backend: an entry of backends(), parsed from its name here, at the edge.
CLI::Option* add_backend_option(CLI::App* cmd, const backend_entry*& value, const std::string& help);

// A command that ran but found a failure (e.g. a mismatching check) sets a non-zero
// status here instead of throwing, so that all of its report is printed.
void set_exit_status(int status);

// --reference none|DIR... (one value per flag): the reference datasets the verdict shows
// beside the model where the results measured no GPU (report/reference.hpp); unset, the
// shipped ones. reference_paths resolves what was given (usage_error for "none" with others).
CLI::Option* add_reference_option(CLI::App* cmd, std::vector<std::string>& values);
verdict::reference_inputs reference_paths(const std::vector<std::string>& values);

int run_cli(int argc, char** argv);

}  // namespace poreplab::cli
