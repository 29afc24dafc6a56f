// Not yet implemented: registers no subcommand.
#include "cli.hpp"

namespace poreplab::cli {
void add_seal_commands(CLI::App& /*app*/) {}
}  // namespace poreplab::cli
