#include "model/gpu_model.hpp"
#include "model/sass_detail.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "poreplab/sdr/scheme.hpp"

namespace poreplab::gpu_model {

using namespace detail;

namespace {

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

}  // namespace

namespace detail {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool has_modifier(const sass_instruction& in, std::string_view m) {
  const auto parts = split_modifiers(in.opcode);
  return std::find(parts.begin() + 1, parts.end(), m) != parts.end();
}

bool is_predicate_name(std::string_view s) {
  return s == "PT" || s == "UPT" || (s.size() == 2 && s[0] == 'P' && std::isdigit(static_cast<unsigned char>(s[1]))) ||
         (s.size() == 3 && s[0] == 'U' && s[1] == 'P' && std::isdigit(static_cast<unsigned char>(s[2])));
}

double access_bytes(const sass_instruction& in) {
  if (has_modifier(in, "128")) return 16;
  if (has_modifier(in, "64")) return 8;
  if (has_modifier(in, "U8") || has_modifier(in, "S8")) return 1;
  if (has_modifier(in, "U16") || has_modifier(in, "S16")) return 2;
  return 4;
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

}  // namespace detail

namespace {

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
  const char* prefix = "R";
  int base = 0;
  if (key >= kUniformPredicateBase) {
    prefix = "UP";
    base = kUniformPredicateBase;
  } else if (key >= kPredicateBase) {
    prefix = "P";
    base = kPredicateBase;
  } else if (key >= kUniformBase) {
    prefix = "UR";
    base = kUniformBase;
  }
  std::string name = prefix;
  name += std::to_string(key - base);
  return name;
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

std::string label_kernel_label(sdr::label_scheme s, sdr::kernel_variant k) {
  std::string out(kLabelKernel);
  out.append("<").append(sdr::variant_name(s.variant)).append(", ").append(sdr::label_hash_name(s.hash));
  if (k != sdr::kernel_variant::standard) out.append(", ").append(sdr::kernel_variant_name(k));
  out.append(">");
  return out;
}

bool is_label_kernel(std::string_view label) { return label.starts_with(kLabelKernel); }

std::vector<std::string> kernel_labels() {
  std::vector<std::string> v;
  for (const auto& var : sdr::kPorepVariants.entries)
    for (const hash_family h : hash_families()) v.push_back(label_kernel_label({var.value, h}));
  for (const auto& k : sdr::kKernelChoices.entries)
    if (k.value != sdr::kernel_variant::automatic && k.value != sdr::kernel_variant::standard)
      v.push_back(label_kernel_label(sdr::kFilecoinScheme, k.value));
  for (const hash_family f : hash_families()) v.emplace_back(chain_kernel_label(f));
  return v;
}

std::string kernel_label(const std::string& name) {
  for (const hash_family f : hash_families())
    if (name.find(chain_kernel_label(f)) != std::string::npos) return std::string(chain_kernel_label(f));
  const std::string lk(kLabelKernel);
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
    // "(poreplab::hash_family)1": an enum value; name it from the enum's own list.
    const std::size_t close = a.find(')');
    if (!a.empty() && a[0] == '(' && close != std::string::npos) {
      const std::string type = a.substr(1, close - 1);
      const std::string value = a.substr(close + 1);
      const auto v = parse_number(value);
      const std::vector<std::string>* names = nullptr;
      if (type.find("porep_variant") != std::string::npos) names = &sdr::variant_names();
      // label_hash: the enum's name before the hash families were one enum.
      if (type.find("hash_family") != std::string::npos || type.find("label_hash") != std::string::npos)
        names = &sdr::label_hash_names();
      if (type.find("kernel_variant") != std::string::npos) {
        if (v && *v == 0) continue;  // standard: the label every earlier build used
        names = &sdr::kernel_variant_names();
      }
      if (names && v && *v < names->size())
        a = (*names)[*v];
      else
        a = type.substr(type.rfind(':') == std::string::npos ? 0 : type.rfind(':') + 1) + "=" + value;
    } else if (const std::size_t colon = a.rfind("::"); colon != std::string::npos) {
      const bool family = a.find("hash_family::") != std::string::npos;
      a = a.substr(colon + 2);  // poreplab::hash_family::sha256 (newer demanglers)
      if (a == "standard") continue;
      if (family && kHashFamilies.has(a)) a = sdr::label_hash_name(parse_hash_family(a));
    }
    out += (out.size() > lk.size() + 1 ? ", " : "") + a;
  }
  return out + ">";
}

sdr::kernel_variant kernel_variant_of_label(const std::string& label) {
  const auto& names = sdr::kernel_variant_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (label.size() > names[i].size() + 3 && label.ends_with(", " + names[i] + ">"))
      return static_cast<sdr::kernel_variant>(i);
  return sdr::kernel_variant::standard;
}

}  // namespace poreplab::gpu_model
