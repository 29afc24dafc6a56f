#pragma once
// The labeling backends by name and the knobs they read, each one entry in a table: the
// runner's axes, the command line's flags, `vector verify --backend all` and the tests
// all come from these tables, so a new backend or knob is one edit here.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/placed_backend.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/sdr/backend.hpp"
#include "backends/device_class.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "util/param_spec.hpp"

namespace poreplab {

// The work a knob acts on, as bits: every knob acts on labeling; a few on PC2's hasher too.
enum knob_work : unsigned { work_labeling = 1, work_pc2 = 2 };

// The settings read by one or more backends (param_spec::backends, ::works: knob_work bits),
// each the runner axis and the flag of its name.
const std::vector<param_spec>& backend_knobs();
const param_spec* find_knob(std::string_view name);  // nullptr when none
// The knobs `backend` reads.
std::vector<const param_spec*> knobs_of(std::string_view backend);

// Knob values by name, typed; a knob nobody set reads its fallback.
class backend_settings {
 public:
  // Checks the value against the knob (type, range, choices); throws std::invalid_argument
  // with the problem (the caller names the flag or JSON pointer it came from).
  backend_settings& set(std::string_view name, const nlohmann::json& value);
  std::string text(std::string_view name) const;
  std::uint64_t count(std::string_view name) const;
  bool is_set(std::string_view name) const { return values_.contains(std::string(name)); }
  const nlohmann::json& values() const { return values_; }  // the knobs set, by name

 private:
  const nlohmann::json& value(std::string_view name, param_type t) const;
  nlohmann::json values_ = nlohmann::json::object();
};

struct backend_entry {
  std::string name;
  std::string description;
  device_class device;
  // Throws unavailable_error (poreplab/unavailable.hpp) with the reason when the backend
  // cannot run here (built without CUDA, no device), std::invalid_argument for options it
  // refuses.
  std::function<std::unique_ptr<sdr::backend>(const backend_settings&)> make;
  // The CPU engine whose dependent chains are this backend's hash-only floor for the
  // scheme, or nullptr (GPU backends: their floor is not a CPU engine's).
  std::function<const cpu::engine*(sdr::label_scheme, std::size_t sectors, const backend_settings&)> floor_engine;
  bool compiled;  // false: named by every build, runnable by none of this one (cuda without CUDA)

  // Whether the backend reads the knob: a trait of its registry entry (knobs_of), not of its name.
  bool reads(std::string_view knob) const;
};
// Every backend this build knows, available here or not (cuda in a build without CUDA).
const std::vector<backend_entry>& backends();
// Throws std::invalid_argument for an unknown name, listing the valid ones.
const backend_entry& find_backend(std::string_view name);
std::vector<std::string> backend_names();
// The backend of class `c` (backend_of), as options hold it.
inline const backend_entry* backend_entry_of(device_class c) { return &find_backend(backend_of(c)); }
std::unique_ptr<sdr::backend> make_backend(std::string_view name, const backend_settings& opt = {});
// The cpu backend's options from its knobs.
cpu::labeler_options cpu_labeler_options(const backend_settings& o);
// Its thread placement (topology.hpp): the placement knob.
cpu::thread_placement cpu_thread_placement(const backend_settings& o);

}  // namespace poreplab
