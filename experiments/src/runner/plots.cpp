// Runs the figure script (plots/plot.py of share_dir(): a checkout's experiments/ or an
// install's share/poreplab) with the Python plot_python() finds.
#include <iostream>
#include <system_error>

#include "poreplab/file_io.hpp"
#include "runner/runner.hpp"
#include "util/share_dir.hpp"

namespace poreplab::runner {

namespace fs = std::filesystem;

bool run_plot_script(const std::vector<std::string>& args, const fs::path& out_dir) {
  try {
    const auto share = share_dir();
    if (!share) {
      std::cerr << "note: plots skipped: poreplab's share directory not found (set POREPLAB_SHARE_DIR); results are in "
                << out_dir.string() << "\n";
      return true;
    }
    const fs::path script = *share / "plots" / "plot.py";
    if (std::error_code ec; !fs::exists(script, ec)) {
      std::cerr << "note: plots skipped: no " << script.string() << "; results are in " << out_dir.string() << "\n";
      return true;
    }
    const auto python = plot_python();
    if (!python) {
      std::cerr << "note: plots skipped: no Python with matplotlib (install python3-matplotlib, or set "
                   "POREPLAB_PYTHON); results are in "
                << out_dir.string() << "\n";
      return true;
    }
    make_own_directory(out_dir / kPlotsDir);  // the script writes its figures there
    std::vector<std::string> argv = {python->string(), script.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const int rc = run_program(argv);
    if (rc < 0) {
      std::cerr << "poreplab: warning: cannot start " << python->string() << " for " << script.string() << "\n";
      return false;
    }
    if (rc != 0) {
      std::cerr << "poreplab: warning: " << script.string() << " failed (exit status " << rc << ")\n";
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    std::cerr << "poreplab: warning: plots not drawn: " << e.what() << "\n";
    return false;
  }
}

bool make_plots(const fs::path& dir) { return run_plot_script({dir.string()}, dir); }

}  // namespace poreplab::runner
