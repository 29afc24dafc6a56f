#include "gpu_model.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "gpu_latency_json.hpp"
#include "gpu_model_sass.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records.hpp"
#include "text.hpp"

namespace poreplab::gpu_model {

using nlohmann::json;

namespace {

constexpr int kUniformBase = 256;    // UR0..UR63
constexpr int kPredicateBase = 512;  // P0..P7
constexpr int kUniformPredicateBase = 520;
constexpr std::size_t kMaxTrace = 2'000'000;  // instructions in one traced iteration
constexpr std::uint32_t kSha256K0 = 0x428a2f98;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::vector<std::string> split_modifiers(const std::string& opcode) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = opcode.find('.', pos);
    parts.push_back(opcode.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return parts;
}

bool has_modifier(const sass_instruction& in, std::string_view m) {
  const auto parts = split_modifiers(in.opcode);
  return std::find(parts.begin() + 1, parts.end(), m) != parts.end();
}

// Operands split at top-level commas (brackets hold commas in no SASS form seen, but
// descriptors and constant banks hold brackets).
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.emplace_back(trim(cur));
  return out;
}

bool is_load(const std::string& base) {
  return base == "LDG" || base == "LD" || base == "LDS" || base == "LDL" || base == "LDC" || base == "ULDC" ||
         base == "LDSM" || base == "ATOMG" || base == "ATOM" || base == "ATOMS";
}

bool is_store(const std::string& base) {
  return base == "STG" || base == "ST" || base == "STS" || base == "STL" || base == "RED" || base == "REDG";
}

// Opcodes that write no register or predicate.
bool has_no_dest(const std::string& base) {
  static const std::set<std::string> none = {
      "STG",     "ST",      "STS",       "STL",   "RED",   "REDG",  "BRA",   "BRX",  "JMP",   "JMX",
      "EXIT",    "RET",     "CALL",      "BAR",   "BSSY",  "BSYNC", "WARPSYNC", "NOP", "MEMBAR", "ERRBAR",
      "CCTL",    "DEPBAR",  "YIELD",     "KILL",  "BPT",   "NANOSLEEP", "BREAK", "BMOV", "FENCE", "ARRIVES"};
  return none.count(base) > 0;
}

// Compare-and-set opcodes: two predicate destinations, then the sources.
bool has_two_predicate_dests(const std::string& base) {
  static const std::set<std::string> two = {"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP",
                                            "UISETP", "PLOP3", "UPLOP3"};
  return two.count(base) > 0;
}

bool is_predicate_name(std::string_view s) {
  return s == "PT" || s == "UPT" || (s.size() == 2 && s[0] == 'P' && std::isdigit(static_cast<unsigned char>(s[1]))) ||
         (s.size() == 3 && s[0] == 'U' && s[1] == 'P' && std::isdigit(static_cast<unsigned char>(s[2])));
}

// Registers named in one operand, `wide` registers for a 64-bit register pair etc.
void operand_registers(std::string_view op, int default_width, std::vector<int>& out) {
  std::size_t i = 0;
  while (i < op.size()) {
    const char c = op[i];
    if (!(std::isupper(static_cast<unsigned char>(c)))) {
      // Skip lowercase words (c[...], desc) and numbers as whole tokens.
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        while (i < op.size() && (std::isalnum(static_cast<unsigned char>(op[i])) || op[i] == '_')) ++i;
      } else {
        ++i;
      }
      continue;
    }
    std::size_t j = i;
    while (j < op.size() && (std::isalnum(static_cast<unsigned char>(op[j])) || op[j] == '_')) ++j;
    const std::string_view tok = op.substr(i, j - i);
    const int key = register_key(tok);
    int width = default_width;
    if (key >= 0 && key < kPredicateBase) {
      // Register modifiers: .64 (pair), .reuse, .H1, .B2...
      std::size_t k = j;
      while (k < op.size() && op[k] == '.') {
        std::size_t e = k + 1;
        while (e < op.size() && (std::isalnum(static_cast<unsigned char>(op[e])) || op[e] == '_')) ++e;
        if (op.substr(k + 1, e - k - 1) == "64") width = std::max(width, 2);
        k = e;
      }
      j = k;
    } else {
      width = 1;
    }
    if (key >= 0)
      for (int w = 0; w < width; ++w) out.push_back(key + w);
    i = j;
  }
}

int width_of(const sass_instruction& in) {
  if (has_modifier(in, "128")) return 4;
  if (has_modifier(in, "64")) return 2;
  return 1;
}

double access_bytes(const sass_instruction& in) {
  if (has_modifier(in, "128")) return 16;
  if (has_modifier(in, "64")) return 8;
  if (has_modifier(in, "U8") || has_modifier(in, "S8")) return 1;
  if (has_modifier(in, "U16") || has_modifier(in, "S16")) return 2;
  return 4;
}

void fill_registers(sass_instruction& in) {
  const std::string& b = in.base;
  const std::size_t n = in.operands.size();
  std::size_t first_src = 0;
  if (!has_no_dest(b) && n > 0) {
    first_src = 1;
    if (has_two_predicate_dests(b) && n > 1) {
      first_src = 2;
    } else {
      // Carry-out predicates after the first destination: IADD3 R4, P0, P1, ...
      while (first_src < n && first_src < 3 && is_predicate_name(in.operands[first_src])) ++first_src;
    }
    int dest_width = 1;
    if (is_load(b) || has_modifier(in, "WIDE") || (b == "CS2R" && !has_modifier(in, "32")) ||
        (!is_store(b) && has_modifier(in, "64") && b != "SHF" && b != "USHF"))
      dest_width = is_load(b) ? width_of(in) : 2;
    if (b[0] == 'D' && (b == "DADD" || b == "DFMA" || b == "DMUL" || b == "DMNMX")) dest_width = 2;
    for (std::size_t i = 0; i < first_src; ++i) operand_registers(in.operands[i], i == 0 ? dest_width : 1, in.dests);
  }
  for (std::size_t i = first_src; i < n; ++i) {
    int w = 1;
    const std::string& op = in.operands[i];
    if (has_modifier(in, "WIDE") && i == 3) w = 2;  // the addend of IMAD.WIDE is a pair
    if (is_store(b) && i == n - 1 && op.find('[') == std::string::npos) w = width_of(in);
    if (b[0] == 'D' && (b == "DADD" || b == "DFMA" || b == "DMUL" || b == "DSETP")) w = 2;
    if (op.starts_with("desc[")) {
      // desc[URx] is a 64-bit descriptor pair; the address follows in the next brackets.
      const std::size_t close = op.find(']');
      operand_registers(std::string_view(op).substr(5, close - 5), 2, in.srcs);
      operand_registers(std::string_view(op).substr(close + 1), 1, in.srcs);
      continue;
    }
    operand_registers(op, w, in.srcs);
  }
  if (!in.guard.empty()) {
    const std::string g = in.guard[0] == '!' ? in.guard.substr(1) : in.guard;
    if (const int k = register_key(g); k >= 0) in.srcs.push_back(k);
  }
  // Constants and duplicates out.
  auto clean = [](std::vector<int>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  clean(in.dests);
  clean(in.srcs);
}

std::optional<std::uint64_t> parse_number(std::string_view s) {
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  if (s.starts_with("0x")) {
    if (!is_hex(s.substr(2))) return std::nullopt;
    v = std::strtoull(std::string(s.substr(2)).c_str(), nullptr, 16);
  } else {
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = std::strtoull(std::string(s).c_str(), nullptr, 10);
  }
  return neg ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(v)) : v;
}

std::string hex_address(std::uint32_t a) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", a);
  return b;
}

}  // namespace

// ---- registers and instructions ----

int register_key(std::string_view s) {
  auto number = [](std::string_view d, int max) -> int {
    if (d.empty() || d.size() > 3) return -1;
    for (char c : d)
      if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    const int n = std::atoi(std::string(d).c_str());
    return n <= max ? n : -1;
  };
  if (s == "RZ" || s == "URZ" || s == "PT" || s == "UPT") return -1;
  if (s.starts_with("UR")) {
    const int n = number(s.substr(2), 63);
    return n < 0 ? -1 : kUniformBase + n;
  }
  if (s.starts_with("UP")) {
    const int n = number(s.substr(2), 7);
    return n < 0 ? -1 : kUniformPredicateBase + n;
  }
  if (s.starts_with("R")) return number(s.substr(1), 255);
  if (s.starts_with("P")) {
    const int n = number(s.substr(1), 7);
    return n < 0 ? -1 : kPredicateBase + n;
  }
  return -1;
}

std::string register_name(int key) {
  if (key >= kUniformPredicateBase) return "UP" + std::to_string(key - kUniformPredicateBase);
  if (key >= kPredicateBase) return "P" + std::to_string(key - kPredicateBase);
  if (key >= kUniformBase) return "UR" + std::to_string(key - kUniformBase);
  return "R" + std::to_string(key);
}

sass_instruction parse_instruction(std::string_view line, std::uint32_t address) {
  sass_instruction in;
  in.address = address;
  std::string_view s = trim(line);
  if (!s.empty() && s.back() == ';') s = trim(s.substr(0, s.size() - 1));
  in.text = std::string(s);
  if (!s.empty() && s[0] == '@') {
    const std::size_t sp = s.find(' ');
    if (sp == std::string_view::npos) throw model_error("SASS: a guard without an instruction: " + in.text);
    in.guard = std::string(s.substr(1, sp - 1));
    s = trim(s.substr(sp));
  }
  const std::size_t sp = s.find(' ');
  in.opcode = std::string(s.substr(0, sp));
  if (in.opcode.empty() || !std::isupper(static_cast<unsigned char>(in.opcode[0])))
    throw model_error("SASS: cannot read the instruction \"" + in.text + "\"");
  in.base = split_modifiers(in.opcode).front();
  if (sp != std::string_view::npos) in.operands = split_operands(s.substr(sp + 1));
  // RET.REL.NODEC R4 0x0: no comma before the offset; keep the register only.
  if (in.base == "RET" && !in.operands.empty()) in.operands.front() = in.operands.front().substr(0, in.operands.front().find(' '));
  if ((in.base == "BRA" || in.base == "CALL" || in.base == "JMP") && !in.operands.empty()) {
    const std::string& last = in.operands.back();
    if (auto v = parse_number(last); v && last.starts_with("0x")) in.target = static_cast<std::uint32_t>(*v);
  }
  fill_registers(in);
  return in;
}

std::vector<sass_function> parse_sass(std::string_view text, const std::string& arch) {
  return parse_sass(text, arch, std::string());
}

std::vector<sass_function> parse_sass(std::string_view text, const std::string& arch, const std::string& label) {
  std::vector<sass_function> out;
  bool skipping = false;
  std::string cur_arch = arch;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (line.starts_with("code for sm_") || line.starts_with("arch = sm_")) {
      const std::size_t at = line.find("sm_");
      cur_arch = std::string(trim(line.substr(at)));
      continue;
    }
    if (line.starts_with("Function : ")) {
      sass_function f;
      f.arch = cur_arch;
      f.mangled = std::string(trim(line.substr(11)));
      f.name = demangle(f.mangled);
      skipping = !label.empty() && kernel_label(f.name) != label;
      if (!skipping) out.push_back(std::move(f));
      continue;
    }
    if (skipping || !line.starts_with("/*")) continue;
    const std::size_t close = line.find("*/");
    if (close == std::string_view::npos) continue;
    const std::string_view addr = line.substr(2, close - 2);
    if (!is_hex(addr)) continue;  // an encoding comment "/* 0x000fe4... */"
    std::string_view rest = line.substr(close + 2);
    // Drop a trailing encoding comment of the raw cuobjdump format.
    if (const std::size_t semi = rest.find(';'); semi != std::string_view::npos) rest = rest.substr(0, semi);
    if (trim(rest).empty()) continue;
    if (out.empty()) throw model_error("SASS: an instruction before any \"Function : \" line");
    out.back().code.push_back(
        parse_instruction(rest, static_cast<std::uint32_t>(std::strtoul(std::string(addr).c_str(), nullptr, 16))));
  }
  return out;
}

std::map<std::string, int> parse_resources(std::string_view text) {
  std::map<std::string, int> out;
  std::istringstream in{std::string(text)};
  std::string name, reg;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    if (!(l >> name >> reg) || !reg.starts_with("REG:")) continue;
    out[name] = std::atoi(reg.c_str() + 4);
  }
  return out;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : mangled;
}

std::string kernel_label(const std::string& name) {
  for (const char* chain : {"sha256_chain_kernel", "blake2s_chain_kernel", "blake2b_chain_kernel"})
    if (name.find(chain) != std::string::npos) return chain;
  const std::string lk = "label_layer_kernel";
  const std::size_t at = name.find(lk);
  if (at == std::string::npos) return {};
  std::size_t p = at + lk.size();
  if (p >= name.size() || name[p] != '<') return lk;
  // Template arguments up to the matching '>', split at top-level commas.
  int depth = 0;
  std::vector<std::string> args;
  std::string cur;
  for (++p; p < name.size(); ++p) {
    const char c = name[p];
    if (c == '<' || c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c == '>') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) {
      args.emplace_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) args.emplace_back(trim(cur));
  std::string out = lk + "<";
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    // "(poreplab::sdr::label_hash)1": an enum value; name it from the enum's own list.
    const std::size_t close = a.find(')');
    if (!a.empty() && a[0] == '(' && close != std::string::npos) {
      const std::string type = a.substr(1, close - 1);
      const std::string value = a.substr(close + 1);
      const auto v = parse_number(value);
      const std::vector<std::string>* names = nullptr;
      if (type.find("porep_variant") != std::string::npos) names = &sdr::variant_names();
      if (type.find("label_hash") != std::string::npos) names = &sdr::label_hash_names();
      if (type.find("kernel_variant") != std::string::npos) {
        if (v && *v == 0) continue;  // standard: the label every earlier build used
        names = &sdr::kernel_variant_names();
      }
      if (names && v && *v < names->size())
        a = (*names)[*v];
      else
        a = type.substr(type.rfind(':') == std::string::npos ? 0 : type.rfind(':') + 1) + "=" + value;
    } else if (const std::size_t colon = a.rfind("::"); colon != std::string::npos) {
      a = a.substr(colon + 2);  // poreplab::sdr::label_hash::sha256 (newer demanglers)
      if (a == "standard") continue;
    }
    out += (out.size() > lk.size() + 1 ? ", " : "") + a;
  }
  return out + ">";
}

// ---- loops ----

namespace {

std::map<std::uint32_t, std::size_t> address_index(const sass_function& f) {
  std::map<std::uint32_t, std::size_t> m;
  for (std::size_t i = 0; i < f.code.size(); ++i) m[f.code[i].address] = i;
  return m;
}

}  // namespace

std::vector<loop_range> find_loops(const sass_function& f) {
  const auto at = address_index(f);
  std::vector<loop_range> out;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    const sass_instruction& in = f.code[i];
    if (in.base != "BRA" || !in.target || *in.target >= in.address) continue;
    const auto it = at.find(*in.target);
    if (it != at.end()) out.push_back({it->second, i});
  }
  return out;
}

std::optional<loop_range> main_loop(const sass_function& f) {
  std::optional<loop_range> best;
  for (const auto& l : find_loops(f))
    if (!best || l.size() > best->size()) best = l;
  return best;
}

// ---- one iteration ----

namespace {

// Constants known during the walk of one iteration: inner-loop counters and the
// predicates computed from them.
class constant_state {
 public:
  std::optional<std::uint32_t> value(const std::string& op) const {
    std::string_view s = op;
    bool negate = false, invert = false;
    if (!s.empty() && s[0] == '-') {
      negate = true;
      s.remove_prefix(1);
    }
    if (!s.empty() && s[0] == '~') {
      invert = true;
      s.remove_prefix(1);
    }
    std::optional<std::uint32_t> v;
    if (s == "RZ" || s == "URZ") {
      v = 0;
    } else if (const int k = register_key(s); k >= 0 && k < kPredicateBase) {
      if (auto it = regs_.find(k); it != regs_.end()) v = it->second;
    } else if (auto n = parse_number(s)) {
      v = static_cast<std::uint32_t>(*n);
    }
    if (!v) return v;
    if (invert) v = ~*v;
    if (negate) v = static_cast<std::uint32_t>(0u - *v);
    return v;
  }

  std::optional<bool> predicate(std::string_view s) const {
    bool neg = false;
    if (!s.empty() && s[0] == '!') {
      neg = true;
      s.remove_prefix(1);
    }
    std::optional<bool> v;
    if (s == "PT" || s == "UPT") {
      v = true;
    } else if (const int k = register_key(s); k >= kPredicateBase) {
      if (auto it = preds_.find(k); it != preds_.end()) v = it->second;
    }
    if (v && neg) v = !*v;
    return v;
  }

  void set(const std::string& dest, std::optional<std::uint32_t> v) {
    const int k = register_key(dest.substr(0, dest.find('.')));
    if (k < 0 || k >= kPredicateBase) return;
    if (v)
      regs_[k] = *v;
    else
      regs_.erase(k);
  }
  void set_predicate(const std::string& dest, std::optional<bool> v) {
    const int k = register_key(dest);
    if (k < kPredicateBase) return;
    if (v)
      preds_[k] = *v;
    else
      preds_.erase(k);
  }
  void forget(const std::vector<int>& keys) {
    for (int k : keys) {
      regs_.erase(k);
      preds_.erase(k);
    }
  }

  // Applies the instruction's effect on known constants; anything it cannot evaluate
  // makes its destinations unknown.
  void apply(const sass_instruction& in) {
    if (in.dests.empty()) return;
    if (!in.guard.empty()) {
      const auto g = predicate(in.guard);
      if (!g) {
        forget(in.dests);
        return;
      }
      if (!*g) return;
    }
    const auto& op = in.operands;
    const std::string& b = in.base;
    // Operands are read before the destinations change (UIADD3 UR8, UR8, 0x8).
    const constant_state before = *this;
    auto val = [&](std::size_t i) { return i < op.size() ? before.value(op[i]) : std::nullopt; };
    auto pred = [&](std::string_view p) { return before.predicate(p); };
    forget(in.dests);
    if ((b == "MOV" || b == "UMOV") && op.size() >= 2) {
      set(op[0], val(1));
    } else if ((b == "IMAD" || b == "UIMAD") && op.size() == 4 && !has_modifier(in, "WIDE") &&
               !has_modifier(in, "HI") && !has_modifier(in, "X")) {
      const auto a = val(1), m = val(2), c = val(3);
      if (a && m && c) set(op[0], static_cast<std::uint32_t>(*a * *m + *c));
    } else if ((b == "IADD3" || b == "UIADD3") && !has_modifier(in, "X")) {
      // Destination, up to two carry-out predicates, then three addends.
      std::size_t i = 1;
      while (i < op.size() && is_predicate_name(op[i])) ++i;
      if (op.size() - i == 3) {
        const auto x = val(i), y = val(i + 1), z = val(i + 2);
        if (x && y && z) set(op[0], *x + *y + *z);
      }
    } else if ((b == "VIADD" || b == "IADD") && op.size() == 3) {
      const auto x = val(1), y = val(2);
      if (x && y) set(op[0], *x + *y);
    } else if ((b == "SEL" || b == "USEL") && op.size() == 4) {
      const auto p = pred(op[3]);
      if (p) set(op[0], *p ? val(1) : val(2));
    } else if ((b == "ISETP" || b == "UISETP") && op.size() == 5 && !has_modifier(in, "EX")) {
      const auto x = val(2), y = val(3);
      const auto c = pred(op[4]);
      if (x && y && c) {
        const bool u = has_modifier(in, "U32");
        const auto sx = static_cast<std::int32_t>(*x), sy = static_cast<std::int32_t>(*y);
        bool r = false;
        if (has_modifier(in, "LT")) r = u ? *x < *y : sx < sy;
        else if (has_modifier(in, "LE")) r = u ? *x <= *y : sx <= sy;
        else if (has_modifier(in, "GT")) r = u ? *x > *y : sx > sy;
        else if (has_modifier(in, "GE")) r = u ? *x >= *y : sx >= sy;
        else if (has_modifier(in, "EQ")) r = *x == *y;
        else if (has_modifier(in, "NE")) r = *x != *y;
        else return;
        if (has_modifier(in, "AND")) r = r && *c;
        else if (has_modifier(in, "OR")) r = r || *c;
        else if (has_modifier(in, "XOR")) r = r != *c;
        set_predicate(op[0], r);
      }
    } else if ((b == "PLOP3" || b == "UPLOP3") && op.size() == 7) {
      const auto a = pred(op[2]), bb = pred(op[3]), c = pred(op[4]);
      const auto lut = val(5), lut2 = val(6);
      if (a && bb && c && lut && lut2) {
        const unsigned idx = (*a ? 4u : 0u) | (*bb ? 2u : 0u) | (*c ? 1u : 0u);
        set_predicate(op[0], ((*lut >> idx) & 1u) != 0);
        set_predicate(op[1], ((*lut2 >> idx) & 1u) != 0);
      }
    } else if (b == "CS2R" && op.size() == 2 && op[1] == "SRZ") {
      for (int k : in.dests) regs_[k] = 0;
    }
  }

 private:
  std::map<int, std::uint32_t> regs_;
  std::map<int, bool> preds_;
};

}  // namespace

iteration_trace trace_iteration(const sass_function& f, const loop_range& loop) {
  iteration_trace t;
  const auto at = address_index(f);
  const auto loops = find_loops(f);
  std::set<std::string> notes;
  auto note = [&](const std::string& n) {
    if (notes.insert(n).second) t.notes.push_back(n);
  };
  // The innermost loop other than the main one that holds instruction i.
  auto inner_loop_of = [&](std::size_t i) -> std::optional<loop_range> {
    std::optional<loop_range> best;
    for (const auto& l : loops)
      if (l.head >= loop.head && l.latch <= loop.latch && !(l.head == loop.head && l.latch == loop.latch) &&
          l.head <= i && i <= l.latch && (!best || l.size() < best->size()))
        best = l;
    return best;
  };
  // Instructions of the branch's two sides: if-then (the taken side is empty) or
  // if-then-else (the then-side ends with a forward jump over the else-side).
  auto larger_side_taken = [&](std::size_t i, std::size_t target) {
    std::size_t then_size = target - i - 1, else_size = 0;
    const sass_instruction& last_then = f.code[target - 1];
    if (target > i + 1 && last_then.base == "BRA" && last_then.guard.empty() && last_then.target &&
        *last_then.target > last_then.address) {
      const auto e = at.find(*last_then.target);
      if (e != at.end() && e->second <= loop.latch) {
        then_size = target - i - 2;
        else_size = e->second - target;
      }
    }
    return else_size > then_size;
  };

  constant_state k;
  std::vector<std::size_t> calls;
  std::size_t pc = loop.head;
  while (true) {
    if (t.path.size() >= kMaxTrace) {
      note("stopped after " + std::to_string(kMaxTrace) + " instructions: an inner loop did not end");
      t.exact = false;
      break;
    }
    const sass_instruction& in = f.code[pc];
    t.path.push_back(pc);
    k.apply(in);
    if (pc == loop.latch) break;  // the main loop's back edge ends the iteration
    const bool jump = in.base == "BRA" || in.base == "JMP" || in.base == "CALL";
    if (in.base == "EXIT" && in.guard.empty()) {
      note("the iteration reached EXIT at " + hex_address(in.address));
      break;
    }
    if (in.base == "RET" && in.guard.empty()) {
      if (calls.empty()) {
        note("the iteration reached RET at " + hex_address(in.address));
        break;
      }
      pc = calls.back();
      calls.pop_back();
      continue;
    }
    if (jump && in.target) {
      const auto it = at.find(*in.target);
      if (it == at.end()) {
        note("branch at " + hex_address(in.address) + " to an unknown address");
        t.exact = false;
        break;
      }
      const std::size_t target = it->second;
      const bool inside = target >= loop.head && target <= loop.latch;
      bool taken = true;
      if (!in.guard.empty()) {
        if (auto g = k.predicate(in.guard)) {
          taken = *g;
        } else if (!inside) {
          taken = false;  // never leave the iteration on a guess
        } else if (target <= pc && !inner_loop_of(pc)) {
          taken = false;
          note("branch at " + hex_address(in.address) + ": predicate unknown, not taken");
          t.exact = false;
        } else if (const auto inner = inner_loop_of(pc); inner && (target <= pc || target > inner->latch)) {
          // Continue or leave an inner loop whose counter is unknown: run it once.
          taken = target > pc;
          note("inner loop " + hex_address(f.code[inner->head].address) + ".." +
               hex_address(f.code[inner->latch].address) + ": trip count not derived, counted once");
          t.exact = false;
        } else {
          taken = larger_side_taken(pc, target);
          note("branch at " + hex_address(in.address) + ": predicate unknown, took the larger side");
          t.exact = false;
        }
      } else if (!inside) {
        note("the iteration left the loop at " + hex_address(in.address));
        break;
      }
      if (taken) {
        if (!inside) break;
        const bool push = in.base == "CALL" && !has_modifier(in, "NOINC");
        if (push) calls.push_back(pc + 1);
        pc = target;
        continue;
      }
    }
    ++pc;
    if (pc > loop.latch || pc >= f.code.size()) break;
  }
  return t;
}

// ---- latency table ----

namespace {

const std::set<std::string> kMemoryLevels = {"l1", "l2", "dram", "shared", "constant"};

class table_reader {
 public:
  explicit table_reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
    throw model_error(file_ + ": " + ptr + ": " + what);
  }

  const json& require(const json& obj, const std::string& ptr, const std::string& key) const {
    if (!obj.is_object()) fail(ptr, "must be an object");
    if (!obj.contains(key)) fail(ptr + "/" + key, "missing");
    return obj.at(key);
  }

  void only_keys(const json& obj, const std::string& ptr, std::initializer_list<const char*> keys) const {
    for (const auto& [k, v] : obj.items()) {
      bool ok = false;
      for (const char* a : keys) ok = ok || k == a;
      if (!ok) {
        std::string list;
        for (const char* a : keys) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(ptr + "/" + k, "unknown key (allowed: " + list + ")");
      }
    }
  }

  // Every figure carries its source, or "status": "assumed" with the reason.
  void provenance(const json& obj, const std::string& ptr, std::vector<std::string>& assumed) const {
    const bool has_source = obj.contains("source");
    if (has_source && (!obj["source"].is_string() || obj["source"].get<std::string>().empty()))
      fail(ptr + "/source", "must be a non-empty string");
    if (obj.contains("status")) {
      if (obj["status"] != "assumed") fail(ptr + "/status", "must be \"assumed\" (or leave it out and give a source)");
      if (!obj.contains("reason") || !obj["reason"].is_string() || obj["reason"].get<std::string>().empty())
        fail(ptr + "/reason", "an assumed value needs a non-empty \"reason\"");
      assumed.push_back(ptr);
    } else if (!has_source) {
      fail(ptr, "needs a \"source\" (or \"status\": \"assumed\" with a \"reason\")");
    }
  }

  double positive(const json& obj, const std::string& ptr, const std::string& key, const std::string& field,
                  std::vector<std::string>& assumed) const {
    const json& f = require(obj, ptr, key);
    const std::string p = ptr + "/" + key;
    if (!f.is_object()) fail(p, "must be an object {\"" + field + "\": ..., \"source\": ...}");
    only_keys(f, p, {"value", "cycles", "source", "status", "reason", "note"});
    const json& v = require(f, p, field);
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      fail(p + "/" + field, "must be a positive number");
    provenance(f, p, assumed);
    return v.get<double>();
  }

 private:
  std::string file_;
};

}  // namespace

latency_table parse_latency_table(const json& j, const std::string& file) {
  const table_reader r(file);
  latency_table t;
  t.file = file;
  if (!j.is_object()) r.fail("/", "must be a JSON object");
  r.only_keys(j, "", {"schema", "description", "archs", "notes"});
  const json& schema = r.require(j, "", "schema");
  if (schema != "poreplab-gpu-latency/1")
    r.fail("/schema", "unsupported schema " + schema.dump() + " (this poreplab reads \"poreplab-gpu-latency/1\")");
  const json& archs = r.require(j, "", "archs");
  if (!archs.is_object() || archs.empty()) r.fail("/archs", "must be a non-empty object of architectures");
  for (const auto& [name, a] : archs.items()) {
    const std::string p = "/archs/" + name;
    if (name.rfind("sm_", 0) != 0) r.fail(p, "architecture names look like sm_80");
    if (!a.is_object()) r.fail(p, "must be an object");
    r.only_keys(a, p,
                {"device", "sm_count", "boost_clock_mhz", "warp_schedulers_per_sm", "issue_per_scheduler_per_cycle",
                 "max_threads_per_sm", "max_blocks_per_sm", "registers_per_sm", "register_allocation_unit",
                 "hbm_bandwidth_gb_s", "memory_latency_cycles", "global_load_level", "default_latency_cycles",
                 "opcodes", "notes"});
    arch_params x;
    x.arch = name;
    const json& dev = r.require(a, p, "device");
    if (!dev.is_string() || dev.get<std::string>().empty()) r.fail(p + "/device", "must be a non-empty string");
    x.device = dev;
    x.sm_count = r.positive(a, p, "sm_count", "value", x.assumed);
    x.clock_mhz = r.positive(a, p, "boost_clock_mhz", "value", x.assumed);
    x.schedulers_per_sm = r.positive(a, p, "warp_schedulers_per_sm", "value", x.assumed);
    x.issue_per_scheduler = r.positive(a, p, "issue_per_scheduler_per_cycle", "value", x.assumed);
    x.max_threads_per_sm = r.positive(a, p, "max_threads_per_sm", "value", x.assumed);
    x.max_blocks_per_sm = r.positive(a, p, "max_blocks_per_sm", "value", x.assumed);
    x.registers_per_sm = r.positive(a, p, "registers_per_sm", "value", x.assumed);
    x.register_alloc_unit = r.positive(a, p, "register_allocation_unit", "value", x.assumed);
    x.hbm_gb_per_s = r.positive(a, p, "hbm_bandwidth_gb_s", "value", x.assumed);
    x.default_cycles = r.positive(a, p, "default_latency_cycles", "cycles", x.assumed);
    const json& mem = r.require(a, p, "memory_latency_cycles");
    if (!mem.is_object()) r.fail(p + "/memory_latency_cycles", "must be an object");
    for (const auto& [level, v] : mem.items())
      if (!kMemoryLevels.count(level))
        r.fail(p + "/memory_latency_cycles/" + level, "unknown memory level (known: constant, dram, l1, l2, shared)");
    for (const auto& level : kMemoryLevels)
      x.memory_cycles[level] = r.positive(mem, p + "/memory_latency_cycles", level, "cycles", x.assumed);
    const json& gl = r.require(a, p, "global_load_level");
    if (!gl.is_object() || !gl.contains("value") || !gl["value"].is_string())
      r.fail(p + "/global_load_level", "must be {\"value\": \"l1\" | \"l2\" | \"dram\", ...}");
    x.global_load_level = gl["value"];
    if (x.global_load_level != "l1" && x.global_load_level != "l2" && x.global_load_level != "dram")
      r.fail(p + "/global_load_level/value", "must be l1, l2 or dram");
    r.provenance(gl, p + "/global_load_level", x.assumed);
    const json& ops = r.require(a, p, "opcodes");
    if (!ops.is_object() || ops.empty()) r.fail(p + "/opcodes", "must be a non-empty object");
    for (const auto& [op, v] : ops.items()) {
      const std::string q = p + "/opcodes/" + op;
      if (!v.is_object()) r.fail(q, "must be an object {\"cycles\": N, \"source\": ...}");
      r.only_keys(v, q, {"cycles", "memory", "source", "status", "reason", "note"});
      if (v.contains("memory")) {
        const json& m = v["memory"];
        if (!m.is_string() || (m != "global" && !kMemoryLevels.count(m.get<std::string>())))
          r.fail(q + "/memory", "must be global, l1, l2, dram, shared or constant");
        x.opcode_memory[op] = m;
        r.provenance(v, q, x.assumed);
      } else {
        x.opcode_cycles[op] = r.positive(ops, p + "/opcodes", op, "cycles", x.assumed);
      }
    }
    t.archs[name] = std::move(x);
  }
  return t;
}

latency_table load_latency_table(const std::string& path) {
  if (path.empty()) return parse_latency_table(json::parse(kDefaultLatencyJson), kDefaultLatencyName);
  std::ifstream in(path);
  if (!in) throw model_error("cannot open latency table " + path + ": " + std::strerror(errno));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw model_error(path + ": not valid JSON: " + json_reason(e));
  }
  return parse_latency_table(j, path);
}

const arch_params& arch_of(const latency_table& t, const std::string& arch) {
  const auto it = t.archs.find(arch);
  if (it == t.archs.end()) {
    std::string known;
    for (const auto& [k, v] : t.archs) known += (known.empty() ? "" : ", ") + k;
    throw model_error(t.file + ": /archs/" + arch + ": missing (the table has " + known + ")");
  }
  return it->second;
}

double instruction_cycles(const sass_instruction& in, const arch_params& a, const std::string& load_level) {
  if (auto m = a.opcode_memory.find(in.base); m != a.opcode_memory.end()) {
    const std::string level = m->second == "global" ? (load_level.empty() ? a.global_load_level : load_level) : m->second;
    return a.memory_cycles.at(level);
  }
  if (auto c = a.opcode_cycles.find(in.base); c != a.opcode_cycles.end()) return c->second;
  return a.default_cycles;
}

// ---- analysis ----

kernel_analysis analyze(const sass_function& f, const arch_params& a, const std::string& load_level) {
  kernel_analysis k;
  k.arch = f.arch;
  k.mangled = f.mangled;
  k.name = f.name;
  k.label = kernel_label(f.name);
  k.unit = k.label.rfind("label_layer_kernel", 0) == 0 ? "node" : "compression";
  k.load_level = load_level.empty() ? a.global_load_level : load_level;
  if (k.load_level != "l1" && k.load_level != "l2" && k.load_level != "dram")
    throw model_error("load level '" + k.load_level + "' is not l1, l2 or dram");
  std::vector<std::size_t> path;
  if (const auto l = main_loop(f)) {
    k.has_loop = true;
    k.loop_head = f.code[l->head].address;
    k.loop_latch = f.code[l->latch].address;
    iteration_trace t = trace_iteration(f, *l);
    path = std::move(t.path);
    k.notes = std::move(t.notes);
    k.exact = t.exact;
  } else {
    for (std::size_t i = 0; i < f.code.size(); ++i) path.push_back(i);
    k.notes.push_back("no loop: the whole kernel is counted once");
    k.exact = false;
  }
  std::vector<const sass_instruction*> seq;
  seq.reserve(path.size());
  int max_reg = -1;
  for (const auto& in : f.code) {
    for (int r : in.dests)
      if (r < kUniformBase) max_reg = std::max(max_reg, r);
    for (int r : in.srcs)
      if (r < kUniformBase) max_reg = std::max(max_reg, r);
  }
  for (std::size_t i : path) {
    const sass_instruction& in = f.code[i];
    seq.push_back(&in);
    ++k.by_opcode[in.base];
    if (!a.opcode_cycles.count(in.base) && !a.opcode_memory.count(in.base)) k.default_latency_opcodes.insert(in.base);
    static const std::set<std::string> device_memory = {"LDG", "LD", "STG", "ST", "ATOMG", "RED"};
    if (device_memory.count(in.base)) k.bytes_per_iteration += access_bytes(in);
    for (const auto& op : in.operands)
      if (auto v = parse_number(op); v && static_cast<std::uint32_t>(*v) == kSha256K0) ++k.round_constant_hits;
  }
  k.instructions = seq.size();
  const auto s = schedule(seq, [&](const sass_instruction& in) { return instruction_cycles(in, a, k.load_level); });
  k.critical_path_cycles = s.critical_path;
  k.in_order_cycles = s.in_order;
  if (f.registers > 0) {
    k.registers = f.registers;
    k.registers_source = "cuobjdump -res-usage";
  } else {
    k.registers = max_reg + 1;
    k.registers_source = "highest register named in the SASS";
  }
  return k;
}

prediction predict(const kernel_analysis& k, const arch_params& a, unsigned threads_per_block) {
  if (threads_per_block == 0 || threads_per_block > 1024 || threads_per_block % 32 != 0)
    throw model_error("threads per block must be a multiple of 32 from 32 to 1024, not " +
                      std::to_string(threads_per_block));
  prediction p;
  const double hz = a.clock_mhz * 1e6;
  p.single_thread_cycles = k.in_order_cycles;
  p.single_thread_ns = k.in_order_cycles / hz * 1e9;
  p.critical_path_ns = k.critical_path_cycles / hz * 1e9;
  // Residency per SM: blocks limited by threads, the block cap and registers (allocated
  // per warp in units of register_allocation_unit).
  const double warps_per_block = threads_per_block / 32.0;
  const double by_threads = std::floor(a.max_threads_per_sm / threads_per_block);
  double by_regs = std::numeric_limits<double>::infinity();
  if (k.registers > 0) {
    const double per_warp = std::ceil(k.registers * 32.0 / a.register_alloc_unit) * a.register_alloc_unit;
    by_regs = std::floor(std::floor(a.registers_per_sm / per_warp) / warps_per_block);
  }
  double blocks = std::min({by_threads, a.max_blocks_per_sm, by_regs});
  p.resident_limit = blocks == by_regs ? "registers" : blocks == a.max_blocks_per_sm ? "blocks per SM" : "threads per SM";
  p.resident_threads = blocks * threads_per_block * a.sm_count;
  p.issue_rate = a.sm_count * a.schedulers_per_sm * a.issue_per_scheduler * 32.0 * hz /
                 std::max(1.0, static_cast<double>(k.instructions));
  p.latency_rate = p.single_thread_ns > 0 ? p.resident_threads / (p.single_thread_ns * 1e-9) : 0;
  p.memory_rate = k.bytes_per_iteration > 0 ? a.hbm_gb_per_s * 1e9 / k.bytes_per_iteration
                                            : std::numeric_limits<double>::infinity();
  p.rate = std::min({p.issue_rate, p.latency_rate, p.memory_rate});
  p.bound = p.rate == p.issue_rate ? "issue" : p.rate == p.latency_rate ? "latency" : "memory";
  return p;
}

double predicted_ns_per_iteration(const prediction& p, double parallel) {
  return std::max(p.single_thread_ns, parallel * 1e9 / p.rate);
}

// ---- the build's SASS ----

std::vector<embedded_arch> embedded_sass() {
  std::vector<embedded_arch> out;
  const embedded::sass_blob* b = embedded::blobs();
  for (std::size_t i = 0; i < embedded::blob_count(); ++i) {
    embedded_arch e;
    e.arch = b[i].arch;
    for (std::size_t c = 0; c < b[i].chunk_count; ++c) e.text += b[i].chunks[c];
    e.resources = b[i].resources;
    out.push_back(std::move(e));
  }
  return out;
}

std::string embedded_note() { return embedded::note(); }

std::vector<std::string> embedded_kernel_labels(const std::string& arch) {
  std::vector<std::string> out;
  for (const auto& e : embedded_sass()) {
    if (e.arch != arch) continue;
    const std::string_view text = e.text;
    for (std::size_t pos = text.find("Function : "); pos != std::string_view::npos;
         pos = text.find("Function : ", pos + 1)) {
      const std::size_t end = text.find('\n', pos);
      const std::string k = kernel_label(demangle(std::string(trim(text.substr(pos + 11, end - pos - 11)))));
      if (!k.empty() && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
  }
  return out;
}

std::vector<sass_function> embedded_kernels(const std::vector<std::string>& archs, const std::string& label) {
  std::vector<sass_function> out;
  for (const auto& e : embedded_sass()) {
    if (!archs.empty() && std::find(archs.begin(), archs.end(), e.arch) == archs.end()) continue;
    const auto regs = parse_resources(e.resources);
    for (auto& f : parse_sass(e.text, e.arch, label)) {
      if (kernel_label(f.name).empty()) continue;
      f.arch = e.arch;
      if (auto it = regs.find(f.mangled); it != regs.end()) f.registers = it->second;
      out.push_back(std::move(f));
    }
  }
  // Label kernels first, then the chains; by name within each.
  std::stable_sort(out.begin(), out.end(), [](const sass_function& x, const sass_function& y) {
    const std::string a = kernel_label(x.name), b = kernel_label(y.name);
    const bool la = a.rfind("label", 0) == 0, lb = b.rfind("label", 0) == 0;
    if (x.arch != y.arch) return x.arch < y.arch;
    if (la != lb) return la;
    return a < b;
  });
  return out;
}

std::vector<model_row> run_model(const latency_table& t, const model_options& o) {
  const auto sass = embedded_sass();
  if (sass.empty()) throw model_error(embedded_note().empty() ? "no SASS in this build" : embedded_note());
  std::vector<std::string> built;
  for (const auto& e : sass) built.push_back(e.arch);
  std::vector<std::string> archs = o.archs;
  if (archs.empty())
    for (const auto& a : built)
      if (t.archs.count(a)) archs.push_back(a);
  if (archs.empty())
    throw model_error(t.file + ": has none of the architectures this build has SASS for (" + join(built) + ")");
  for (const auto& a : archs) {
    if (std::find(built.begin(), built.end(), a) == built.end()) {
      throw model_error("this build has no SASS for " + a + " (it was built for " + join(built) +
                        "; add it with -DCMAKE_CUDA_ARCHITECTURES)");
    }
    arch_of(t, a);  // the table must describe it
  }
  std::vector<model_row> rows;
  for (const auto& f : embedded_kernels(archs)) {
    const arch_params& a = arch_of(t, f.arch);
    model_row r;
    r.analysis = analyze(f, a, o.load_level);
    r.predicted = predict(r.analysis, a, o.threads_per_block);
    r.device = a.device;
    rows.push_back(std::move(r));
  }
  return rows;
}

json to_json(const model_row& r) {
  const kernel_analysis& k = r.analysis;
  const prediction& p = r.predicted;
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json by = json::object();
  for (const auto& [op, n] : k.by_opcode) by[op] = n;
  return {{"modeled", true},
          {"arch", k.arch},
          {"device", r.device},
          {"kernel", k.label},
          {"mangled", k.mangled},
          {"unit", k.unit},
          {"has_loop", k.has_loop},
          {"loop", {{"head", hex_address(k.loop_head)}, {"latch", hex_address(k.loop_latch)}}},
          {"instructions_per_iteration", k.instructions},
          {"instructions_by_opcode", by},
          {"critical_path_cycles", k.critical_path_cycles},
          {"in_order_cycles", k.in_order_cycles},
          {"bytes_per_iteration", k.bytes_per_iteration},
          {"sha256_round_constant_hits", k.round_constant_hits},
          {"registers", k.registers},
          {"registers_source", k.registers_source},
          {"global_load_level", k.load_level},
          {"trace_exact", k.exact},
          {"notes", k.notes},
          {"default_latency_opcodes", std::vector<std::string>(k.default_latency_opcodes.begin(),
                                                               k.default_latency_opcodes.end())},
          {"single_thread_ns", p.single_thread_ns},
          {"critical_path_ns", p.critical_path_ns},
          {"resident_threads", p.resident_threads},
          {"resident_limit", p.resident_limit},
          {"issue_bound_per_s", finite(p.issue_rate)},
          {"latency_bound_per_s", finite(p.latency_rate)},
          {"memory_bound_per_s", finite(p.memory_rate)},
          {"rate_per_s", finite(p.rate)},
          {"bound", p.bound}};
}

// ---- measured records ----

namespace {

std::string arch_from_device(const std::string& device) {
  for (const char* a : {"A100", "A800", "A30"})
    if (device.find(a) != std::string::npos) return "sm_80";
  for (const char* h : {"H100", "H200", "H800", "H20", "GH200"})
    if (device.find(h) != std::string::npos) return "sm_90";
  return {};
}

std::string text_of(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

}  // namespace

std::vector<measured_point> read_measured(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(dir) / "records.jsonl";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw model_error("results directory " + dir + " is not a readable directory");
  if (!fs::exists(file, ec)) throw model_error(dir + " holds no records.jsonl");
  runner::records_log log;
  try {
    log = runner::read_records(file, false);
  } catch (const std::exception& e) {
    throw model_error(std::string("cannot read measured records: ") + e.what());
  }
  std::vector<measured_point> out;
  for (const auto& r : log.points) {
    if (r.value("status", "") != "ok" || r.value("modeled", false)) continue;
    const json ctx = r.value("context", json::object());
    if (ctx.value("modeled", false)) continue;
    const json axes = r.value("axes", json::object());
    const std::string kind = r.value("kind", "");
    const bool cuda = text_of(axes, "backend") == "cuda" || text_of(axes, "engine") == "cuda";
    if (!cuda || (kind != "label" && kind != "hash")) continue;
    const json st = r.value("stats", json::object());
    if (!st.contains("median") || !st["median"].is_number()) continue;
    measured_point m;
    m.dir = dir;
    m.experiment = r.value("experiment", "");
    m.kind = kind;
    m.device = text_of(ctx, "device");
    m.arch = arch_from_device(m.device);
    m.axes = axes;
    m.metric = r.value("metric", "");
    m.value = st["median"].get<double>();
    if (kind == "label") {
      m.algo = text_of(axes, "hash").empty() ? "sha256" : text_of(axes, "hash");
      m.parallel = axes.contains("sectors") && axes["sectors"].is_number() ? axes["sectors"].get<double>() : 1;
    } else {
      m.algo = text_of(axes, "algo");
      m.parallel = text_of(axes, "mode") == "chain" ? 1 : ctx.value("lanes", 0.0);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace poreplab::gpu_model
