#include "cli/cli.hpp"

int main(int argc, char** argv) { return poreplab::cli::run_cli(argc, argv); }
