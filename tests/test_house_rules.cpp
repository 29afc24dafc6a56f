// The layering rules the docs state, checked against the tree: a rule only the docs hold
// is broken without anyone noticing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/kinds.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What one folder of experiments/src may include: whole folders, or single headers
// ("backends/device_class.hpp").
struct may_include {
  std::set<std::string> folders;
  std::set<std::string> files;
};

// experiments/src/README.md's table: "| `folder/` | holds | may include |", the last
// cell "—", "all above", "all", or a list of `folder/` and `folder/file.hpp`.
std::map<std::string, may_include> read_may_include_table(const fs::path& readme) {
  std::map<std::string, may_include> rules;
  std::vector<std::string> order;
  std::istringstream in(read_all(readme));
  const std::regex row(R"(^\| `([a-z_]+)/` \|.*\| ([^|]+) \|\s*$)");
  const std::regex entry(R"(`([a-z_]+)/([a-z_0-9.]*)`)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string folder = m[1];
    const std::string cell = m[2];
    may_include r;
    if (cell.find("all above") != std::string::npos) {
      r.folders.insert(order.begin(), order.end());
    } else if (cell.find("all") != std::string::npos && cell.find('`') == std::string::npos) {
      r.folders.insert("*");
    } else {
      for (auto it = std::sregex_iterator(cell.begin(), cell.end(), entry); it != std::sregex_iterator(); ++it) {
        const std::string dir = (*it)[1], file = (*it)[2];
        if (file.empty())
          r.folders.insert(dir);
        else
          r.files.insert(dir + "/" + file);
      }
    }
    order.push_back(folder);
    rules[folder] = r;
  }
  return rules;
}

// "file: includes X" for every include of a table folder that the includer's rule does not allow.
std::vector<std::string> may_include_violations(const fs::path& src, const std::map<std::string, may_include>& rules) {
  std::vector<std::string> bad;
  const std::regex inc(R"re(^\s*#\s*include\s+"([a-z_]+)/([^"]+)")re");
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    const std::string folder = fs::relative(e.path(), src).begin()->string();
    const auto own = rules.find(folder);
    if (own == rules.end()) continue;
    std::istringstream in(read_all(e.path()));
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, inc)) continue;
      const std::string dir = m[1], header = std::string(m[1]) + "/" + std::string(m[2]);
      if (dir == folder || rules.count(dir) == 0) continue;
      const may_include& r = own->second;
      if (r.folders.count("*") || r.folders.count(dir) || r.files.count(header)) continue;
      bad.push_back(fs::relative(e.path(), src).string() + ": includes " + header);
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("house rules: experiments/src follows its README's may-include table", "[house]") {
  const fs::path src = fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "src";
  const auto rules = read_may_include_table(src / "README.md");
  // The table itself is read: every folder of experiments/src has a row.
  REQUIRE(rules.size() >= 9);
  for (const auto& e : fs::directory_iterator(src))
    if (e.is_directory()) CHECK(rules.count(e.path().filename().string()) == 1);
  CHECK(rules.at("util").folders.empty());
  CHECK(rules.at("cli").folders.count("*") == 1);
  CHECK(rules.at("report").files.count("backends/device_class.hpp") == 1);

  const auto bad = may_include_violations(src, rules);
  INFO("includes that break the table:\n" << [&] {
    std::string s;
    for (const auto& b : bad) s += "  " + b + "\n";
    return s;
  }());
  CHECK(bad.empty());
}

TEST_CASE("house rules: the may-include check catches an include the table forbids", "[house]") {
  const fs::path dir = fs::temp_directory_path() / ("poreplab-house-" + std::to_string(::getpid()));
  fs::create_directories(dir / "util");
  fs::create_directories(dir / "report");
  {
    std::ofstream(dir / "README.md") << "| folder | holds | may include |\n|---|---|---|\n"
                                     << "| `util/` | helpers | — |\n"
                                     << "| `report/` | reports | `util/` |\n"
                                     << "| `runner/` | runs | all above |\n";
    std::ofstream(dir / "util" / "a.hpp") << "#include \"report/b.hpp\"\n";
    std::ofstream(dir / "report" / "b.cpp") << "#include \"util/a.hpp\"\n#include \"report/b.hpp\"\n";
  }
  const auto bad = may_include_violations(dir, read_may_include_table(dir / "README.md"));
  fs::remove_all(dir);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0] == "util/a.hpp: includes report/b.hpp");
}

TEST_CASE("house rules: every test name reaches Catch whole from CTest", "[house]") {
  // catch_discover_tests hands each name to Catch as one argument: CMake splits a list at
  // ';', and Catch reads a leading '-' as an option; such a test runs nothing and fails.
  const std::regex name(R"re(TEST_CASE\(\s*"([^"]*)")re");
  std::vector<std::string> bad;
  for (const auto& e : fs::directory_iterator(fs::path(POREPLAB_SOURCE_DIR) / "tests")) {
    if (e.path().extension() != ".cpp") continue;
    const std::string text = read_all(e.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
      const std::string n = (*it)[1];
      if (n.empty() || n.front() == '-' || n.find(';') != std::string::npos)
        bad.push_back(e.path().filename().string() + ": \"" + n + "\"");
    }
  }
  INFO([&] {
    std::string s;
    for (const auto& b : bad) s += "  " + b + "\n";
    return s;
  }());
  CHECK(bad.empty());
}

TEST_CASE("house rules: docs/experiments.md documents every runner kind, and no other", "[house]") {
  const std::string doc = read_all(fs::path(POREPLAB_SOURCE_DIR) / "docs" / "experiments.md");
  const std::regex heading(R"re(\n### kind `([^`]+)`)re");
  std::set<std::string> documented;
  for (std::sregex_iterator it(doc.begin(), doc.end(), heading), end; it != end; ++it) documented.insert((*it)[1].str());
  const auto names = poreplab::runner::kind_names();
  const std::set<std::string> table(names.begin(), names.end());
  for (const auto& k : table) {
    INFO("kind " << k << " needs a \"### kind `" << k << "`\" section in docs/experiments.md");
    CHECK(documented.count(k) == 1);
  }
  for (const auto& k : documented) {
    INFO("docs/experiments.md documents kind " << k << ", which the kind table lacks");
    CHECK(table.count(k) == 1);
  }
}

TEST_CASE("house rules: tuning reads the engines, the engines never read tuning", "[house]") {
  // cpu/src/tune.cpp chooses among engines by measured speed; an engine that asked tuning
  // back would make the two one knot (and a new engine touch both).
  for (const char* file : {"cpu/src/engines.cpp", "cpu/include/poreplab/cpu/engines.hpp"}) {
    INFO(file);
    CHECK(read_all(fs::path(POREPLAB_SOURCE_DIR) / file).find("cpu/tune.hpp") == std::string::npos);
  }
  CHECK(read_all(fs::path(POREPLAB_SOURCE_DIR) / "cpu/include/poreplab/cpu/tune.hpp").find("cpu/engines.hpp") != std::string::npos);
}
