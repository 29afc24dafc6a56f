#pragma once
// Named points of a seal where a test ends the process (SIGKILL) or stops it (SIGSTOP),
// to check that the same command resumes from every instant, and that a second writer is
// refused while the first holds its output. Inert unless the environment asks:
//   POREPLAB_TEST_KILL_AT=<point>[:<n>]  SIGKILL the n-th time (default 1st) <point> is reached
//   POREPLAB_TEST_STOP_AT=<point>[:<n>]  SIGSTOP there instead (SIGCONT goes on)
// An unknown point or a bad count is an error naming the variable.
#include <cstdint>

#include "poreplab/name_table.hpp"

namespace poreplab {

// In the order a fresh seal reaches them.
enum class crash_point {
  tree_d_written,    // tree_d's staging file complete, before the first state file
  state_staged,      // seal-state.json's staging file written, not yet renamed
  state_written,     // seal-state.json renamed into place
  layer_created,     // a layer's staging file created, before its first label
  layer_labeled,     // a layer labeled and flushed, before its digest is recorded
  replica_written,   // replica.dat's staging file complete
  manifest_written,  // seal.json's staging file complete
  file_renamed,      // one of the commit's renames (tree_d, each layer, the replica)
  manifest_renamed,  // seal.json renamed into place, seal-state.json not yet removed
};

inline constexpr name_table<crash_point, 9> kCrashPoints{
    "crash point",
    {named<crash_point>{crash_point::tree_d_written, "tree-d-written"},
     named<crash_point>{crash_point::state_staged, "state-staged"},
     named<crash_point>{crash_point::state_written, "state-written"},
     named<crash_point>{crash_point::layer_created, "layer-created"},
     named<crash_point>{crash_point::layer_labeled, "layer-labeled"},
     named<crash_point>{crash_point::replica_written, "replica-written"},
     named<crash_point>{crash_point::manifest_written, "manifest-written"},
     named<crash_point>{crash_point::file_renamed, "file-renamed"},
     named<crash_point>{crash_point::manifest_renamed, "manifest-renamed"}}};

// Counts this process's arrivals at `p` and acts when the environment names this one.
void reach(crash_point p);

}  // namespace poreplab
