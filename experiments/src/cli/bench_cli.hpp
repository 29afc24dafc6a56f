#pragma once
// The `poreplab bench` command group. Each benchmark registers its own subcommand under
// it from its own file (cmd_bench.cpp: `bench hash`; others: `bench label`, `bench
// latency`), so no file lists them all.
#include <CLI/CLI.hpp>

namespace poreplab::cli {

// The `bench` subcommand of app, created by the first call and returned by later ones.
CLI::App* bench_group(CLI::App& app);

}  // namespace poreplab::cli
