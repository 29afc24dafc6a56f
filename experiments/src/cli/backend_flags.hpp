#pragma once
// Command-line flags for the backend knobs (backends/backends.hpp): one flag a knob,
// --name with '_' as '-', so a new knob is a new flag without editing any command.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backends.hpp"

namespace poreplab::cli {

// Adds the flags of the knobs that `backends` read (all knobs when empty) and that act on
// `work` (knob_work: a PC2 command lists only the knobs PC2 reads) to cmd.
// Call the returned function in cmd's callback: it checks the values given and stores
// them in *into (usage_error naming the flag on a bad value).
std::function<void()> add_backend_flags(CLI::App* cmd, std::shared_ptr<backend_settings> into,
                                        const std::vector<std::string>& backends = {},
                                        knob_work work = work_labeling);

}  // namespace poreplab::cli
