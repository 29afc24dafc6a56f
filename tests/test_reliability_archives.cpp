// Hostile archives, packs and records (docs/reliability.md, "Archives are data, bounded
// work"): nothing is written outside the directory it was meant for, nothing through a
// link an input carries, and what a command loads is bounded before it is read. The
// scripts (gpu-study --archive, gpu-study-import) run as a user runs them, on archives
// written here byte by byte (ustar), so that every member type can be made without root.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "poreplab/file_io.hpp"
#include "poreplab/sampling.hpp"
#include "records/records.hpp"
#include "util/text.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace poreplab;
using test::temp_dir;

namespace {

using test::quote;

const fs::path kSource = POREPLAB_SOURCE_DIR;

// ---- archives written by hand: any member type, any name ----

struct member {
  std::string name;
  char type = '0';  // ustar typeflag: 0 file, 1 hard link, 2 symbolic link, 3 character device, 5 directory, 6 FIFO
  std::string data;
  std::string link;
  member(std::string name_, char type_ = '0', std::string data_ = {}, std::string link_ = {})
      : name(std::move(name_)), type(type_), data(std::move(data_)), link(std::move(link_)) {}
};

std::string octal(std::uint64_t v, std::size_t width) {  // width - 1 digits and a NUL
  std::string s(width, '\0');
  for (std::size_t i = width - 1; i-- > 0; v >>= 3) s[i] = static_cast<char>('0' + (v & 7));
  return s;
}

std::string tar_of(const std::vector<member>& members) {
  std::string out;
  for (const auto& m : members) {
    REQUIRE(m.name.size() < 100);
    std::string h(512, '\0');
    const auto put = [&](std::size_t at, const std::string& s) { std::memcpy(&h[at], s.data(), s.size()); };
    const std::uint64_t size = m.type == '0' ? m.data.size() : 0;
    put(0, m.name);
    put(100, octal(0755, 8));
    put(108, octal(0, 8));
    put(116, octal(0, 8));
    put(124, octal(size, 12));
    put(136, octal(1700000000, 12));
    put(148, "        ");
    h[156] = m.type;
    put(157, m.link);
    put(257, std::string("ustar\0" "00", 8));
    unsigned sum = 0;
    for (const unsigned char c : h) sum += c;
    put(148, octal(sum, 7));
    h[155] = ' ';
    out += h;
    if (size != 0) out += m.data + std::string((512 - size % 512) % 512, '\0');
  }
  return out + std::string(1024, '\0');
}

// The archive compressed with `compressor` ("xz" or "gzip") into `path`.
void write_archive(const temp_dir& dir, const fs::path& path, const std::vector<member>& members,
                   const std::string& compressor) {
  test::write_text(dir / "archive.tar", tar_of(members));
  const auto r = test::run_shell("(" + compressor + " -c " + quote(dir / "archive.tar") + " >" + quote(path) + ")", dir);
  REQUIRE(r.status == 0);
  fs::remove(dir / "archive.tar");
}

const std::string kFakeStudy = "#!/bin/sh\necho \"the archive's study ran: $*\"\n";

// One line on stderr beginning with `prefix`, exit status 1, each of `words` in it.
void check_script_error(const test::run_result& r, const std::string& prefix, std::initializer_list<std::string> words) {
  INFO("status " << r.status << ", stdout: " << r.out << ", stderr: " << r.err);
  test::check_refused(r, words);
  CHECK(r.err.rfind(prefix, 0) == 0);
  CHECK(r.err.find("Traceback") == std::string::npos);
  for (const char* bash_own : {"gpu-study: line ", "gpu-study-import: line ", "archive-check: line "})  // "script: line N: ..."
    CHECK(r.err.find(bash_own) == std::string::npos);
}

test::run_result gpu_study(const temp_dir& dir, const std::string& args) {
  return test::run_shell("cd " + quote(dir.path) + " && bash " + quote(kSource / "scripts" / "gpu-study") + " " + args, dir);
}

// The entries of dir, dot-files too, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("gpu-study --archive: a link member is refused before anything is written through it", "[reliability]") {
  temp_dir dir("archive-link");
  test::write_text(dir / "victim", "the user's file\n");
  // The stamp gpu-study writes after unpacking, planted as a link to a file elsewhere.
  write_archive(dir, dir / "bundle.tar.xz",
                {{"./", '5'}, {"./gpu-study", '0', kFakeStudy}, {"./.unpacked-from", '2', "", (dir / "victim").string()}},
                "xz");
  const auto r = gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out");
  check_script_error(r, "gpu-study: error: ", {"bundle.tar.xz", "'./.unpacked-from' is a symbolic link", "nothing unpacked"});
  CHECK(test::read_text(dir / "victim") == "the user's file\n");
  CHECK(r.out.find("the archive's study ran") == std::string::npos);
  // Nothing left beside the archive: no bundle/, no staging directory.
  CHECK(names_in(dir.path) == std::vector<std::string>{"bundle.tar.xz", "victim"});
}

TEST_CASE("gpu-study --archive: hard links, devices, FIFOs, absolute names and '..' are refused", "[reliability]") {
  struct hostile {
    member m;
    std::string says;
  };
  const std::vector<hostile> cases = {
      {{"./h", '1', "", "/etc/passwd"}, "'./h' is a hard link"},
      {{"./dev", '3'}, "'./dev' is a device"},
      {{"./fifo", '6'}, "'./fifo' is a FIFO"},
      {{"/tmp/poreplab-archive-absolute", '0', "x"}, "'/tmp/poreplab-archive-absolute' has an absolute name"},
      {{"a/../../outside", '0', "x"}, "'a/../../outside' reaches outside the archive's directory (..)"},
  };
  for (const auto& c : cases) {
    INFO(c.m.name);
    temp_dir dir("archive-member");
    write_archive(dir, dir / "bundle.tar.xz", {{"./gpu-study", '0', kFakeStudy}, c.m}, "xz");
    const auto r = gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out");
    check_script_error(r, "gpu-study: error: ", {c.says, "nothing unpacked"});
    CHECK(names_in(dir.path) == std::vector<std::string>{"bundle.tar.xz"});
    CHECK(!fs::exists(dir.path.parent_path() / "outside"));
  }
  CHECK(!fs::exists("/tmp/poreplab-archive-absolute"));
}

TEST_CASE("gpu-study --archive: an archive's own .unpacked-from is never written over", "[reliability]") {
  temp_dir dir("archive-stamp");
  write_archive(dir, dir / "bundle.tar.xz", {{"./gpu-study", '0', kFakeStudy}, {"./.unpacked-from", '0', "forged\n"}},
                "xz");
  auto r = gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out");
  // Met once its members passed and it is being unpacked: after the progress line.
  const std::string progress = r.err.substr(0, r.err.find('\n') + 1);
  CHECK(progress.find("gpu-study: [") == 0);
  r.err.erase(0, progress.size());
  check_script_error(r, "gpu-study: error: ", {"carries its own .unpacked-from", "nothing unpacked"});
  CHECK(names_in(dir.path) == std::vector<std::string>{"bundle.tar.xz"});
}

TEST_CASE("gpu-study: a missing gpu-study in the archive and empty option values get the script's own line",
          "[reliability]") {
  temp_dir dir("archive-args");
  write_archive(dir, dir / "bundle.tar.xz", {{"./", '5'}, {"./README", '0', "no study here\n"}}, "xz");
  check_script_error(gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out"), "gpu-study: error: ",
                     {"holds no file gpu-study"});
  CHECK(names_in(dir.path) == std::vector<std::string>{"bundle.tar.xz"});
  check_script_error(gpu_study(dir, "--budget '' --out out"), "gpu-study: error: ", {"--budget needs seconds"});
  check_script_error(gpu_study(dir, "--out out --budget"), "gpu-study: error: ", {"--budget needs seconds"});
  check_script_error(gpu_study(dir, "--archive '' --out out"), "gpu-study: error: ", {"--archive needs a file"});
}

TEST_CASE("gpu-study --archive: a bundle of files and directories is unpacked, stamped and run", "[reliability]") {
  temp_dir dir("archive-ok");
  write_archive(dir, dir / "bundle.tar.xz",
                {{"./", '5'}, {"./gpu-study", '0', kFakeStudy}, {"./a dir/", '5'}, {"./a dir/a file", '0', "x"}}, "xz");
  const auto r = gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out --budget 60");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out == "the archive's study ran: --out out --budget 60\n");
  CHECK(fs::is_regular_file(dir / "bundle" / ".unpacked-from"));
  CHECK(test::read_text(dir / "bundle" / "a dir" / "a file") == "x");
  // The second call finds its stamp and runs the study without unpacking again.
  const auto again = gpu_study(dir, "--archive " + quote(dir / "bundle.tar.xz") + " --out out");
  CHECK(again.status == 0);
  CHECK(again.err.find("unpacking") == std::string::npos);
}

namespace {

// A checkout as gpu-study-import sees it (the script copied into ROOT/scripts, the plots
// and the build left out): it writes into ROOT/docs/results only.
struct import_root {
  temp_dir dir{"import"};
  fs::path root = dir / "root";
  fs::path pack = dir / "pack";
  import_root() {
    fs::create_directories(root / "scripts");
    fs::create_directories(root / ".venv" / "bin");
    fs::create_directories(root / "docs" / "results");
    fs::create_directories(pack);
    for (const char* s : {"gpu-study-import", "archive-check"})
      fs::copy_file(kSource / "scripts" / s, root / "scripts" / s);
    // The packages and the venv are the machine's business, not the import's.
    test::write_text(root / "scripts" / "setup", "#!/bin/sh\nexit 0\n");
    fs::permissions(root / "scripts" / "setup", fs::perms::owner_all);
    const auto py = test::run_shell("command -v python3", dir);
    REQUIRE(py.status == 0);
    fs::create_symlink(py.out.substr(0, py.out.find('\n')), root / ".venv" / "bin" / "python");
  }
  test::run_result run(const std::string& name = "") const {
    return test::run_shell("POREPLAB=/bin/true bash " + quote(root / "scripts" / "gpu-study-import") + " " + quote(pack) +
                               (name.empty() ? "" : " " + quote(name)),
                           dir);
  }
  std::vector<std::string> results() const { return names_in(root / "docs" / "results"); }
};

const std::string kInfo = R"({"date": "2026-01-02T03:04:05Z", "cuda": {"devices": [{"name": "NVIDIA H100 80GB HBM3"}]}})";

}  // namespace

TEST_CASE("gpu-study-import: a link in results.tar.gz is refused before anything is unpacked", "[reliability]") {
  import_root imp;
  // The old import unpacked key -> elsewhere and drew its plots and report there.
  fs::create_directories(imp.dir / "elsewhere");
  test::write_text(imp.dir / "elsewhere" / "report.md", "someone's report\n");
  test::write_text(imp.pack / "info.json", kInfo);
  write_archive(imp.dir, imp.pack / "results.tar.gz", {{"./", '5'}, {"./key", '2', "", (imp.dir / "elsewhere").string()}},
                "gzip");
  check_script_error(imp.run(), "gpu-study-import: error: ", {"results.tar.gz: member './key' is a symbolic link"});
  CHECK(names_in(imp.dir / "elsewhere") == std::vector<std::string>{"report.md"});
  CHECK(test::read_text(imp.dir / "elsewhere" / "report.md") == "someone's report\n");
  CHECK(imp.results().empty());

  write_archive(imp.dir, imp.pack / "results.tar.gz", {{"./key/", '5'}, {"./key/../../../escaped", '0', "x"}}, "gzip");
  check_script_error(imp.run(), "gpu-study-import: error: ", {"reaches outside the archive's directory"});
  CHECK(imp.results().empty());
}

TEST_CASE("gpu-study-import: info.json of another shape, a date that is a path, a NAME that is a path: one line",
          "[reliability]") {
  import_root imp;
  write_archive(imp.dir, imp.pack / "results.tar.gz", {{"./", '5'}, {"./key/", '5'}, {"./key/records.jsonl", '0', ""}},
                "gzip");
  struct bad {
    std::string info, says;
  };
  const std::vector<bad> cases = {
      {R"({"date": "../../../../tmp/x"})", "/date: expected a date YYYY-MM-DD"},
      {R"({"date": "2026-13-45"})", "/date: expected a date YYYY-MM-DD"},
      {R"({"date": 20260102})", "/date: expected a date YYYY-MM-DD"},
      {"[]", "expected an object"},
      {R"({"cuda": []})", "/cuda: expected an object"},
      {R"({"cuda": {"devices": {}}})", "/cuda/devices: expected a list"},
      {R"({"cuda": {"devices": [3]}})", "/cuda/devices/0: expected an object with a name"},
      {R"({"cuda": {"devices": [{"name": 7}]}})", "/cuda/devices/0: expected an object with a name"},
      {"{\"date\": \"2026", "not JSON"},
      {"\xff\xfe", "not JSON"},
  };
  for (const auto& c : cases) {
    INFO(c.info);
    test::write_text(imp.pack / "info.json", c.info);
    check_script_error(imp.run(), "gpu-study-import: error: ", {"info.json: " + c.says});
    CHECK(imp.results().empty());
  }
  test::write_text(imp.pack / "info.json", kInfo);
  for (const std::string name : {"../../outside", "a/b", ".hidden", "-rf"}) {
    INFO(name);
    check_script_error(imp.run(name), "gpu-study-import: error: ", {"one directory of docs/results, not a path"});
  }
  CHECK(imp.results().empty());
  CHECK(!fs::exists(imp.dir / "outside"));
  // A link in the pack is not read through.
  fs::remove(imp.pack / "info.json");
  fs::create_symlink("/etc/hostname", imp.pack / "info.json");
  check_script_error(imp.run(), "gpu-study-import: error: ", {"info.json is a link or not a regular file"});
  CHECK(imp.results().empty());
}

TEST_CASE("gpu-study-import: a pack of files and directories lands in docs/results/<gpu>-<date>", "[reliability]") {
  import_root imp;
  test::write_text(imp.pack / "info.json", R"({"date": "2026-01-02T03:04:05Z", "cuda": {"devices": [{"name": "NVIDIA H100 / ../../x"}]}})");
  test::write_text(imp.pack / "report.md", "# GPU study report\n");
  write_archive(imp.dir, imp.pack / "results.tar.gz",
                {{"./", '5'}, {"./key/", '5'}, {"./key/records.jsonl", '0', "{}\n"}, {"./key/done", '0', ""}}, "gzip");
  const auto r = imp.run();
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(imp.results() == std::vector<std::string>{"nvidia-h100-x-2026-01-02"});
  const fs::path d = imp.root / "docs" / "results" / "nvidia-h100-x-2026-01-02";
  CHECK(test::read_text(d / "report.md") == "# GPU study report\n");
  CHECK(test::read_text(d / "raw" / "key" / "records.jsonl") == "{}\n");
  CHECK(!fs::exists(d / "raw" / "key" / "done"));
  check_script_error(imp.run(), "gpu-study-import: error: ", {"exists; pass another NAME"});
}

// ---- the runner's own subdirectories ----

namespace {

std::string cli(const std::string& args) { return test::poreplab_command(args); }

const char* kTinyHashConfig = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "h", "kind": "hash",
    "warmup": 0, "samples": 2, "axes": {"algo": ["sha256"], "engine": ["portable"], "mode": ["chain"], "size": ["64KiB"]}}]})";

}  // namespace

TEST_CASE("run --resume and compare --out: a link planted at plots/ is refused, no figure drawn through it",
          "[reliability]") {
  temp_dir dir("plots-link");
  test::write_text(dir / "c.json", kTinyHashConfig);
  const fs::path out = dir / "out";
  const auto first = test::run_poreplab("run " + quote(dir / "c.json") + " -o " + quote(out) + " --no-plots", dir);
  INFO(first.err);
  REQUIRE(first.status == 0);
  fs::create_directories(dir / "elsewhere");
  fs::create_symlink(dir / "elsewhere", out / "plots");
  const std::string records = test::read_text(out / "records.jsonl");
  const auto r = test::run_poreplab("run " + quote(dir / "c.json") + " -o " + quote(out) + " --resume", dir);
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err == "poreplab: error: " + (out / "plots").string() +
                     ": is a link, where poreplab makes its own directory: remove it or write elsewhere\n");
  CHECK(fs::is_empty(dir / "elsewhere"));
  CHECK(test::read_text(out / "records.jsonl") == records);  // refused before the run began
  // A file there is refused alike; merge and compare check the same directory.
  fs::remove(out / "plots");
  test::write_text(out / "plots", "");
  CHECK(test::run_poreplab("run " + quote(dir / "c.json") + " -o " + quote(out) + " --resume", dir).err.find(
            "plots: is a file, where poreplab makes its own directory") != std::string::npos);
  fs::create_directories(dir / "cmp");
  fs::create_symlink(dir / "elsewhere", dir / "cmp" / "plots");
  const auto c = test::run_poreplab("compare " + quote(out) + " " + quote(out) + " --out " + quote(dir / "cmp"), dir);
  CHECK(c.status == 1);
  CHECK(c.err == "poreplab: error: " + (dir / "cmp" / "plots").string() +
                     ": is a link, where poreplab makes its own directory: remove it or write elsewhere\n");
  CHECK(fs::is_empty(dir / "elsewhere"));
  CHECK(!fs::exists(dir / "cmp" / "compare.md"));
}

TEST_CASE("make_own_directory makes a directory once and refuses a link, a file or a FIFO there", "[reliability]") {
  temp_dir dir("own-dir");
  make_own_directory(dir / "plots");
  CHECK(fs::is_directory(fs::symlink_status(dir / "plots")));
  make_own_directory(dir / "plots");  // already ours
  check_own_directory(dir / "absent");
  CHECK(!fs::exists(dir / "absent"));
  fs::create_directories(dir / "target");
  fs::create_symlink(dir / "target", dir / "link");
  CHECK_THROWS_WITH(make_own_directory(dir / "link"), Catch::Contains("link: is a link, where poreplab makes its own directory"));
  CHECK_THROWS_WITH(check_own_directory(dir / "link"), Catch::Contains("is a link"));
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(make_own_directory(dir / "fifo"), Catch::Contains("fifo: is a FIFO, where"));
  CHECK(fs::is_empty(dir / "target"));
}

// ---- bounded work: records ----

namespace {

// A records file of `points` ok hash points (distinct axes), each with `samples` samples.
std::string records_text(std::size_t points, std::size_t samples, const std::string& experiment = "h") {
  std::string text = R"({"type":"header","schema":"poreplab-records/1","run":0})" "\n";
  json sample_list = json::array();
  for (std::size_t i = 0; i < samples; ++i) sample_list.push_back(1.0 + double(i % 7) * 0.01);
  for (std::size_t i = 0; i < points; ++i) {
    const json p = {{"type", "point"},       {"experiment", experiment}, {"kind", "hash"},
                    {"axes", {{"copy", i}}}, {"status", "ok"},          {"metric", "seconds"},
                    {"samples", sample_list}};
    text += p.dump() + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("records: more samples a point than a run takes are refused at load, file and line named", "[reliability]") {
  temp_dir dir("samples-cap");
  fs::create_directories(dir / "a");
  test::write_text(dir / "a" / "records.jsonl", records_text(1, kMaxSamples));
  CHECK(records::read_records(dir / "a" / "records.jsonl", false).points.size() == 1);
  test::write_text(dir / "a" / "records.jsonl", records_text(2, kMaxSamples + 1));
  const fs::path f = dir / "a" / "records.jsonl";
  CHECK_THROWS_WITH(records::read_records(f, false),
                    f.string() + ":2: /samples: 10001 samples, more than the 10000 a run takes of one point");
  const auto r = test::run_poreplab("compare " + quote(dir / "a") + " " + quote(dir / "a"), dir);
  CHECK(r.status == 1);
  CHECK(r.err == "poreplab: error: " + f.string() + ":2: /samples: 10001 samples, more than the 10000 a run takes of one point\n");
}

TEST_CASE("stopping_rule: work sampled in batches stops at the sample cap too", "[reliability]") {
  const stopping_rule rule(stopping_options{.samples = 1000000});
  CHECK(rule.more_that_fit(1, 1e-9) == kMaxSamples - 1);
  CHECK(rule.more_that_fit(kMaxSamples, 1e-9) == 0);
}

TEST_CASE("records memory: a command counts every records file it loads together, at its own factor", "[reliability]") {
  temp_dir dir("records-memory");
  for (const char* side : {"a", "b"}) {
    fs::create_directories(dir / side);
    test::write_text(dir / side / "records.jsonl", records_text(200, 5));
  }
  const std::uint64_t one = fs::file_size(dir / "a" / "records.jsonl");
  // Room for one file at any factor, not for both at compare's: each file alone passes.
  const std::string avail = "POREPLAB_MEM_AVAILABLE=" + std::to_string(one * (records::kCompareMemoryPerByte + 4)) + " ";
  const auto r = test::run_shell(avail + cli("compare " + quote(dir / "a") + " " + quote(dir / "b")), dir);
  INFO(r.err);
  test::check_refused(r, "of records, taking " + std::to_string(records::kCompareMemoryPerByte) +
                             " bytes of memory per byte in this command: does not fit in memory");
  CHECK(r.err.rfind("poreplab: error: " + (dir / "a" / "records.jsonl").string() + ", " +
                        (dir / "b" / "records.jsonl").string() + ": ",
                    0) == 0);
  // A result set (the reports, the GPU model) counts its directories together too.
  const std::string avail_report = "POREPLAB_MEM_AVAILABLE=" + std::to_string(one * (records::kReportMemoryPerByte + 4)) + " ";
  const auto v = test::run_shell(avail_report + cli("report verdict " + quote(dir / "a") + " " + quote(dir / "b")), dir);
  CHECK(v.status == 1);
  CHECK(v.err.find("bytes of memory per byte in this command: does not fit in memory") != std::string::npos);
  // With room for both, compare runs.
  const auto ok = test::run_shell(
      "POREPLAB_MEM_AVAILABLE=" + std::to_string(2 * one * records::kCompareMemoryPerByte + 4096) + " " +
          cli("compare --json " + quote(dir / "a") + " " + quote(dir / "b")),
      dir);
  INFO(ok.err);
  CHECK(ok.status == 0);
}

// ---- error texts name a few names ----

TEST_CASE("names_text: at most a few names, each cut short, then how many more", "[reliability]") {
  CHECK(names_text({}) == "");
  CHECK(names_text({"a", "b"}) == "a, b");
  CHECK(names_text({"a", "b", "c", "d", "e", "f", "g"}) == "a, b, c, d, e and 2 more");
  CHECK(names_text({"a", "b", "c"}, 0) == "3 more");
  CHECK(names_text({std::string(1000, 'x')}) == std::string(61, 'x') + "...");
}

TEST_CASE("compare: 'no point in common' between thousands of experiments is one short line", "[reliability]") {
  temp_dir dir("compare-names");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::string a = R"({"type":"header","schema":"poreplab-records/1","run":0})" "\n", b = a;
  for (int i = 0; i < 3000; ++i) {
    const auto point = [&](const std::string& e) {
      return json{{"type", "point"}, {"experiment", e}, {"kind", "hash"}, {"axes", json::object()}, {"status", "ok"}}.dump() + "\n";
    };
    a += point("left-" + std::to_string(i) + std::string(200, 'x'));
    b += point("right-" + std::to_string(i));
  }
  test::write_text(dir / "a" / "records.jsonl", a);
  test::write_text(dir / "b" / "records.jsonl", b);
  const auto r = test::run_poreplab("compare " + quote(dir / "a") + " " + quote(dir / "b"), dir);
  INFO(r.err.substr(0, 2000));
  test::check_refused(r, {"no point in common", "and 2995 more"});
  CHECK(r.err.size() < 1000);
}
