#include <csignal>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  // Over the file size limit (ulimit -f) a write then fails with EFBIG, which every writer
  // reports as one error and cleans up after, instead of the process dying by SIGXFSZ with
  // its staging files left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  return poreplab::cli::run_cli(argc, argv);
}
