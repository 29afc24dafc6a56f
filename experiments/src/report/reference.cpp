#include "report/reference.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "backends/device_class.hpp"
#include "records/schema.hpp"
#include "util/share_dir.hpp"

namespace poreplab::verdict {

namespace axis = records::axis;

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::vector<fs::path>> parse_reference_flag(const std::vector<std::string>& values) {
  if (values.empty()) return std::nullopt;
  const bool none = std::find(values.begin(), values.end(), "none") != values.end();
  if (none && values.size() > 1) throw std::invalid_argument("--reference: none stands alone (no dataset with it)");
  if (none) return std::vector<fs::path>{};
  return std::vector<fs::path>(values.begin(), values.end());
}

namespace {

std::optional<fs::path> shipped_root() {
  const auto share = share_dir();
  if (!share) return std::nullopt;
  std::error_code ec;
  for (const fs::path& p : {*share / "reference", *share / ".." / "docs" / "results"})
    if (fs::is_directory(p, ec)) return fs::weakly_canonical(p, ec);
  return std::nullopt;
}

// The folders at most three levels down holding a records.jsonl, sorted.
std::vector<fs::path> record_dirs(const fs::path& dataset) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dataset, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it.depth() > 3) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && it->path().filename() == "records.jsonl") out.push_back(it->path().parent_path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> shipped_reference_datasets() {
  std::vector<fs::path> out;
  const auto root = shipped_root();
  if (!root) return out;
  std::error_code ec;
  // A folder with records is a dataset (docs/results also holds comparisons without any).
  for (const auto& e : fs::directory_iterator(*root, ec))
    if (e.is_directory(ec) && !record_dirs(e.path()).empty()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

reference_inputs reference_inputs_for(const std::optional<std::vector<fs::path>>& choice) {
  if (choice) return {*choice, {}};
  reference_inputs out{shipped_reference_datasets(), {}};
  const auto share = share_dir();
  std::error_code ec;
  if (!share || !fs::is_directory(*share / "machines", ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(*share / "machines", ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      out.machines.push_back(load_machine(f));
    } catch (const std::exception& e) {
      std::cerr << "poreplab: warning: reference machine " << f.string() << " left out: " << e.what() << "\n";
    }
  }
  return out;
}

std::string dataset_label(const fs::path& dataset) {
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(dataset, ec);
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = abs.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return dataset.string();
}

reference_records load_reference_records(const std::vector<fs::path>& datasets) {
  reference_records out;
  for (const auto& d : datasets) {
    const std::string label = dataset_label(d);
    std::error_code ec;
    if (!fs::is_directory(d, ec)) {
      out.warnings.push_back("reference dataset " + label + ": not a directory (skipped)");
      continue;
    }
    const auto dirs = record_dirs(d);
    if (dirs.empty()) {
      out.warnings.push_back("reference dataset " + label + ": holds no records.jsonl (skipped)");
      continue;
    }
    for (const auto& r : dirs) {
      records::result_set one;
      try {
        one = records::load_result_set({r});
      } catch (const std::exception& e) {
        out.warnings.push_back("reference dataset " + label + ": " + e.what() + " (skipped)");
        continue;
      }
      const std::string rel = r.lexically_relative(d).string();
      for (auto& rec : one.records) {
        const json& axes = rec.point.value(records::key::axes, json::object());
        if (!axes.is_object() || !backend_is(axes.value(axis::backend, ""), device_class::gpu)) continue;
        const auto colon = rec.where.rfind(':');
        rec.where = label + "/" + (rel == "." ? "" : rel + "/") + "records.jsonl" +
                    (colon == std::string::npos ? "" : rec.where.substr(colon));
        out.set.records.push_back(std::move(rec));
        out.dataset.push_back(label);
      }
      out.set.dirs.push_back(r.string());
    }
  }
  return out;
}

}  // namespace poreplab::verdict
