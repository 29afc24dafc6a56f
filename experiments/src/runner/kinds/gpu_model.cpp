// The `gpu-model` kind: the SASS-based GPU latency model (gpu_model.hpp) as experiment
// points, so that a config can put modeled figures beside measured ones. Its records
// carry "modeled": true; the runner never marks them verified.
#include <algorithm>
#include <cmath>

#include "model/gpu_model.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace ctx = records::ctx;

using nlohmann::json;

namespace {

const gpu_model::latency_table& table() {
  static const gpu_model::latency_table t = gpu_model::load_latency_table({});
  return t;
}

std::vector<std::string> arch_names() {
  std::vector<std::string> v;
  for (const auto& [a, p] : table().archs) v.push_back(a);
  return v;
}

std::vector<std::string> built_kernels(const std::string& arch) { return gpu_model::embedded_kernel_labels(arch); }

std::string unavailable(const json& axes) {
  if (gpu_model::embedded_sass().empty()) return gpu_model::embedded_note();
  const std::string arch = axes["arch"], kernel = axes["kernel"];
  const auto built = built_kernels(arch);
  if (built.empty()) return "no SASS for " + arch + " in this build (not in CMAKE_CUDA_ARCHITECTURES)";
  if (std::find(built.begin(), built.end(), kernel) == built.end())
    return "kernel " + kernel + " is not in this build's SASS for " + arch;
  return {};
}

measurement run(const json& axes, std::uint32_t, std::uint32_t) {
  const std::string arch = axes["arch"], kernel = axes["kernel"];
  const auto& a = gpu_model::arch_of(table(), arch);
  for (const auto& f : gpu_model::embedded_kernels({arch}, kernel)) {
    const auto k = gpu_model::analyze(f, a, axes["load_level"].get<std::string>());
    const auto p = gpu_model::predict(k, a, static_cast<unsigned>(axes["threads_per_block"].get<std::uint64_t>()));
    const double parallel = axes["parallel"].get<double>();
    measurement m;
    m.modeled = true;
    m.metric = "ns_per_iteration";
    // Deterministic: one sample whatever the config asks.
    m.samples = {gpu_model::predicted_ns_per_iteration(p, parallel)};
    m.verified_against = "nothing: a modeled figure, not a measurement";
    gpu_model::model_row r{k, p, a.device};
    m.context = gpu_model::to_json(r);
    m.context.erase("instructions_by_opcode");
    m.context[ctx::engine] = "model " + arch;
    m.context["latency_table"] = table().file;
    m.context["parallel"] = parallel;
    return m;
  }
  throw point_unavailable("kernel " + kernel + " is not in this build's SASS for " + arch);
}

json rates(const json&, const json& ctx, double median) {
  json r = {{"ns_per_iteration", median}};
  for (const char* k : {"single_thread_ns", "critical_path_ns", "rate_per_s", "instructions_per_iteration"})
    if (ctx.contains(k) && ctx[k].is_number()) r[k] = ctx[k];
  return r;
}

}  // namespace

kind_spec gpu_model_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::gpu_model);
  k.help = "MODELED (not measured): GPU latency and rates of a CUDA kernel from its SASS (poreplab model gpu)";
  auto arch = text_param("arch", "sm_90", arch_names, "GPU architecture of the latency table: sm_80, sm_89, sm_90");
  arch.all = [](const json&) { return arch_names(); };
  auto kernel = text_param("kernel", gpu_model::label_kernel_label(sdr::kFilecoinScheme), gpu_model::kernel_labels,
                          "kernel as `poreplab model gpu` names it; all = every kernel with SASS");
  kernel.all = [](const json& axes) {
    auto v = axes.contains("arch") && axes["arch"].is_string() ? built_kernels(axes["arch"]) : std::vector<std::string>{};
    return v.empty() ? gpu_model::kernel_labels() : v;
  };
  auto level = text_param(
      "load_level", "l2", [] { return std::vector<std::string>{"l1", "l2", "dram"}; },
      "memory level global loads see");
  k.axes = {arch, kernel, level,
            count_param("threads_per_block", 32, 32, 1024, "threads per block of the modeled launch"),
            count_param("parallel", 1, 1, 1u << 30, "sectors (label) or chains (hash) running at once")};
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
