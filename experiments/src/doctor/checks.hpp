#pragma once
// The checks of `poreplab doctor`: small functions of the facts (facts.hpp) and the plan
// (plan.hpp), each a finding: ok / warn / fail (skip: nothing to check here, and why),
// what it found, what that costs here and the command that fixes it.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/facts.hpp"
#include "doctor/plan.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::doctor {

enum class level { ok, warn, fail, skip };
inline constexpr name_table kLevels{"doctor level", std::array{named<level>{level::ok, "ok"}, named<level>{level::warn, "warn"},
                                                               named<level>{level::fail, "fail"}, named<level>{level::skip, "skip"}}};
inline std::string_view level_name(level l) { return kLevels.name(l); }

struct finding {
  std::string id;       // "cpu.sha": section.check
  std::string title;    // "SHA extensions"
  level status = level::ok;
  std::string found;    // what is there
  std::string cost;     // what it costs here ("" when nothing)
  std::string fix;      // the command or step that fixes it ("" when nothing to fix)
  nlohmann::json values = nlohmann::json::object();  // the figures the check compared
};

// CPU
finding check_sha(const system_facts& f, const seal_plan& p);
finding check_vector_units(const system_facts& f, const seal_plan& p);
finding check_clock(const system_facts& f, const seal_plan& p);
finding check_smt(const system_facts& f, const seal_plan& p);
finding check_topology(const system_facts& f, const seal_plan& p);
finding check_cores(const system_facts& f, const seal_plan& p);
// Memory
finding check_ram(const system_facts& f, const seal_plan& p);
finding check_thp(const system_facts& f, const seal_plan& p);
finding check_hugetlb(const system_facts& f, const seal_plan& p);
finding check_memlock(const system_facts& f, const seal_plan& p);
finding check_swap(const system_facts& f, const seal_plan& p);
// Storage
finding check_parent_cache(const system_facts& f, const seal_plan& p);
finding check_layer_dir(const system_facts& f, const seal_plan& p);
finding check_o_direct(const system_facts& f, const seal_plan& p);
finding check_disk_speed(const system_facts& f, const seal_plan& p);
// GPU: the driver, then one finding per device
finding check_gpu_driver(const system_facts& f, const seal_plan& p);
std::vector<finding> check_gpu_devices(const system_facts& f, const seal_plan& p);

// Every check, in the order above.
std::vector<finding> run_checks(const system_facts& f, const seal_plan& p);

// 2 with a fail, else 1 with a warn, else 0 (a skip counts as ok).
int exit_status(const std::vector<finding>& findings);

// The sections in order, as ids begin: "cpu", "memory", "storage", "gpu".
std::string_view section_of(const finding& x);

}  // namespace poreplab::doctor
