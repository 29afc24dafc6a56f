// The layering rules the docs state, checked against the tree: a rule only the docs hold
// is broken without anyone noticing.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "runner/kinds.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
namespace test = poreplab::test;

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

namespace {

// C++ text with its comments blanked (line breaks kept, so line numbers hold) and its
// string and character literals kept: what a name check should read.
std::string without_comments(const std::string& s) {
  std::string out = s;
  std::size_t i = 0;
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      const std::size_t end = std::min(s.find('\n', i), s.size());
      blank(i, end);
      i = end;
    } else if (s.compare(i, 2, "/*") == 0) {
      const std::size_t close = s.find("*/", i + 2);
      const std::size_t end = close == std::string::npos ? s.size() : close + 2;
      blank(i, end);
      i = end;
    } else if (s.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])))) {
      const std::size_t open = s.find('(', i);
      if (open == std::string::npos) break;
      std::string close(")");
      close.append(s, i + 2, open - (i + 2)).push_back('"');
      const std::size_t end = s.find(close, open);
      i = end == std::string::npos ? s.size() : end + close.size();
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      for (++i; i < s.size() && s[i] != q && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// The string literals of one line of code, without their quotes.
std::vector<std::string> literals(const std::string& line) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\'') {  // a character literal, '"' among them
      for (++i; i < line.size() && line[i] != '\''; ++i)
        if (line[i] == '\\') ++i;
    } else if (line[i] == '"') {
      std::string lit;
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\') lit += line[i++];
        if (i < line.size()) lit += line[i];
      }
      out.push_back(std::move(lit));
    }
  }
  return out;
}

// Lines of `text` (from `file`) that tell an engine, a reference implementation or a GPU
// kernel by comparing its name with a literal: "file:line: code". A name is text at the
// edge, parsed once (compiled_engine, find_reference, kernel_label); code past the edge
// asks traits. `table` marks the file that spells the reference and kernel names, where
// those literals are the table itself.
std::vector<std::string> name_comparisons(const std::string& file, const std::string& text, bool table = false) {
  static const std::string name = R"re("(?:shani|avx2|avx512|portable|openssl)[^"]*")re";
  static const std::regex compared("(?:==|!=)\\s*" + name + "|" + name + "\\s*(?:==|!=)");
  static const std::regex searched(R"re(\.(?:starts_with|ends_with|find|rfind|compare|find_mix)\(\s*)re" + name);
  // Spelled anywhere but their tables, a reference's or a kernel's name is a second spelling.
  static const std::regex spelled(R"re(openssl(?:-noshani)?|.*(?:label_layer_kernel|_chain_kernel).*)re");
  const auto spells = [&](const std::string& line) {
    const auto lits = literals(line);
    return std::any_of(lits.begin(), lits.end(), [](const std::string& l) { return std::regex_match(l, spelled); });
  };
  std::vector<std::string> found;
  std::istringstream code(without_comments(text)), raw(text);
  std::string line, original;
  for (int n = 1; std::getline(code, line) && std::getline(raw, original); ++n)
    if (std::regex_search(line, compared) || std::regex_search(line, searched) || (!table && spells(line)))
      found.push_back(file + ":" + std::to_string(n) + ": " + original);
  return found;
}

}  // namespace

TEST_CASE("house rules: engines, reference implementations and GPU kernels are told by traits, not by name", "[house]") {
  const fs::path root = POREPLAB_SOURCE_DIR;
  const std::set<std::string> tables = {"cpu/include/poreplab/cpu/reference.hpp", "experiments/src/model/gpu_model.hpp"};
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* dir : {"cpu", "common", "cuda", "experiments/src"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h"))
        continue;
      const std::string rel = fs::relative(e.path(), root).string();
      ++files;
      for (auto& f : name_comparisons(rel, read_all(e.path()), tables.count(rel) == 1)) found.push_back(std::move(f));
    }
  CHECK(files > 100);
  INFO("compare traits (engine::isa, engine::shape, reference.hpp's table, gpu_model.hpp's kernel labels), not names:\n"
       << [&] {
            std::string s;
            for (const auto& f : found) s += "  " + f + "\n";
            return s;
          }());
  CHECK(found.empty());
}

TEST_CASE("house rules: the name check catches the comparisons it forbids, not comments or tables", "[house]") {
  // Lines the engines, the latency models and the GPU model once held.
  const std::string planted = R"(
      if (engine == "portable" || engine == "avx2-1") {
      } else if (engine.starts_with("shani")) {
      } else if (c.lanes > 1 && engine.starts_with("avx512")) {
      } else if (engine == "avx2" && b2s) {
  const mix_row* m = t.find_mix(engine.starts_with("shani") ? "shani" : engine);
  return name.substr(0, 5) == "shani";
  if (name == "openssl") return true;
      row.engine = "openssl";
  for (const char* chain : {"sha256_chain_kernel", "blake2s_chain_kernel", "blake2b_chain_kernel"})
  k.unit = k.label.rfind("label_layer_kernel", 0) == 0 ? "node" : "compression";
)";
  const auto found = name_comparisons("planted.cpp", planted);
  REQUIRE(found.size() == 10);
  CHECK(found[0] == "planted.cpp:2:       if (engine == \"portable\" || engine == \"avx2-1\") {");
  CHECK(found[5].starts_with("planted.cpp:7:"));
  // Not comparisons: comments, the engine table's rows, latency rows, a literal holding //.
  const std::string clean = R"(
  // engine == "portable" once chose the scalar model
  /* name.starts_with("shani") */
  v.push_back({"avx2-x8", "AVX2 multi-buffer, 8 chains", a, 8, engine_isa::avx2, engine_shape::multi_buffer});
  const double round = L("vpsrld ymm") + 3 * L("vpxor ymm");
  const char* url = "http://example.org/openssl"; if (x == y) return;
  const char q = '"'; const bool same = engine.name == name;
  const std::string label = "kernel " + chain_kernel_label(f) + " has no SASS";
)";
  CHECK(name_comparisons("clean.cpp", clean).empty());
  // In the table's own file the spelling is the table; a comparison there still counts.
  CHECK(name_comparisons("reference.hpp", "  reference{reference_impl::openssl, \"openssl\", \"x\", true},\n", true).empty());
  CHECK(name_comparisons("reference.hpp", "  if (name == \"openssl\") return 1;\n", true).size() == 1);
}

namespace {

// `code` (comments already blanked) with the insides of its string and character
// literals blanked, so braces and comparisons in text are not read as code. A quote that
// opens no short character literal (2'000'000) is left alone.
std::string without_literals(const std::string& code) {
  std::string out = code;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '"') {
      std::size_t k = i + 1;
      for (; k < code.size() && code[k] != '"' && code[k] != '\n'; ++k)
        if (code[k] == '\\') ++k;
      for (std::size_t b = i + 1; b < k && b < out.size(); ++b) out[b] = ' ';
      i = k;
    } else if (code[i] == '\'') {
      const std::size_t len = i + 1 < code.size() && code[i + 1] == '\\' ? 2 : 1;
      if (i + len + 1 < code.size() && code[i + len + 1] == '\'') {
        for (std::size_t b = i + 1; b <= i + len; ++b) out[b] = ' ';
        i += len + 1;
      }
    }
  }
  return out;
}

// Places in `text` (from `file`) that branch on a hash family other than by an exhaustive
// switch, "file:line: code": an ==/!= against a hash_family enumerator (outside `if
// constexpr` and static_assert, whose chains end in static_assert(unhandled_family<H>)),
// and a switch with `case hash_family::` whose own cases include `default:`. Either one
// silently gives a new family an old family's branch; a switch without a default makes
// -Wswitch list it.
std::vector<std::string> family_branches(const std::string& file, const std::string& text) {
  static const std::string enumerator = R"re((?:\w+::)*hash_family::\w+)re";
  static const std::regex compared("(?:==|!=)\\s*" + enumerator + "|" + enumerator + "\\s*(?:==|!=)");
  static const std::regex compile_time(R"re(\bif\s+constexpr\b|\bstatic_assert\s*\()re");
  static const std::regex family_case(R"re(\bcase\s+)re" + enumerator);
  static const std::regex switch_open(R"re(\bswitch\s*\()re");
  const std::string code = without_literals(without_comments(text));
  std::vector<std::string> lines;
  {
    std::istringstream raw(text);
    for (std::string l; std::getline(raw, l);) lines.push_back(l);
  }
  const auto line_of = [&](std::size_t pos) {
    return static_cast<std::size_t>(std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  };
  const auto place = [&](std::size_t n) { return file + ":" + std::to_string(n + 1) + ": " + (n < lines.size() ? lines[n] : ""); };
  std::vector<std::string> found;
  std::istringstream in(code);
  std::size_t n = 0;
  for (std::string l; std::getline(in, l); ++n)
    if (std::regex_search(l, compared) && !std::regex_search(l, compile_time)) found.push_back(place(n));
  // Each switch's body, its nested braces blanked: what is left is its own cases.
  for (auto it = std::sregex_iterator(code.begin(), code.end(), switch_open); it != std::sregex_iterator(); ++it) {
    const std::size_t open = code.find('{', static_cast<std::size_t>(it->position()));
    if (open == std::string::npos) break;
    std::string own;
    int depth = 0;
    for (std::size_t i = open; i < code.size(); ++i) {
      depth += code[i] == '{' ? 1 : code[i] == '}' ? -1 : 0;
      if (depth == 0) break;
      own += depth == 1 ? code[i] : ' ';
    }
    if (std::regex_search(own, family_case) && own.find("default:") != std::string::npos)
      found.push_back(place(line_of(static_cast<std::size_t>(it->position()))));
  }
  return found;
}

}  // namespace

TEST_CASE("house rules: every branch on a hash family is a switch without a default", "[house]") {
  const fs::path root = POREPLAB_SOURCE_DIR;
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* dir : {"common", "cpu", "cuda", "seal", "experiments/src"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h"))
        continue;
      ++files;
      for (auto& f : family_branches(fs::relative(e.path(), root).string(), read_all(e.path()))) found.push_back(std::move(f));
    }
  CHECK(files > 100);
  INFO("switch over the family with every case and no default, or ask a trait of family.hpp:\n" << [&] {
    std::string s;
    for (const auto& f : found) s += "  " + f + "\n";
    return s;
  }());
  CHECK(found.empty());
}

TEST_CASE("house rules: the family check catches comparisons and defaults, not switches or compile-time chains", "[house]") {
  // Shapes the tree once held (full_digest_bytes, with_scheme, the engines' tests).
  const std::string planted = R"(
  return f == hash_family::blake2b ? 64 : 32;
  if (hash_family::sha256 != e.algo) return;
  const bool b = a.hash==poreplab::families::hash_family::blake2s;
  switch (s.hash) {
    case hash_family::blake2s: return 1;
    case hash_family::blake2b: { if (x) { y(); } return 2; }
    default: return 0;
  }
)";
  const auto found = family_branches("planted.cpp", planted);
  REQUIRE(found.size() == 4);
  CHECK(found[0] == "planted.cpp:2:   return f == hash_family::blake2b ? 64 : 32;");
  CHECK(found[1].starts_with("planted.cpp:3:"));
  CHECK(found[2].starts_with("planted.cpp:4:"));
  CHECK(found[3] == "planted.cpp:5:   switch (s.hash) {");
  // Not branches: a default value, compile-time chains, comments, literals, an exhaustive
  // switch, and a default of an outer switch around a family switch.
  const std::string clean = R"(
  hash_family algo = hash_family::sha256;
  if constexpr (H == hash_family::sha256) {
  } else if constexpr (H == hash_family::blake2s) {
  }
  static_assert(A == hash_family::blake2s || A == hash_family::blake2b);
  // f == hash_family::blake2b once chose 64
  const char* s = "x == hash_family::sha256 {"; const char c = '{'; const long big = 2'000'000;
  switch (f) {
    case hash_family::sha256: return 1;
    case hash_family::blake2s:
    case hash_family::blake2b: return 2;
  }
  switch (k) {
    case kind::a: { switch (f) { case hash_family::sha256: break; case hash_family::blake2s: case hash_family::blake2b: break; } } break;
    default: break;
  }
)";
  CHECK(family_branches("clean.cpp", clean).empty());
}

namespace {

// A function as Universal Ctags measures it: from its first line to its closing brace.
struct function_span {
  std::size_t lines = 0;
  std::string file, name;
};

// Why Universal Ctags cannot run here, "" when it can. The length rule needs its "end:"
// field, which other ctags lack. `env`: variable assignments for the command.
std::string ctags_unavailable(const test::temp_dir& scratch, const std::string& env = "") {
  const test::run_result r = test::run_shell(env + "ctags --version", scratch);
  if (r.status != 0) {
    std::string err = r.err;
    while (!err.empty() && std::isspace(static_cast<unsigned char>(err.back()))) err.pop_back();
    return "ctags did not run (exit status " + std::to_string(r.status) + (err.empty() ? "" : ": " + err) + ")";
  }
  if (r.out.find("Universal Ctags") == std::string::npos)
    return "ctags is not Universal Ctags (" + r.out.substr(0, r.out.find('\n')) + ")";
  return "";
}

// Every function ctags finds in the C++ and CUDA sources under `dirs` of `root`, longest
// first: `ctags -R --langmap=C++:+.cu.cuh --languages=C++ --kinds-C++=f --fields=+ne`,
// each function's lines from its "line:" field to its "end:" field.
std::vector<function_span> function_spans(const fs::path& root, const std::vector<std::string>& dirs,
                                          const test::temp_dir& scratch) {
  std::string cmd = "cd " + test::shell_quote(root.string()) +
                    " && ctags -R --langmap=C++:+.cu.cuh --languages=C++ --kinds-C++=f --fields=+ne -f -";
  for (const auto& d : dirs) cmd += " " + test::shell_quote(d);
  const test::run_result r = test::run_shell(cmd, scratch);
  if (r.status != 0) throw std::runtime_error("ctags failed (exit status " + std::to_string(r.status) + "): " + r.err);
  std::vector<function_span> spans;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string f; std::getline(cells, f, '\t');) fields.push_back(f);
    std::string first, last;
    for (std::size_t i = 3; i < fields.size(); ++i) {
      if (fields[i].rfind("line:", 0) == 0) first = fields[i].substr(5);
      if (fields[i].rfind("end:", 0) == 0) last = fields[i].substr(4);
    }
    if (first.empty() || last.empty()) continue;
    spans.push_back({std::stoul(last) - std::stoul(first) + 1, fields[1], fields[0]});
  }
  std::sort(spans.begin(), spans.end(), [](const function_span& a, const function_span& b) {
    return std::tie(b.lines, a.file, a.name) < std::tie(a.lines, b.file, b.name);
  });
  return spans;
}

// "LINES file name" for each span over `limit` lines.
std::vector<std::string> over_limit(const std::vector<function_span>& spans, std::size_t limit) {
  std::vector<std::string> out;
  for (const auto& s : spans)
    if (s.lines > limit) out.push_back(std::to_string(s.lines) + " " + s.file + " " + s.name);
  return out;
}

constexpr std::size_t kMaxFunctionLines = 100;
constexpr const char* kCtagsNeeded =
    ": this check needs Universal Ctags, which scripts/setup installs (the Debian package universal-ctags)";

}  // namespace

TEST_CASE("house rules: no product function is over 100 lines", "[house]") {
  const test::temp_dir scratch("house");
  if (const std::string why = ctags_unavailable(scratch); !why.empty())
    FAIL(why << kCtagsNeeded);
  const auto spans =
      function_spans(POREPLAB_SOURCE_DIR, {"common", "cpu", "cuda", "seal", "experiments/src"}, scratch);
  // The parse itself worked: the tree's functions were found, with their ends.
  CHECK(spans.size() > 1000);
  const auto bad = over_limit(spans, kMaxFunctionLines);
  INFO("functions over " << kMaxFunctionLines << " lines (split them into helpers named for what they compute):\n"
                         << [&] {
                              std::string s;
                              for (const auto& b : bad) s += "  " + b + "\n";
                              return s;
                            }());
  CHECK(bad.empty());
}

TEST_CASE("house rules: the function length check catches a planted long function", "[house]") {
  const test::temp_dir scratch("house");
  if (const std::string why = ctags_unavailable(scratch); !why.empty())
    FAIL(why << kCtagsNeeded);
  const auto body = [](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "  x += " + std::to_string(i) + ";\n";
    return s;
  };
  fs::create_directories(scratch / "src" / "cuda");
  // 120 lines in a namespace, exactly 100 (allowed), and a 102-line kernel in a .cu file.
  std::ofstream(scratch / "src" / "long.cpp") << "namespace p {\nint planted_long(int x) {\n" << body(117)
                                              << "  return x;\n}\nint planted_short(int x) { return x; }\n}\n";
  std::ofstream(scratch / "src" / "edge.cpp") << "int planted_edge(int x) {\n" << body(97) << "  return x;\n}\n";
  std::ofstream(scratch / "src" / "cuda" / "k.cu") << "__global__ void planted_kernel(int* y) {\n  int x = 0;\n"
                                                    << body(98) << "  *y = x;\n}\n";
  const auto spans = function_spans(scratch.path, {"src"}, scratch);
  CHECK(spans.size() == 4);
  const auto bad = over_limit(spans, kMaxFunctionLines);
  REQUIRE(bad.size() == 2);
  CHECK(bad[0] == "120 src/long.cpp planted_long");
  CHECK(bad[1] == "102 src/cuda/k.cu planted_kernel");
  CHECK(over_limit(spans, 99).size() == 3);
  // Without ctags on the PATH, the reason the tests above fail with.
  CHECK(ctags_unavailable(scratch, "PATH=/nonexistent ").starts_with("ctags did not run (exit status 127"));
}
