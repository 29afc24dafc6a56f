// `poreplab parent-cache generate | verify | list | bench`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "support.hpp"

using namespace poreplab;
using namespace poreplab::test;

namespace {

namespace fs = std::filesystem;

// One line on stderr, "poreplab: error: ...", and nothing on it otherwise.
void check_one_error_line(const run_result& r, const std::string& needle) {
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.rfind("poreplab: error: ", 0) == 0);
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

bool has_temporaries(const fs::path& dir) {
  if (!fs::exists(dir)) return false;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("parent-cache generate, list and verify in rust-fil-proofs' layout", "[cli][parent-cache]") {
  temp_dir dir("parent-cache");
  const fs::path cache = dir / "parents";
  const auto g = sdr::graph_params_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const fs::path file = graph::parent_cache_path(cache, g);
  REQUIRE(file.filename().string().rfind("v28-sdr-parent-", 0) == 0);
  const std::string dir_arg = " --dir " + shell_quote(cache.string());

  const auto gen = run_poreplab("parent-cache generate --proof StackedDrg2KiBV1_1" + dir_arg, dir);
  INFO(gen.err);
  REQUIRE(gen.status == 0);
  CHECK(gen.err.empty());
  CHECK(gen.out.find(file.filename().string()) != std::string::npos);
  REQUIRE(fs::exists(file));
  CHECK(fs::file_size(file) == g.nodes * 56);
  const auto t = graph::parent_table::generate(g);
  const auto want = graph::parent_table_digest(t.words());
  CHECK(graph::read_parent_cache_sidecar(file) == want);
  CHECK(read_text(graph::parent_cache_sidecar_path(file)) ==
        to_hex(want.data(), want.size()) + "  " + file.filename().string() + "\n");
  CHECK_FALSE(has_temporaries(cache));

  // Again: the file is kept and checked; --force rewrites it.
  const auto again = run_poreplab("parent-cache generate --proof StackedDrg2KiBV1_1" + dir_arg, dir);
  CHECK(again.status == 0);
  CHECK(again.out.find("present") != std::string::npos);
  CHECK(run_poreplab("parent-cache generate --force --proof StackedDrg2KiBV1_1" + dir_arg, dir).status == 0);
  CHECK(graph::read_parent_cache_sidecar(file) == want);

  // The same graph named by porep_id, api version and size: the same file.
  const auto id = sdr::porep_id_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  const std::string by_id =
      "--porep-id " + to_hex(id.data(), id.size()) + " --api-version 1.1.0 --sector-size 2KiB" + dir_arg;
  const auto present = run_poreplab("parent-cache generate " + by_id, dir);
  CHECK(present.status == 0);
  CHECK(present.out.find("present") != std::string::npos);

  // $FIL_PROOFS_PARENT_CACHE is the default directory.
  const auto env = run_shell("FIL_PROOFS_PARENT_CACHE=" + shell_quote((dir / "env").string()) + " " +
                                 poreplab_command("parent-cache generate --proof StackedDrg2KiBV1"),
                             dir);
  CHECK(env.status == 0);
  CHECK(fs::exists(graph::parent_cache_path(dir / "env",
                                            sdr::graph_params_of(sdr::find_registered_proof("StackedDrg2KiBV1")))));

  const auto list = run_poreplab("parent-cache list" + dir_arg, dir);
  CHECK(list.status == 0);
  CHECK(list.out.find(file.filename().string()) != std::string::npos);
  CHECK(list.out.find("StackedDrg2KiBV1_1") != std::string::npos);
  CHECK(list.out.find("sidecar") != std::string::npos);

  CHECK(run_poreplab("parent-cache verify --proof StackedDrg2KiBV1_1" + dir_arg, dir).status == 0);
  const auto all = run_poreplab("parent-cache verify --regenerate" + dir_arg, dir);
  CHECK(all.status == 0);
  CHECK(all.out.find("equals the regenerated table") != std::string::npos);

  SECTION("a corrupt file fails verification") {
    std::string bytes = read_text(file);
    bytes[100] = static_cast<char>(bytes[100] ^ 1);
    fs::remove(file);
    write_text(file, bytes);
    check_one_error_line(run_poreplab("parent-cache verify --proof StackedDrg2KiBV1_1" + dir_arg, dir),
                         "does not match");
    check_one_error_line(run_poreplab("parent-cache verify" + dir_arg, dir), "1 of 1 parent cache files");
    // Without its sidecar (as rust-fil-proofs writes it): checked by regeneration.
    fs::remove(graph::parent_cache_sidecar_path(file));
    check_one_error_line(run_poreplab("parent-cache verify" + dir_arg, dir), "regenerated table");
    // generate does not silently replace a bad file.
    check_one_error_line(run_poreplab("parent-cache generate --proof StackedDrg2KiBV1_1" + dir_arg, dir),
                         "regenerated table");
    CHECK(run_poreplab("parent-cache generate --force --proof StackedDrg2KiBV1_1" + dir_arg, dir).status == 0);
    CHECK(run_poreplab("parent-cache verify" + dir_arg, dir).status == 0);
  }

  SECTION("a truncated file fails verification") {
    fs::resize_file(file, 1000);
    check_one_error_line(run_poreplab("parent-cache verify --proof StackedDrg2KiBV1_1" + dir_arg, dir), "size");
  }

  SECTION("a file of an unknown graph without sidecar cannot be verified without naming the graph") {
    const fs::path odd = cache / "v28-sdr-parent-00.cache";
    write_text(odd, std::string(56 * 64, '\0'));
    check_one_error_line(run_poreplab("parent-cache verify" + dir_arg, dir), "not a registered proof's graph");
  }
}

TEST_CASE("parent-cache errors", "[cli][parent-cache]") {
  temp_dir dir("parent-cache-err");
  const std::string dir_arg = " --dir " + shell_quote((dir / "c").string());
  check_one_error_line(run_poreplab("parent-cache generate" + dir_arg, dir), "give --proof NAME");
  check_one_error_line(run_poreplab("parent-cache generate --proof NoSuchProof" + dir_arg, dir), "NoSuchProof");
  check_one_error_line(
      run_poreplab("parent-cache generate --proof StackedDrg2KiBV1_1 --sector-size 2KiB" + dir_arg, dir),
      "--proof names the graph");
  check_one_error_line(run_poreplab("parent-cache generate --porep-id 00" + dir_arg, dir), "--api-version");
  const std::string id(64, '0');
  check_one_error_line(
      run_poreplab("parent-cache generate --porep-id " + id + " --api-version 1.1.0 --sector-size 3KiB" + dir_arg,
                   dir),
      "--sector-size");
  check_one_error_line(
      run_poreplab("parent-cache generate --porep-id " + id + " --api-version 9.9.9 --sector-size 2KiB" + dir_arg,
                   dir),
      "9.9.9");
  check_one_error_line(run_poreplab("parent-cache list" + dir_arg, dir), "does not exist");
  check_one_error_line(run_poreplab("parent-cache verify --proof StackedDrg2KiBV1_1" + dir_arg, dir),
                       "does not exist");

  // A directory that cannot be created (below a regular file): an error, nothing written.
  write_text(dir / "file", "x");
  check_one_error_line(run_poreplab("parent-cache generate --proof StackedDrg2KiBV1_1 --dir " +
                                        shell_quote((dir / "file" / "sub").string()),
                                    dir),
                       "cannot create");
  CHECK_FALSE(fs::exists(dir / "c"));
}

TEST_CASE("parent-cache bench compares the methods in one process", "[cli][parent-cache]") {
  temp_dir dir("parent-cache-bench");
  const auto r = run_poreplab("parent-cache bench --proof StackedDrg2KiBV1_1", dir);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("feistel-table") != std::string::npos);
  CHECK(r.out.find("per-node") != std::string::npos);
  CHECK(r.out.find("MISMATCH") == std::string::npos);
  check_one_error_line(run_poreplab("parent-cache bench --proof StackedDrg2KiBV1_1 --method fast", dir), "--method");
}
