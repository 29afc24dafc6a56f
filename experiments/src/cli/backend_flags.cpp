#include "cli/backend_flags.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "cli/cli.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

bool read_by(const param_spec& k, const std::vector<std::string>& backends) {
  if (backends.empty()) return true;
  return std::any_of(k.backends.begin(), k.backends.end(), [&](const std::string& b) {
    return std::find(backends.begin(), backends.end(), b) != backends.end();
  });
}

// Digits only, no sign or space, and within uint64.
bool parse_count(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  std::uint64_t v = 0;
  for (char c : s) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

std::function<void()> add_backend_flags(CLI::App* cmd, std::shared_ptr<backend_settings> into,
                                        const std::vector<std::string>& backends, knob_work work) {
  struct given {
    const param_spec* knob;
    std::shared_ptr<std::string> text;
    CLI::Option* option;
  };
  auto flags = std::make_shared<std::vector<given>>();
  for (const auto& k : backend_knobs()) {
    if (!read_by(k, backends) || (k.works & work) == 0) continue;
    auto text = std::make_shared<std::string>(k.fallback.is_string() ? k.fallback.get<std::string>() : k.fallback.dump());
    auto* o = cmd->add_option(flag_of(k.name), *text, k.help + " (" + join(k.backends) + ")")->capture_default_str();
    flags->push_back({&k, text, o});
  }
  return [flags, into] {
    for (const auto& g : *flags) {
      if (g.option->count() == 0) continue;
      const std::string flag = flag_of(g.knob->name);
      try {
        if (g.knob->type == param_type::count) {
          std::uint64_t v = 0;
          if (!parse_count(*g.text, v))
            throw usage_error(flag + ": '" + *g.text + "' is not an integer from " + std::to_string(g.knob->min) +
                              " to " + std::to_string(g.knob->max));
          into->set(g.knob->name, v);
        } else {
          into->set(g.knob->name, *g.text);
        }
      } catch (const std::invalid_argument& e) {
        throw usage_error(flag + ": " + e.what());
      }
    }
  };
}

}  // namespace poreplab::cli
