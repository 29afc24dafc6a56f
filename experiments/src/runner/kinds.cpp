#include "records/payload_keys.hpp"
#include "runner/kinds.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "backends/backends.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records/schema.hpp"
#include "util/text.hpp"

namespace poreplab::runner {

namespace axis = records::axis;

using nlohmann::json;

// Each kinds/<stem>.cpp defines `kind_spec <stem>_kind()`; the build lists those files in
// runner_kinds.inc (experiments/CMakeLists.txt), so a new kind is its file and its name in
// records::kRecordKinds, whose order the table takes.
#define POREPLAB_RUNNER_KIND(stem) kind_spec stem##_kind();
#include "runner_kinds.inc"
#undef POREPLAB_RUNNER_KIND

const std::vector<kind_spec>& kinds() {
  static const std::vector<kind_spec> table = [] {
    std::vector<kind_spec> all{
#define POREPLAB_RUNNER_KIND(stem) stem##_kind(),
#include "runner_kinds.inc"
#undef POREPLAB_RUNNER_KIND
    };
    const auto names = records::kRecordKinds.names();
    const auto place = [&](const kind_spec& k) {
      return std::find(names.begin(), names.end(), k.name) - names.begin();  // a stray name sorts last
    };
    std::stable_sort(all.begin(), all.end(), [&](const kind_spec& a, const kind_spec& b) { return place(a) < place(b); });
    return all;
  }();
  return table;
}

const kind_spec* find_kind(std::string_view name) {
  for (const auto& k : kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> kind_names() {
  std::vector<std::string> out;
  for (const auto& k : kinds()) out.push_back(k.name);
  return out;
}

bool is_size_axis(const std::string& axis) {
  for (const auto& k : kinds())
    for (const auto& a : k.axes)
      if (a.name == axis) return a.type == param_type::size;
  return false;
}

std::string gib_text(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
  return buf;
}

std::string memory_shortfall(double need) {
  // The shared check (common/memory_check.hpp), as bench label, seal and vector verify use it.
  const std::uint64_t bytes = need >= 1.8e19 ? ~std::uint64_t{0} : need <= 0 ? 0 : static_cast<std::uint64_t>(need);
  const std::string why = memory_shortfall_text(bytes);
  return why.empty() ? why : "does not fit in memory: " + why;
}

std::string text_or(const json& v, const std::string& fallback) {
  return v.is_string() ? v.get<std::string>() : fallback;
}

std::vector<std::string> engine_names(hash_family algo) {
  std::vector<std::string> out;
  for (const auto& e : cpu::compiled_engines(algo)) out.emplace_back(e.name);
  return out;
}

std::vector<std::string> all_engine_names() {
  std::vector<std::string> out;
  for (auto algo : hash_families())
    for (auto& n : engine_names(algo))
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

param_spec algo_axis() {
  return text_param(
      "algo", "sha256",
      [] {
        std::vector<std::string> v;
        for (auto a : hash_families()) v.emplace_back(hash_family_name(a));
        return v;
      },
      "hash function: sha256, blake2s, blake2b");
}

hash_family algo_of(const json& axes) { return parse_hash_family(axes["algo"].get<std::string>()); }

param_spec variant_axis() {
  return text_param(axis::variant, "sdr", [] { return sdr::variant_names(); },
                   "PoRep structure: sdr (Filecoin) or zigzag (r2, 5+8 parents, alternating, in place)");
}

param_spec label_hash_axis() {
  return text_param("hash", "sha256", [] { return sdr::label_hash_names(); },
                   "key-derivation hash; anything but sdr + sha256 is a what-if variant");
}

sdr::label_scheme scheme_of(const json& axes) {
  return {sdr::parse_variant(text_or(axes[axis::variant], "sdr")), sdr::parse_label_hash(text_or(axes["hash"], "sha256"))};
}

param_spec label_engine_axis(std::string help) {
  auto engine = text_param(
      axis::engine, "auto",
      [] {
        auto v = all_engine_names();
        v.insert(v.begin(), "auto");
        return v;
      },
      std::move(help));
  engine.all = [](const json& a) {
    const std::string h = a.contains("hash") && a["hash"].is_string() ? a["hash"].get<std::string>() : "sha256";
    return engine_names(sdr::parse_label_hash(h));
  };
  return engine;
}

namespace {

// The axis of a backend knob; it applies where the point's backend reads the knob.
param_spec knob_axis(const param_spec& k) {
  const std::string help = k.help + " (" + join(k.backends) + ")";
  param_spec a = k.name == axis::engine ? label_engine_axis(help) : k;
  a.help = help;
  a.applies = [backends = k.backends](const json& axes) {
    return axes.contains(axis::backend) && axes[axis::backend].is_string() &&
           std::find(backends.begin(), backends.end(), axes[axis::backend].get<std::string>()) != backends.end();
  };
  return a;
}

const param_spec& knob(std::string_view name) { return *find_knob(name); }

}  // namespace

std::vector<param_spec> labeling_axes(bool with_sectors, bool with_scheme) {
  std::vector<param_spec> axes;
  // Every backend name, available here or not (CUDA), so that one config serves every
  // machine; the ones missing here are recorded as skipped.
  axes.push_back(text_param(axis::backend, backend_of(device_class::host_cpu), [] { return backend_names(); }, "labeling backend"));
  if (with_scheme) {
    axes.push_back(variant_axis());
    axes.push_back(label_hash_axis());
  }
  // The knobs every record has carried, in the order points have always been expanded;
  // the others follow as optional axes, in records only where a config names them.
  const char* recorded_before_size[] = {axis::engine, "layout", "threads_per_block", "kernel"};
  for (const char* n : recorded_before_size) axes.push_back(knob_axis(knob(n)));
  axes.push_back(size_param(axis::sector_size, 2048, 64, true, "sector size, a power of two: 2KiB, 8MiB, 32GiB..."));
  if (with_sectors) axes.push_back(count_param(axis::sectors, 1, 1, 1u << 20, "sectors labeled together (one graph)"));
  axes.push_back(count_param(axis::layers, 2, 1, 64, "layers (Filecoin SDR: 2 or 11; ZigZag: 10)"));
  axes.push_back(knob_axis(knob(axis::threads)));
  for (const auto& k : backend_knobs()) {
    if (std::any_of(axes.begin(), axes.end(), [&](const param_spec& a) { return a.name == k.name; })) continue;
    param_spec a = knob_axis(k);
    a.optional = true;
    axes.push_back(std::move(a));
  }
  return axes;
}

backend_settings knobs_of_point(const json& axes) {
  backend_settings o;
  for (const auto& k : backend_knobs())
    if (axes.contains(k.name) && !axes[k.name].is_null()) o.set(k.name, axes[k.name]);
  return o;
}

}  // namespace poreplab::runner
