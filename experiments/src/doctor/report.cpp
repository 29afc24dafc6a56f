#include "doctor/report.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "records/payload_keys.hpp"
#include "util/text.hpp"

namespace poreplab::doctor {

namespace {

std::string plan_text(const seal_plan& p) {
  return std::to_string(p.sectors) + " x " + format_size(p.sector_bytes) + (p.sectors == 1 ? " sector" : " sectors") +
         " (" + (p.proof.empty() ? "custom graph" : p.proof) + ", " + std::to_string(p.layers) + " layers)";
}

// The sections' headings, by the id prefix.
std::string heading(std::string_view section) {
  static const std::map<std::string_view, std::string> names = {
      {"cpu", "CPU"}, {"memory", "Memory"}, {"storage", "Storage"}, {"gpu", "GPU"}};
  const auto it = names.find(section);
  return it != names.end() ? it->second : std::string(section);
}

// `text` after `first` (a prefix `indent` wide, its own spacing included), wrapped at
// `width` with `indent` spaces.
void wrapped(std::ostream& out, const std::string& first, const std::string& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string word, line = first;
  bool empty = true;
  while (words >> word) {
    if (!empty && line.size() + 1 + word.size() > width) {
      out << line << "\n";
      line = std::string(indent, ' ');
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  out << line << "\n";
}

}  // namespace

nlohmann::json report_json(const seal_plan& p, const request& r, const system_facts& f,
                           const std::vector<finding>& findings) {
  nlohmann::json checks = nlohmann::json::array();
  std::map<level, int> counts;
  for (const auto& x : findings) {
    ++counts[x.status];
    checks.push_back({{"id", x.id},
                      {"section", section_of(x)},
                      {"title", x.title},
                      {"status", level_name(x.status)},
                      {"found", x.found},
                      {"cost", x.cost},
                      {"fix", x.fix},
                      {"values", x.values}});
  }
  nlohmann::json count_json = nlohmann::json::object();
  for (const auto& [l, name] : kLevels.entries) count_json[std::string(name)] = counts[l];
  const int status = exit_status(findings);
  return {{"plan",
           {{records::axis::sector_size, format_size(p.sector_bytes)},
            {"sector_bytes", p.sector_bytes},
            {"sectors", p.sectors},
            {"layers", p.layers},
            {"nodes", p.nodes},
            {"proof", p.proof.empty() ? nlohmann::json() : nlohmann::json(p.proof)},
            {"layer_bytes", p.memory.layer_bytes},
            {"parent_table_bytes", p.memory.parent_table_bytes},
            {"label_bytes", p.label_bytes},
            {"kept_bytes", p.kept_bytes},
            {"resident_bytes", p.resident_bytes},
            {"disk_bytes", p.disk_bytes}}},
          {"layer_dir", r.layer_dir ? nlohmann::json(r.layer_dir->string()) : nlohmann::json()},
          {"parent_cache_dir", f.parent_cache.dir.string()},
          {"checks", checks},
          {"counts", count_json},
          {"status", level_name(status == 2 ? level::fail : status == 1 ? level::warn : level::ok)},
          {"exit_status", status}};
}

void print_report(std::ostream& out, const seal_plan& p, const request& r, const std::vector<finding>& findings,
                  std::size_t width) {
  out << "poreplab doctor: " << plan_text(p)
      << (r.layer_dir ? ", layers in " + r.layer_dir->string() : std::string(", no --layer-dir")) << "\n";
  std::size_t title_width = 0;
  for (const auto& x : findings) title_width = std::max(title_width, x.title.size());
  const std::size_t indent = 2 + 6 + title_width + 2;
  std::string_view section;
  std::map<level, int> counts;
  for (const auto& x : findings) {
    ++counts[x.status];
    if (section_of(x) != section) {
      section = section_of(x);
      out << heading(section) << "\n";
    }
    std::string first = "  " + std::string(level_name(x.status));
    first.resize(8, ' ');
    first += x.title;
    first.resize(indent, ' ');
    wrapped(out, first, x.found, indent, width);
    if (!x.cost.empty()) wrapped(out, std::string(indent, ' ') + "cost: ", x.cost, indent + 6, width);
    if (!x.fix.empty()) wrapped(out, std::string(indent, ' ') + "fix:  ", x.fix, indent + 6, width);
  }
  std::vector<std::string> parts;
  for (const auto& [l, name] : kLevels.entries) parts.push_back(std::to_string(counts[l]) + " " + std::string(name));
  out << "summary: " << join(parts, ", ") << "; exit status " << exit_status(findings) << "\n";
}

}  // namespace poreplab::doctor
