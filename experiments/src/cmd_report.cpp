// Not yet implemented: registers no subcommand.
#include "cli.hpp"

namespace poreplab::cli {
void add_report_command(CLI::App& /*app*/) {}
}  // namespace poreplab::cli
