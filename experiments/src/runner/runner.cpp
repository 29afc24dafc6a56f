#include "runner/runner.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <algorithm>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "poreplab/file_io.hpp"
#include "report/registry.hpp"
#include "report/run_report.hpp"
#include "backends/backends.hpp"
#include "poreplab/require_cuda.hpp"
#include "poreplab/unavailable.hpp"
#include "poreplab/writer_lock.hpp"
#include "records/environment.hpp"
#include "poreplab/interrupt.hpp"
#include "records/records.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "util/text.hpp"

namespace poreplab::runner {

using nlohmann::json;
namespace fs = std::filesystem;
namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;
using clock_type = std::chrono::steady_clock;

namespace {

// A second run, resume or merge into a directory a run holds: its records would be appended twice.
std::function<std::string(const std::string&)> run_busy(const fs::path& dir) {
  return [dir](const std::string& pid) {
    return "results directory " + dir.string() + " is in use by another run (pid " + (pid.empty() ? "unknown" : pid) + ")";
  };
}

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
  poreplab::request_interrupt(sig);  // a seal in flight stops after its current layer
}

// SIGINT and SIGTERM (Ctrl-C, Slurm's time limit) only set a flag while points run; the
// runner then writes what is finished and exits. Restores the old handlers when done.
class signal_guard {
 public:
  signal_guard() {
    g_signal = 0;
    poreplab::clear_interrupt();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~signal_guard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  signal_guard(const signal_guard&) = delete;
  signal_guard& operator=(const signal_guard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(std::llround(seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

json expected_json(const point& p) {
  json e = {{key::index, p.index},
            {key::experiment, p.experiment},
            {key::kind, p.kind},
            {key::axes, p.axes},
            {key::description, p.describe()}};
  if (p.repeat) e[key::repeat] = *p.repeat;
  return e;
}

// Runs the kind's function, honouring the experiment's time budget: after one sample
// (with the warmup), only as many further samples as the budget still allows.
measurement measure(const kind_spec& k, const experiment& e, const json& axes, json& rec) {
  if (k.run_sampled) {
    measurement m = k.run_sampled(axes, sampling{e.warmup, e.samples, e.time_budget_s.value_or(0), e.ci_target.value_or(0)});
    if (m.stopped_by) rec[records::key::stopped_by] = kStopReasons.name(*m.stopped_by);
    if (m.stopped_by == stop_reason::time_budget) rec[records::key::budget_limited] = true;
    return m;
  }
  if (!e.time_budget_s) return k.run(axes, e.warmup, e.samples);
  // Kinds that take their samples in one call: one sample (with the warmup), then as many
  // more as the budget still allows at that sample's cost.
  const auto t0 = clock_type::now();
  const stopping_rule budget{stopping_options{e.samples, 0, *e.time_budget_s}, t0};
  measurement m = k.run(axes, e.warmup, 1);
  const auto more = static_cast<std::uint32_t>(budget.more_that_fit(1, seconds_since(t0) / (1.0 + e.warmup)));
  if (more > 0) {
    measurement rest = k.run(axes, 0, more);
    m.samples.insert(m.samples.end(), rest.samples.begin(), rest.samples.end());
    // Both calls must have produced the same, verified output.
    m.verified = m.verified && rest.verified && m.digest == rest.digest;
  }
  if (m.samples.size() < std::min<std::size_t>(e.samples, kMaxSamples)) rec[records::key::budget_limited] = true;
  return m;
}

void prepare_out_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + dir.string() + ": " + ec.message());
  if (!fs::is_directory(dir)) throw std::runtime_error("output path " + dir.string() + " is not a directory");
  const fs::path probe = dir / ".poreplab-write-test";
  try {
    write_file_atomic(probe, "");
  } catch (const std::exception& e) {
    throw std::runtime_error("output directory " + dir.string() + " is not writable (" + e.what() + ")");
  }
  fs::remove(probe, ec);
}

std::string result_text(const json& rec) {
  const std::string status = rec[records::key::status];
  std::ostringstream s;
  if (rec.contains(key::stats) && rec[key::stats].value("n", 0) > 0) {
    const json& st = rec[key::stats];
    s << format_number(st["median"].get<double>()) << " " << rec.value(key::metric, "") << ", spread "
      << format_number(100 * st["spread"].get<double>(), 2) << "%";
    if (rec.value(key::noisy, false)) s << " (noisy)";
    const json ctx = rec.value(key::context, json::object());
    if (ctx.contains("efficiency_ci95") && ctx.contains(ctx::efficiency))
      s << ", efficiency " << format_number(ctx[ctx::efficiency].get<double>()) << " ["
        << format_number(ctx["efficiency_ci95"][0].get<double>()) << ", "
        << format_number(ctx["efficiency_ci95"][1].get<double>()) << "]";
    if (const auto flagged = ctx.value("clock_flagged", std::size_t{0}); flagged > 0)
      s << ", clock off by >3% at " << flagged << " of " << st.value("n", 0) << " samples";
    if (const auto flagged = ctx.value("preempted", std::size_t{0}); flagged > 0)
      s << ", preempted at " << flagged << " of " << st.value("n", 0) << " samples";
    if (rec.value(key::stopped_by, "") == kStopReasons.name(stop_reason::time_budget)) s << ", stopped by the time budget";
  }
  if (records::is_ok(rec)) return (rec.value(records::key::modeled, false) ? "ok (MODELED, not measured) " : "ok ") + s.str();
  std::string out = status + ": " + rec.value(key::reason, "");
  if (!s.str().empty()) out += " [" + s.str() + "]";
  return out;
}

}  // namespace

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](const std::string& s) -> std::size_t {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/8");
    return std::stoul(s);
  };
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/8");
  const std::size_t i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n == 0 || i >= n) throw std::invalid_argument("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/8");
  return {i, n};
}

std::vector<point> shard_points(const std::vector<point>& all, std::size_t index, std::size_t count) {
  std::vector<point> out;
  for (const auto& p : all)
    if (p.index % count == index) out.push_back(p);
  return out;
}

std::vector<std::string> required_backends(const std::vector<std::string>& requested) {
  std::vector<std::string> out = requested;
  if (cuda_required_by_environment()) out.push_back(backend_of(device_class::gpu));
  const auto& known = backend_names();
  for (const auto& b : out)
    if (std::find(known.begin(), known.end(), b) == known.end()) {
      std::string valid;
      for (const auto& n : known) valid += (valid.empty() ? "" : ", ") + n;
      throw std::invalid_argument("--require " + b + ": not a backend (valid: " + valid + ")");
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

point_exception classify_point_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const unavailable_error& x) {  // point_unavailable included
    return {true, x.what()};
  } catch (const std::invalid_argument& x) {
    return {false, std::string("invalid options: ") + x.what()};
  } catch (const std::bad_alloc&) {
    return {true, "out of memory while allocating its buffers"};
  } catch (const std::exception& x) {
    return {false, x.what()};
  }
}

json run_point(const config& c, const point& p, std::size_t run_index, const std::vector<std::string>& require) {
  const experiment& e = c.experiments[p.experiment_index];
  const kind_spec& k = *find_kind(p.kind);
  auto status = [](records::point_status st) { return records::kPointStatuses.name(st); };
  json rec = {{key::type, records::kRecordTypes.name(records::record_type::point)},
              {key::index, p.index},
              {key::experiment, p.experiment},
              {key::kind, p.kind},
              {key::axes, p.axes},
              {key::description, p.describe()},
              {key::run, run_index},
              {key::warmup, e.warmup},
              {key::samples_requested, e.samples}};
  if (p.repeat) rec[key::repeat] = *p.repeat;
  const auto t0 = clock_type::now();
  const std::string backend = p.axes.contains(axis::backend) && p.axes[axis::backend].is_string() ? p.axes[axis::backend].get<std::string>() : "";
  const bool required = !backend.empty() && std::find(require.begin(), require.end(), backend) != require.end();
  auto skip = [&](const std::string& why) {
    rec[key::status] = status(required ? records::point_status::failed : records::point_status::skipped);
    rec[key::reason] = required ? "required backend " + backend + " cannot run: " + why : why;
  };
  auto failed = [&](const std::string& why) {
    rec[key::status] = status(records::point_status::failed);
    rec[key::reason] = why;
  };
  if (!k.run) {
    skip("not implemented in this build");
  } else {
    try {
      if (const std::string why = k.unavailable ? k.unavailable(p.axes) : std::string(); !why.empty())
        throw point_unavailable(why);
      measurement m = measure(k, e, p.axes, rec);
      const records::sample_stats st = records::compute_stats(m.samples);
      rec[key::metric] = m.metric;
      rec[key::samples] = m.samples;
      rec[key::stats] = records::stats_json(st);
      rec[key::noisy] = st.spread > records::kNoisySpread;
      rec[key::rates] = k.rates && st.n > 0 ? k.rates(p.axes, m.context, st.median) : json::object();
      rec[key::context] = m.context;
      rec[key::digest] = m.digest;
      rec[key::verified] = m.verified && !m.modeled;
      rec[key::verified_against] = m.verified_against;
      if (m.modeled) {
        // A model's output is never a verified measurement; it is marked, not failed.
        rec[key::modeled] = true;
        rec[key::verified] = false;
        rec[key::verified_against] = "nothing: a modeled figure, not a measurement";
      }
      if (st.n == 0)
        failed("no samples were taken");
      else if (m.modeled)
        rec[key::status] = status(records::point_status::ok);
      else if (!m.verified)
        failed("output digest " + m.digest.substr(0, 16) + " does not match " + m.verified_against);
      else
        rec[key::status] = status(records::point_status::ok);
    } catch (const std::exception&) {
      const point_exception x = classify_point_exception(std::current_exception());
      if (x.skipped)
        skip(x.reason);
      else
        failed(x.reason);
    }
  }
  rec[key::elapsed_s] = seconds_since(t0);
  rec[key::finished] = utc_now();
  return rec;
}

namespace {

// The records of an earlier run in `dir` that --resume continues (none when the file does
// not exist); refused without --resume, or for another shard or repeat count.
records::records_log records_to_resume(const config& c, const run_options& opt, const fs::path& dir, const fs::path& records_file) {
  records::records_log log;
  if (!fs::exists(records_file)) return log;
  if (!opt.resume)
    throw std::runtime_error(dir.string() +
                             " already holds records.jsonl: pass --resume to continue that run, or choose another -o");
  log = records::read_records(records_file, true);
  if (log.truncated_bytes)
    std::cerr << "resume: cut off an incomplete last record (" << log.truncated_bytes << " bytes) in "
              << records_file.string() << "\n";
  if (log.headers.empty()) return log;
  const json& last = log.headers.back();
  const json shard = last.value(key::shard, json{{"index", 0}, {"count", 1}});
  if (shard["index"] != opt.shard_index || shard["count"] != opt.shard_count)
    throw std::runtime_error(dir.string() + " holds shard " + shard["index"].dump() + "/" + shard["count"].dump() +
                             "; resume it with --shard " + shard["index"].dump() + "/" + shard["count"].dump() +
                             " or choose another -o");
  if (const std::size_t was = last.value(key::repeat, std::size_t{1}); was != opt.repeat)
    throw std::runtime_error(dir.string() + " was run with --repeat " + std::to_string(was) + "; resume it with --repeat " +
                             std::to_string(was) + " or choose another -o");
  if (last.value(key::config_digest, "") != c.digest)
    std::cerr << "resume: note: the config differs from the one recorded in " << dir.string()
              << "; points are matched on experiment name and axis values\n";
  return log;
}

json run_header(const config& c, const run_options& opt, std::size_t run_index, std::size_t points_total,
                std::size_t points_in_shard) {
  json header = {{key::type, records::kRecordTypes.name(records::record_type::header)},
                 {key::schema, records::kRecordsSchema},
                 {key::run, run_index},
                 {key::config_digest, c.digest},
                 {key::config, c.normalized},
                 {key::source, c.source},
                 {key::argv, opt.argv},
                 {key::require, opt.require},
                 {key::shard, {{"index", opt.shard_index}, {"count", opt.shard_count}}},
                 {key::points_total, points_total},
                 {key::points_in_shard, points_in_shard},
                 {key::started, utc_now()},
                 {key::environment, environment_json()}};
  if (opt.repeat > 1) header[key::repeat] = opt.repeat;
  return header;
}

// After the last point: the result files, the config's reports (not for a shard: the merge
// writes them), the plots and the run's report; the exit status.
int finish_run(const config& c, const run_options& opt, const fs::path& dir, const json& res, bool any_failed,
               double elapsed_s) {
  records::write_result_files(dir, res);
  const json& counts = res["counts"];
  std::cerr << "done: " << counts["ok"] << " ok, " << counts["skipped"] << " skipped, " << counts["failed"]
            << " failed, " << counts[key::noisy] << " noisy in " << clock_text(elapsed_s) << "; results in "
            << dir.string() << "/{results.json,results.csv,report.md}\n";
  int status = any_failed || counts["failed"].get<int>() > 0 ? 1 : 0;
  if (opt.shard_count > 1) {
    if (!c.reports.empty())
      std::cerr << "note: reports (" << c.reports.front() << "...) are written by poreplab merge, not by a shard\n";
  } else if (!reports::write_config_reports(c.reports, dir, opt.references)) {
    status = status ? status : 1;
  }
  if (opt.plots && !make_plots(dir)) status = status ? status : 1;
  report::write_run_report(dir, res, is_size_axis);  // after the reports and figures it shows
  return status;
}

// Ctrl-C or the time limit: the points finished so far summarized, the command that resumes
// printed, a seal in flight given a moment to remove its scratch files; then the process
// ends (OpenMP and GPU work cannot be stopped cleanly).
[[noreturn]] void stop_early(int sig, const run_options& opt, const fs::path& dir, std::size_t new_points,
                             const std::function<json()>& partial_results, std::unique_lock<std::mutex>& lock,
                             std::condition_variable& cv, const std::atomic<bool>& worker_done) {
  if (sig != 0)
    std::cerr << "\ninterrupted (" << (sig == SIGINT ? "SIGINT" : "SIGTERM") << "): keeping ";
  else
    std::cerr << "\ntime limit of " << format_number(opt.time_limit_s) << " s" << " reached: keeping ";
  std::cerr << new_points << " points finished in this run; writing summaries to " << dir.string() << "\n";
  try {
    const json partial = partial_results();
    records::write_result_files(dir, partial);
    report::write_run_report(dir, partial, is_size_axis);
  } catch (const std::exception& x) {
    std::cerr << "poreplab: error: " << x.what() << "\n";
  }
  std::string again = join(opt.argv, " ");
  if (again.empty()) again = "poreplab run ... -o " + dir.string();
  if (!opt.resume) again += " --resume";
  std::cerr << "resume with: " << again << "\n";
  std::cout.flush();
  std::cerr.flush();
  // A seal in flight stops after its current layer and removes its scratch directory
  // as it unwinds: give it a moment. Other work (OpenMP, GPU) cannot be stopped
  // cleanly; what is still registered for removal goes, then the process ends.
  if (sig == 0) poreplab::request_interrupt(SIGTERM);
  const auto give_up = clock_type::now() + std::chrono::seconds(5);
  while (poreplab::any_registered_paths() && !worker_done && poreplab::interrupt_count() < 2 &&
         clock_type::now() < give_up)
    cv.wait_for(lock, std::chrono::milliseconds(20));
  poreplab::remove_registered_paths();
  std::_Exit(sig != 0 ? 128 + sig : kExitTimeLimit);
}

void check_run_options(const run_options& opt) {
  if (opt.repeat < 1 || opt.repeat > kMaxRepeat)
    throw std::invalid_argument("--repeat " + std::to_string(opt.repeat) + ": expected an integer from 1 to " +
                                std::to_string(kMaxRepeat));
  if (!(opt.time_limit_s >= 0 && opt.time_limit_s <= kMaxTimeLimitS))
    throw std::invalid_argument("--time-limit: expected seconds from 0 (no limit) to " + format_number(kMaxTimeLimitS, 6));
}

// Key -> status of a point's latest record in the run being resumed.
using point_statuses = std::map<std::string, records::point_status>;

// A point the resumed run recorded and did not fail is not run again.
bool already_finished(const point_statuses& done, const point& p) {
  const auto it = done.find(p.key());
  return it != done.end() && it->second != records::point_status::failed;
}

// What the worker thread and the main thread share while points run; mu guards records,
// the records writer, stderr progress and closed.
struct run_state {
  std::mutex mu;
  std::vector<json> records;
  bool closed = false;
  bool any_failed = false;
  std::exception_ptr worker_error;
  std::atomic<bool> worker_done{false};
  std::condition_variable cv;
};

// The worker thread's loop: each point not yet finished run and recorded, with its progress
// line, until the main thread closes the run.
void run_points(const config& c, const run_options& opt, const std::vector<point>& mine, const point_statuses& done,
                std::size_t already, std::size_t run_index, records::records_writer& writer,
                clock_type::time_point start, run_state& s) {
  try {
    std::size_t ran = 0;
    const std::size_t to_run = mine.size() - already;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const point& p = mine[i];
      if (already_finished(done, p)) continue;
      {
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.closed) break;
        std::cerr << "[" << i + 1 << "/" << mine.size() << "] " << p.describe() << " ... " << std::flush;
      }
      json rec = run_point(c, p, run_index, opt.require);
      ++ran;
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.closed || g_signal != 0) break;  // a point cut short by a signal is not recorded
      writer.append(rec);
      s.records.push_back(rec);
      if (records::status_of(rec) == records::point_status::failed) s.any_failed = true;
      const double elapsed = seconds_since(start);
      const double eta = elapsed / static_cast<double>(ran) * static_cast<double>(to_run - ran);
      char took[32];
      std::snprintf(took, sizeof took, "%.2f s", rec[key::elapsed_s].get<double>());
      std::cerr << result_text(rec) << " (" << took << "; elapsed "
                << clock_text(elapsed) << ", ETA " << clock_text(eta) << ")\n";
    }
  } catch (...) {
    s.worker_error = std::current_exception();
  }
  s.worker_done = true;
  s.cv.notify_all();
}

// The main thread while the worker runs: a signal or the time limit ends the process
// through stop_early; otherwise it returns once the worker is done.
void watch_worker(const run_options& opt, const fs::path& dir, std::size_t resumed_points,
                  clock_type::time_point start, const std::function<json()>& partial_results, run_state& s) {
  std::unique_lock<std::mutex> lock(s.mu);
  // Also when the worker has just stopped because of the signal (a seal point unwinds):
  // worker_done is read before g_signal, which only ever goes from 0 to a signal.
  for (;;) {
    const bool stopped = s.worker_done;
    const bool out_of_time = opt.time_limit_s > 0 && seconds_since(start) >= opt.time_limit_s;
    if (g_signal != 0 || (out_of_time && !stopped)) {
      s.closed = true;  // the worker records nothing more
      stop_early(g_signal, opt, dir, s.records.size() - resumed_points, partial_results, lock, s.cv, s.worker_done);
    }
    if (stopped) break;
    s.cv.wait_for(lock, std::chrono::milliseconds(100));
  }
}

}  // namespace

int run_experiments(const config& c, const run_options& opt) {
  const std::vector<point> all = expand_points(c);
  check_run_options(opt);
  const std::vector<point> mine = repeat_points(shard_points(all, opt.shard_index, opt.shard_count), opt.repeat);
  const fs::path dir = opt.out_dir;
  const fs::path records_file = dir / "records.jsonl";

  // Everything that can refuse the run does so before the first point.
  prepare_out_dir(dir);
  if (opt.plots) check_own_directory(dir / kPlotsDir);
  writer_lock held(dir / kLockFile, run_busy(dir));  // one run at a time in a directory
  const records::records_log log = [&] {
    try {
      return records_to_resume(c, opt, dir, records_file);
    } catch (...) {
      held.refused();
      throw;
    }
  }();

  point_statuses done;
  for (const auto& r : log.points) done[records::record_key(r)] = records::status_of(r);
  std::size_t already = 0;
  for (const auto& p : mine) already += already_finished(done, p) ? 1 : 0;
  if (opt.resume && !log.points.empty())
    std::cerr << "resume: " << already << " of " << mine.size() << " points already recorded; running "
              << mine.size() - already << "\n";

  const std::size_t run_index = log.headers.size();
  const json header = run_header(c, opt, run_index, all.size(), mine.size() / opt.repeat);
  std::vector<json> runs = log.headers;
  runs.push_back(header);
  records::records_writer writer(records_file);
  writer.append(header);

  std::vector<json> expected;
  for (const auto& p : mine) expected.push_back(expected_json(p));
  run_state s;
  s.records = log.points;

  auto results = [&](bool interrupted) {
    json extra = {{"source", c.source}, {"interrupted", interrupted},
                  {key::shard, {{"index", opt.shard_index}, {"count", opt.shard_count}}}};
    return records::make_results(c.normalized, c.digest, runs, expected, s.records, extra);
  };

  auto guard = std::make_unique<signal_guard>();
  const auto start = clock_type::now();
  // Points run on a worker thread so that Ctrl-C is answered at once, even in the
  // middle of a long point: the main thread writes what is finished and exits.
  std::thread worker([&] { run_points(c, opt, mine, done, already, run_index, writer, start, s); });
  watch_worker(opt, dir, log.points.size(), start, [&] { return results(true); }, s);
  worker.join();
  guard.reset();  // Ctrl-C during the plots is an ordinary interrupt again
  if (s.worker_error) std::rethrow_exception(s.worker_error);

  return finish_run(c, opt, dir, results(false), s.any_failed, seconds_since(start));
}

namespace {

struct shard_log {
  fs::path dir;
  records::records_log log;
};

// Every shard's records, each directory's records.jsonl with at least its header.
std::vector<shard_log> read_shards(const std::vector<fs::path>& shard_dirs) {
  std::vector<shard_log> shards;
  {
    std::vector<fs::path> files;
    for (const auto& d : shard_dirs) files.push_back(d / "records.jsonl");
    records::require_records_memory(files, records::kRecordsMemoryPerByte);  // all shards are held at once
  }
  for (const auto& d : shard_dirs) {
    const fs::path f = d / "records.jsonl";
    if (!fs::exists(f)) throw std::runtime_error("merge: " + d.string() + " holds no records.jsonl");
    shard_log s{d, records::read_records(f, false)};
    if (s.log.headers.empty()) throw std::runtime_error("merge: " + f.string() + " has no header record");
    shards.push_back(std::move(s));
  }
  return shards;
}

void check_same_digest(const std::vector<shard_log>& shards, const std::string& digest) {
  for (const auto& s : shards) {
    const std::string d = s.log.headers.back().value(key::config_digest, "");
    if (d != digest)
      throw std::runtime_error("merge: " + s.dir.string() + " was run with a different config (digest " +
                               d.substr(0, 16) + ") than " + shards.front().dir.string() + " (digest " +
                               digest.substr(0, 16) + ")");
  }
}

void check_same_repeat(const std::vector<shard_log>& shards, std::size_t repeat) {
  for (const auto& s : shards)
    if (const std::size_t r = s.log.headers.back().value(key::repeat, std::size_t{1}); r != repeat)
      throw std::runtime_error("merge: " + s.dir.string() + " was run with --repeat " + std::to_string(r) + ", " +
                               shards.front().dir.string() + " with --repeat " + std::to_string(repeat));
}

// The shards' headers renumbered into one list of runs, the record chosen for each point,
// and the shards that recorded it.
struct merged_records {
  std::vector<json> runs;
  std::map<std::string, json> chosen;
  std::map<std::string, std::vector<std::string>> seen_in;
};

// Within a shard the latest record of a point wins, across shards an ok record wins over
// others, then the first shard given.
merged_records merge_records(const std::vector<shard_log>& shards) {
  merged_records m;
  for (const auto& s : shards) {
    const std::size_t offset = m.runs.size();
    for (auto h : s.log.headers) {
      h[records::key::run] = offset + h.value(records::key::run, std::size_t{0});
      h[records::key::shard_dir] = s.dir.string();
      m.runs.push_back(std::move(h));
    }
    std::map<std::string, json> latest;
    for (auto p : s.log.points) {
      p[records::key::run] = offset + p.value(records::key::run, std::size_t{0});
      const std::string key = records::record_key(p);  // before the move: json's operator= takes its argument by value
      latest[key] = std::move(p);
    }
    for (auto& [k, p] : latest) {
      m.seen_in[k].push_back(s.dir.string());
      const auto it = m.chosen.find(k);
      if (it == m.chosen.end() || (!records::is_ok(it->second) && records::is_ok(p)))
        m.chosen[k] = std::move(p);
    }
  }
  return m;
}

// Points more than one shard recorded, the first ten of them noted.
std::size_t count_duplicates(const std::map<std::string, std::vector<std::string>>& seen_in) {
  std::size_t duplicates = 0;
  for (const auto& [k, dirs] : seen_in)
    if (dirs.size() > 1) {
      if (duplicates < 10)
        std::cerr << "merge: note: point recorded in " << dirs.size() << " shards (" << dirs.front() << ", "
                  << dirs[1] << "): " << k << "\n";
      ++duplicates;
    }
  return duplicates;
}

json merge_header_of(const std::vector<shard_log>& shards, const config& c, const std::string& digest,
                     std::size_t run_index, const std::vector<std::string>& argv, std::size_t points_total,
                     std::size_t repeat) {
  json dirs = json::array();
  for (const auto& s : shards) dirs.push_back(s.dir.string());
  json merge_header = {{key::type, records::kRecordTypes.name(records::record_type::header)},
                       {key::schema, records::kRecordsSchema}, {key::run, run_index},         {key::merge, true},
                       {key::config_digest, digest},           {key::config, c.normalized},   {key::source, c.source},
                       {key::argv, argv},                      {key::points_total, points_total},
                       {key::started, utc_now()},              {key::shard_dirs, std::move(dirs)}};
  if (repeat > 1) merge_header[key::repeat] = repeat;
  return merge_header;
}

// The first ten points no shard recorded; false when there are none.
bool report_missing(const json& res) {
  const json& counts = res["counts"];
  if (counts["missing"].get<int>() <= 0) return false;
  std::size_t shown = 0;
  for (const auto& m : res["missing"]) {
    if (shown++ == 10) {
      std::cerr << "merge: ... and " << counts["missing"].get<int>() - 10 << " more\n";
      break;
    }
    std::cerr << "merge: missing [" << m["index"] << "] " << m[key::description].get<std::string>() << "\n";
  }
  return true;
}

}  // namespace

int merge_shards(const fs::path& out_dir, const std::vector<fs::path>& shard_dirs, bool plots,
                 const std::vector<std::string>& argv, const verdict::reference_inputs& references) {
  if (shard_dirs.empty()) throw std::invalid_argument("merge: give at least one shard directory");
  const std::vector<shard_log> shards = read_shards(shard_dirs);
  const json& first = shards.front().log.headers.back();
  const std::string digest = first.value(key::config_digest, "");
  check_same_digest(shards, digest);
  const config c = config_from_json(first.value(key::config, json()), first.value(key::source, "merged"),
                                    (shards.front().dir / "records.jsonl").string() + ": header config");
  const std::size_t repeat = first.value(key::repeat, std::size_t{1});
  check_same_repeat(shards, repeat);
  const std::vector<point> all = repeat_points(expand_points(c), repeat);

  prepare_out_dir(out_dir);
  if (plots) check_own_directory(out_dir / kPlotsDir);
  writer_lock held(out_dir / kLockFile, run_busy(out_dir));
  if (fs::exists(out_dir / "records.jsonl")) {
    held.refused();
    throw std::runtime_error("merge: " + out_dir.string() + " already holds records.jsonl; choose another -o");
  }

  merged_records merged = merge_records(shards);
  std::vector<json>& runs = merged.runs;
  const std::size_t duplicates = count_duplicates(merged.seen_in);
  std::vector<json> expected, records;
  for (const auto& p : all) expected.push_back(expected_json(p));
  for (auto& [k, p] : merged.chosen) records.push_back(p);
  const json merge_header = merge_header_of(shards, c, digest, runs.size(), argv, all.size() / repeat, repeat);
  runs.push_back(merge_header);

  // The merged directory is itself a resumable run directory: a records.jsonl holding
  // every header and the chosen point records.
  std::string text;
  for (const auto& h : runs) text += h.dump() + "\n";
  for (const auto& p : records) text += p.dump() + "\n";
  write_file_atomic(out_dir / "records.jsonl", text);

  json extra = {{"source", c.source}, {"merged_from", merge_header[key::shard_dirs]}, {"duplicates", duplicates}};
  const json res = records::make_results(c.normalized, digest, runs, expected, records, extra);
  records::write_result_files(out_dir, res);
  const json& counts = res["counts"];
  std::cerr << "merge: " << shards.size() << " shards, " << counts["expected"] << " points: " << counts["ok"]
            << " ok, " << counts["skipped"] << " skipped, " << counts["failed"] << " failed, " << counts["missing"]
            << " missing, " << duplicates << " duplicates; results in " << out_dir.string() << "\n";
  int status = report_missing(res) ? 1 : 0;
  if (counts["failed"].get<int>() > 0) status = 1;
  if (!reports::write_config_reports(c.reports, out_dir, references)) status = 1;
  if (plots && !make_plots(out_dir)) status = 1;
  report::write_run_report(out_dir, res, is_size_axis);
  return status;
}

}  // namespace poreplab::runner
