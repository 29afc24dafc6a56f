#include "model/gpu_model.hpp"
#include "model/sass_detail.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace poreplab::gpu_model {

using namespace detail;

namespace {
constexpr std::size_t kMaxTrace = 2'000'000;  // instructions in one traced iteration
}  // namespace

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
// The comparison of an ISETP, when both operands are known.
std::optional<bool> compare(const sass_instruction& in, std::optional<std::uint32_t> x, std::optional<std::uint32_t> y) {
  if (!x || !y) return std::nullopt;
  const bool u = has_modifier(in, "U32");
  const auto sx = static_cast<std::int32_t>(*x), sy = static_cast<std::int32_t>(*y);
  if (has_modifier(in, "LT")) return u ? *x < *y : sx < sy;
  if (has_modifier(in, "LE")) return u ? *x <= *y : sx <= sy;
  if (has_modifier(in, "GT")) return u ? *x > *y : sx > sy;
  if (has_modifier(in, "GE")) return u ? *x >= *y : sx >= sy;
  if (has_modifier(in, "EQ")) return *x == *y;
  if (has_modifier(in, "NE")) return *x != *y;
  return std::nullopt;
}

class constant_state {
 public:
  explicit constant_state(std::optional<std::uint32_t> tid = std::nullopt) : tid_(tid) {}

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
      const auto r = compare(in, val(2), val(3));
      const auto c = pred(op[4]);
      const bool conj = has_modifier(in, "AND"), disj = has_modifier(in, "OR");
      // Either side may decide alone: false AND anything, true OR anything.
      for (const auto& side : {r, c})
        if (side && ((conj && !*side) || (disj && *side))) {
          set_predicate(op[0], *side);
          return;
        }
      const bool exclusive = has_modifier(in, "XOR");
      if (!conj && !disj && !exclusive) set_predicate(op[0], r);
      else if (r && c) set_predicate(op[0], conj ? (*r && *c) : disj ? (*r || *c) : (*r != *c));
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
    } else if ((b == "S2R" || b == "S2UR") && op.size() == 2 && tid_) {
      // The traced thread: its index in the block, in block 0.
      if (op[1] == "SR_TID.X") set(op[0], *tid_);
      else if (op[1] == "SR_TID.Y" || op[1] == "SR_TID.Z" || op[1] == "SR_CTAID.X") set(op[0], 0u);
      else if (op[1] == "SR_LANEID") set(op[0], *tid_ % 32);
    }
  }

 private:
  std::optional<std::uint32_t> tid_;
  std::map<int, std::uint32_t> regs_;
  std::map<int, bool> preds_;
};

using address_map = std::map<std::uint32_t, std::size_t>;

// The notes of one traced iteration, each said once.
class trace_notes {
 public:
  explicit trace_notes(iteration_trace& t) : t_(t) {}
  void operator()(const std::string& n) {
    if (seen_.insert(n).second) t_.notes.push_back(n);
  }
  // A guess the walk had to make: noted, and the trace no longer exact.
  void guess(const std::string& n) {
    (*this)(n);
    t_.exact = false;
  }

 private:
  iteration_trace& t_;
  std::set<std::string> seen_;
};

// The innermost loop other than the main one that holds instruction i.
std::optional<loop_range> inner_loop_of(const std::vector<loop_range>& loops, const loop_range& loop, std::size_t i) {
  std::optional<loop_range> best;
  for (const auto& l : loops)
    if (l.head >= loop.head && l.latch <= loop.latch && !(l.head == loop.head && l.latch == loop.latch) &&
        l.head <= i && i <= l.latch && (!best || l.size() < best->size()))
      best = l;
  return best;
}

// Instructions of the branch's two sides: if-then (the taken side is empty) or
// if-then-else (the then-side ends with a forward jump over the else-side).
bool larger_side_taken(const sass_function& f, const address_map& at, const loop_range& loop, std::size_t i,
                       std::size_t target) {
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
}

// Whether the branch at pc to target, whose guard the walk cannot evaluate, is taken.
bool guess_taken(const sass_function& f, const address_map& at, const std::vector<loop_range>& loops,
                 const loop_range& loop, std::size_t pc, std::size_t target, bool inside, trace_notes& note) {
  const sass_instruction& in = f.code[pc];
  if (!inside) return false;  // never leave the iteration on a guess
  if (target <= pc && !inner_loop_of(loops, loop, pc)) {
    note.guess("branch at " + hex_address(in.address) + ": predicate unknown, not taken");
    return false;
  }
  if (const auto inner = inner_loop_of(loops, loop, pc); inner && (target <= pc || target > inner->latch)) {
    // Continue or leave an inner loop whose counter is unknown: run it once.
    note.guess("inner loop " + hex_address(f.code[inner->head].address) + ".." +
               hex_address(f.code[inner->latch].address) + ": trip count not derived, counted once");
    return target > pc;
  }
  note.guess("branch at " + hex_address(in.address) + ": predicate unknown, took the larger side");
  return larger_side_taken(f, at, loop, pc, target);
}

}  // namespace

iteration_trace trace_iteration(const sass_function& f, const loop_range& loop, std::optional<std::uint32_t> tid) {
  iteration_trace t;
  const auto at = address_index(f);
  const auto loops = find_loops(f);
  trace_notes note(t);

  constant_state k(tid);
  if (tid) {
    // What the code before the loop computes from the thread index (role predicates,
    // lane numbers) holds at the loop head; anything else is unknown there.
    for (std::size_t i = 0; i < loop.head; ++i) k.apply(f.code[i]);
  }
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
        const auto g = k.predicate(in.guard);
        taken = g ? *g : guess_taken(f, at, loops, loop, pc, target, inside, note);
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

}  // namespace poreplab::gpu_model
