#pragma once
// What a labeling backend runs on. Readers of records (reports, the verdict, the GPU
// model, plots) classify a point by its backend's class, never by the backend's name, so
// a new backend is one entry of the table in backends.cpp.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/name_table.hpp"

namespace poreplab {

enum class device_class {
  oracle,        // the portable reference: what every other backend is checked against
  host_cpu,      // the host's CPU cores
  gpu_emulated,  // GPU kernels run on the host CPU: not a GPU measurement
  gpu,           // a GPU
};
inline constexpr name_table kDeviceClasses{
    "device class", std::array{named<device_class>{device_class::oracle, "oracle"}, named<device_class>{device_class::host_cpu, "host-cpu"},
                               named<device_class>{device_class::gpu_emulated, "gpu-emulated"}, named<device_class>{device_class::gpu, "gpu"}}};

// The class of the backend of this name; nullopt for a name this build does not know (a
// record written by another build is read, not refused).
std::optional<device_class> device_class_of(std::string_view backend);
bool backend_is(std::string_view backend, device_class c);
// The backend of class `c` (the first in the table): what a report means by "the GPU
// backend" or "the oracle".
const std::string& backend_of(device_class c);
// The backends of these classes, in table order: a kind's axis choices.
std::vector<std::string> backends_of(std::initializer_list<device_class> classes);

}  // namespace poreplab
