#pragma once
// The `poreplab` command line: each subcommand lives in its own cmd_*.cpp and adds
// itself to the CLI11 app. Errors are exceptions, reported once by run_cli().
#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

namespace poreplab::cli {

// An error the user can act on: printed as "poreplab: error: <what>", exit status 1.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void add_info_command(CLI::App& app);
void add_hash_command(CLI::App& app);
void add_selftest_command(CLI::App& app);

// A command that ran but found a failure (e.g. a mismatching check) sets a non-zero
// status here instead of throwing, so that all of its report is printed.
void set_exit_status(int status);

int run_cli(int argc, char** argv);

}  // namespace poreplab::cli
