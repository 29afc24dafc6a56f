#include "report/plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "backends/device_class.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "report/amax.hpp"
#include "report/pipeline.hpp"
#include "report/storage.hpp"
#include "report/verdict.hpp"
#include "util/text.hpp"
#include "records/schema.hpp"

namespace poreplab::verdict {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double kGiB = double(1ull << 30);

std::string gib(double b) { return format_number(b / kGiB, 3) + " GiB"; }
std::string tib(double b) { return format_number(b / (kGiB * 1024), 3) + " TiB"; }
std::string hours(double s) { return s < 7200 ? format_number(s / 60, 3) + " min" : format_number(s / 3600, 3) + " h"; }

figure modeled(double v, const std::string& detail) { return {v, {figure_status::modeled, detail}}; }

// The CPU whose records the plan reads: the one with a one-core node window, else any.
std::string results_cpu(const records::result_set& in) {
  std::string any;
  for (const auto& r : in.records) {
    const json& p = r.point;
    if (!records::is_ok(p, records::record_kind::label)) continue;
    if (!backend_is(p.value(key::axes, json::object()).value(axis::backend, ""), device_class::host_cpu)) continue;
    const std::string device = p.value(key::context, json::object()).value(ctx::device, "");
    if (p[key::axes].value(axis::window_nodes, std::uint64_t{0}) > 0) return device;
    if (any.empty()) any = device;
  }
  return any;
}

void cpu_items(machine_plan& mp, const storage_model::cpu_machine& m, const storage_model::hash_rate& h) {
  const auto& p = mp.pc1;
  auto add = [&](std::string item, std::string text, figure f) { mp.items.push_back({std::move(item), std::move(text), std::move(f)}); };
  if (p.feasible)
    add("PC1 design", p.design + ", batches of " + std::to_string(p.batch) + " sectors" +
                          (p.batch_limit.empty() ? "" : " (first larger batch that does not fit: " + p.batch_limit + ")"),
        modeled(p.batch, "of the batch sealer's sizes (1-32, 64, 128) the one that labels most and fits"));
  else
    add("PC1 design", p.design + ": no batch fits (" + p.batch_limit + "); the rows below are a batch of " +
                          std::to_string(p.batch) + " given room for it",
        modeled(0, "of the batch sealer's sizes (1-32, 64, 128), the one its cores allow that would label most"));
  add("hashing rate per core", format_number(h.labels_per_s, 3) + " labels/s with " + std::to_string(h.sectors) + " sectors",
      {h.labels_per_s, h.from});
  add("hashing cores", std::to_string(p.hashing_cores) + " of " + std::to_string(m.cores),
      modeled(p.hashing_cores, std::to_string(p.sectors_per_core) +
                                   " sectors per core: of the counts measured, the one that labels the batch fastest on "
                                   "the cores there are"));
  add("other cores", std::to_string(p.other_cores),
      modeled(p.other_cores, "a coordinator per CCX of " + std::to_string(m.ccx_cores) +
                                 " cores, reader, writer and orchestrator (supra_seal demos/rust/supra_seal.cfg); one "
                                 "core for all of them under 5 cores"));
  if (p.ram_bytes.value) add("RAM", gib(*p.ram_bytes.value) + " of " + gib(m.ram_bytes), p.ram_bytes);
  if (p.huge_pages_1g > 0)
    add("1 GiB huge pages", std::to_string(p.huge_pages_1g),
        modeled(p.huge_pages_1g, "node cache and read-ahead; Curio documentation/en/supraseal.md asks for at least 36 "
                                 "for its batch sealer (quoted), whose buffers are sized for 128 sectors and PC2"));
  if (p.disk_bytes.value) add("layer disk", tib(*p.disk_bytes.value) + " of " + tib(m.disk_bytes()), p.disk_bytes);
  if (p.reads_per_node.value) add("random reads per node", format_number(*p.reads_per_node.value, 3), p.reads_per_node);
  if (p.iops_needed.value)
    add("IOPS", format_number(*p.iops_needed.value, 3) + " needed of " + format_number(m.iops(), 3) +
                    (p.feasible ? "" : " (with room for the batch)"),
        p.iops_needed);
  add("PC1 labels/s", format_number(p.labels_per_s.value.value_or(0), 3), p.labels_per_s);
  add("PC1 per batch", p.feasible ? hours(*p.batch_seconds.value) : "—",
      {p.batch_seconds.value, {figure_status::modeled, "sectors x labels per sector / PC1 labels/s"}});
}

// PC2 of one batch: on the machine's GPUs (each kind measured by the results where they
// measured that architecture, else modeled), else on its CPU.
figure pc2_per_batch(const machine& m, const size_row& row, const records::result_set& in, double batch, std::string& where) {
  if (m.gpus.empty()) {
    const figure one = pc2_seconds_on_cpu(row, in, m.threads);
    where = "its CPU (" + std::to_string(m.threads) + " threads), taking turns with PC1";
    if (!one.value) return one;
    return {*one.value * batch, one.from};
  }
  double per_second = 0;
  provenance from{figure_status::measured, ""};
  for (const auto& g : m.gpus) {
    const figure one = pc2_seconds_on_gpu(row, in, g.arch, nullptr);
    if (!one.value || *one.value <= 0) return one;
    per_second += g.count / *one.value;
    from = from.detail.empty() ? one.from : provenance{one.from.status == figure_status::modeled ? figure_status::modeled : from.status,
                                                       from.detail + "; " + one.from.detail};
    where += (where.empty() ? "" : " + ") + std::to_string(g.count) + "x " + g.name;
  }
  where += ", overlapping PC1";
  return {batch / per_second, from};
}

void pipeline(machine_plan& mp, const machine& m, const size_row& row, const records::result_set& in) {
  const auto& p = mp.pc1;
  std::string where;
  const figure pc2 = pc2_per_batch(m, row, in, std::max(1.0, double(p.batch)), where);
  mp.items.push_back({"PC2 per batch", pc2.value ? hours(*pc2.value) + " on " + where : "—", pc2});
  mp.binding = p.feasible ? p.summary() : "capacity: " + p.batch_limit;
  mp.bottleneck = "PC1";
  if (!p.feasible) {
    mp.sectors_per_hour = modeled(0, p.sectors_per_hour.from.detail);
    return;
  }
  if (!pc2.value) {
    mp.sectors_per_hour = modeled(p.sectors_per_hour.value.value_or(0), "PC1 labels/s x 3600 / labels per sector");
    mp.pc1_alone = "PC1 alone; PC2 not sized: " + pc2.from.detail;
    return;
  }
  const double pc1_h = *p.batch_seconds.value / 3600, pc2_h = *pc2.value / 3600;
  const bool shared = m.gpus.empty();
  const double per_hour = p.batch / (shared ? pc1_h + pc2_h : std::max(pc1_h, pc2_h));
  if (pc2_h > pc1_h) {
    mp.bottleneck = "PC2";
    if (!shared) mp.binding = "PC2 on " + where;
  }
  mp.sectors_per_hour = modeled(per_hour, std::string(shared ? "PC1 and PC2 take turns" : "PC1 and PC2 overlap") +
                                              ": PC1 " + hours(*p.batch_seconds.value) + ", PC2 " + hours(*pc2.value) +
                                              " per batch of " + std::to_string(p.batch) + " (PC2: " + pc2.from.text() + ")");
}

void finish(machine_plan& mp, const machine& m) {
  const double sph = mp.sectors_per_hour.value.value_or(0);
  mp.items.push_back({"sectors per hour", format_number(sph, 4) + (mp.pc1_alone.empty() ? "" : " (" + mp.pc1_alone + ")"),
                      mp.sectors_per_hour});
  mp.items.push_back({"sectors per day", format_number(24 * sph, 4), modeled(24 * sph, "24 x sectors per hour")});
  mp.items.push_back({"binding constraint", mp.binding, modeled(sph, "the smallest bound at the batch (PC1 labels/s)")});
  if (mp.gpu_pc1)
    mp.items.push_back({"PC1 on its GPUs instead", mp.gpu_pc1->text(), mp.gpu_pc1->sectors_per_hour});
  if (m.pc1_record) {
    const auto& r = *m.pc1_record;
    const double published = r.sectors * 3600.0 / r.seconds;
    const double model = mp.pc1.sectors_per_hour.value.value_or(0);
    mp.items.push_back({"published PC1 record", format_number(published, 4) + " sectors/hour (" + std::to_string(r.sectors) +
                                                    " sectors in " + hours(r.seconds) + "); PC1 model / record = " +
                                                    format_number(model / published, 3),
                        {published, {figure_status::quoted, r.source}}});
  }
}

machine_plan plan_one(const machine& m, const storage_model::cpu_machine& cm, const storage_model::hash_rate& h,
                      const size_row& row, const records::result_set& in) {
  machine_plan mp;
  mp.machine = m.name;
  mp.file = m.file;
  const storage_model::sizing s{row.sector_size, row.layers};
  const auto reads = storage_model::counted_reads(s);
  mp.pc1 = storage_model::plan_cpu(cm, h, s, reads);
  for (const auto& g : m.gpus)
    if (const auto part = machine_gpu_part(in, g, row.sector_size)) {
      const auto gp = storage_model::plan_gpu(cm, *part, s, reads);
      if (!mp.gpu_pc1 || gp.labels_per_s.value.value_or(0) > mp.gpu_pc1->labels_per_s.value.value_or(0)) mp.gpu_pc1 = gp;
    }
  cpu_items(mp, cm, h);
  pipeline(mp, m, row, in);
  finish(mp, m);
  return mp;
}

}  // namespace

plan_report make_plan(const std::string& proof_name, const std::vector<fs::path>& dirs, const std::vector<machine>& machines,
                      rate_source rates) {
  const auto& proof = sdr::find_registered_proof(proof_name);
  plan_report r;
  r.proof = std::string(proof.name);
  r.sector_size = proof.sector_size;
  r.layers = proof.layers;
  size_row row;
  row.proof = r.proof;
  row.sector_size = proof.sector_size;
  row.layers = proof.layers;
  row.nodes = proof.nodes();
  records::result_set in;
  if (!dirs.empty()) in = records::load_result_set(dirs);
  r.dirs = in.dirs;
  const std::string cpu = results_cpu(in);
  const cpu_evidence e = cpu.empty() ? cpu_evidence{} : cpu_evidence_of(in, cpu, proof.sector_size);
  if (machines.empty()) {
    if (!e.hash) throw plan_error("no one-core label record of a CPU in " + names_text(r.dirs, kNamesShown, std::string::npos) + ": run `poreplab run` (the "
                                  "default config measures this machine) or name a machine with --machine FILE");
    machine here;
    here.name = "this machine (" + cpu + ")";
    here.cores = e.machine.cores;
    here.threads = e.machine.threads;
    here.ram_bytes = e.machine.ram_bytes;
    r.machines.push_back(plan_one(here, e.machine, *e.hash, row, in));
    if (e.machine.disks.empty())
      r.machines.back().items.push_back({"note", "no disk record in the results: layers on disk not sized (the default "
                                                 "config's disk point, or `poreplab bench disk`, measures it)", {}});
    return r;
  }
  for (const auto& m : machines) {
    const auto h = machine_hash_rate(m, e.hash, rates);
    if (!h) throw plan_error(m.file + ": no hashing rate: the file quotes none (pc1_hashing) and " +
                             (r.dirs.empty() ? std::string("no results were given") : join(r.dirs)) +
                             " hold no one-core label record of a CPU");
    r.machines.push_back(plan_one(m, model_machine(m), *h, row, in));
  }
  return r;
}

std::string plan_markdown(const plan_report& r) {
  std::ostringstream o;
  o << "# Sealing plan: " << format_size(r.sector_size) << " (" << r.proof << ", " << r.layers << " layers)\n\n"
    << "Results read: " << (r.dirs.empty() ? std::string("none") : join(r.dirs))
    << ". Every figure is measured, extrapolated, quoted or MODELED; the source column says from what.\n";
  for (const auto& m : r.machines) {
    o << "\n## " << m.machine << (m.file.empty() ? "" : " (`" + m.file + "`)") << "\n\n| item | value | source |\n|---|---|---|\n";
    for (const auto& it : m.items)
      o << "| " << it.item << " | " << it.text << " | "
        << (stated(it.value.from) ? status_tag(it.value.from.status) + ": " + it.value.from.detail : "—") << " |\n";
  }
  return o.str();
}

json plan_json(const plan_report& r) {
  json machines = json::array();
  for (const auto& m : r.machines) {
    json items = json::array();
    for (const auto& it : m.items)
      items.push_back({{"item", it.item},
                       {"text", it.text},
                       {"value", it.value.value ? json(*it.value.value) : json(nullptr)},
                       {"source", stated(it.value.from) ? json(status_name(it.value.from.status)) : json(nullptr)},
                       {"detail", it.value.from.detail}});
    machines.push_back({{"machine", m.machine},
                        {"file", m.file},
                        {"batch", m.pc1.batch},
                        {"design", m.pc1.design},
                        {"sectors_per_hour", m.sectors_per_hour.value ? json(*m.sectors_per_hour.value) : json(nullptr)},
                        {"bottleneck", m.bottleneck},
                        {"binding", m.binding},
                        {"items", items}});
  }
  return {{"schema", kPlanSchema}, {"proof", r.proof}, {axis::sector_size, r.sector_size}, {axis::layers, r.layers},
          {"dirs", r.dirs}, {"machines", machines}};
}

}  // namespace poreplab::verdict
