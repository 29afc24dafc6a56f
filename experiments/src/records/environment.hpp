#pragma once
// What machine and build a measurement came from: shown by `poreplab info` and
// stored in every experiment record.
#include <nlohmann/json.hpp>

namespace poreplab {

nlohmann::json cpu_json();
nlohmann::json cuda_json();   // {"compiled": bool, "available": bool, "reason"?, "devices": [...]}
nlohmann::json build_json();  // version, compiler, flags, git revision, backends
nlohmann::json environment_json();  // all of the above plus host, date

}  // namespace poreplab
