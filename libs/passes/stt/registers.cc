// The storage of a space-time transformed kernel: one shift register or FIFO per dependence,
// sized exactly with isl (libs/poly).
#include <algorithm>
#include <optional>

#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

KernelStorage allocate_registers(const TransformContext& ctx, const OriginalLoops& o,
                                 const KernelSchedule& schedule, const Dependences& deps,
                                 const ExecutionOrder& order, NameSupply& names) {
  KernelStorage ks;
  std::vector<Storage>& storage = ks.storage;
  std::vector<poly::Aff> keys;
  for (size_t i = 0; i < schedule.space; ++i) keys.push_back(o.poly_of(schedule.loops[i].aff));
  const poly::Aff time = o.poly_of(schedule.time);
  for (const Read& r : deps.reads) {
    const Ure& u = deps.ures.at(r.func);
    if (!u.allocatable) continue;
    if (!ks.value_names.count(u.func)) ks.value_names[u.func] = fresh_name(names, u.func + "_val");
    if (std::all_of(r.distance.begin(), r.distance.end(), [](int64_t c) { return c == 0; }))
      continue;
    auto key = std::make_pair(r.func, r.distance);
    if (ks.index.count(key)) {
      Storage& s = storage[ks.index[key]];
      s.first_reader = std::min(s.first_reader, r.stmt);
      s.last_reader = std::max(s.last_reader, r.stmt);
      continue;
    }
    Storage s;
    s.func = r.func;
    s.distance = r.distance;
    s.first_reader = r.stmt;
    s.last_reader = r.stmt;
    ks.index[key] = storage.size();
    storage.push_back(s);
  }
  // A URE no statement reads (hand-edited IR) is still computed, into a let of its own.
  for (const auto& [func, u] : deps.ures)
    if (u.allocatable && !ks.value_names.count(func))
      ks.value_names[func] = fresh_name(names, u.func + "_val");
  std::map<std::string, int> count;
  int64_t offsets_left = kMaxEnumeratedOffsets;
  // Whether every PE writes one value every `period` steps at one phase: a property of the
  // kernel's domain, the same for every storage (computed once, when a storage needs it).
  std::optional<std::optional<int64_t>> period_of_domain;
  int64_t domain_step = 1, domain_phase = 0;
  for (Storage& s : storage) {
    const Ure& u = deps.ures.at(s.func);
    s.time_distance = schedule.time.dot(s.distance);
    // The values that are read: produced at x with x + d in the domain.
    poly::Set read = o.domain();
    for (size_t v = 0; v < o.isl.size(); ++v)
      if (s.distance[v] != 0)
        read.where(poly::Cond::range(o.mins[v], poly::Aff::dim(o.isl[v]) + s.distance[v],
                                     o.mins[v] + o.extents[v]));
    // Values live from their write to the pop (fifo: the first reader) or to the last read
    // (shift register); a window of `span` steps holds them.
    auto live_until = [&](size_t reader) {
      const int64_t delta = order.delta(s.distance, reader, u.stmt);
      const int64_t span = (delta + order.quantum - 1) / order.quantum - 1;
      const int64_t limit = std::min(kMaxWindowOffsets, offsets_left);
      int64_t enumerated = 0;
      int64_t live = poly::max_points_within(read, keys, time, span, limit, &enumerated);
      if (live > kMaxWindowOffsets)
        ctx.fail("the storage for " + s.func + " at distance " + outermost_first(s.distance) +
                     " holds more than " + std::to_string(kMaxWindowOffsets) + " values per PE",
                 "stt-storage");
      if (enumerated > limit)
        ctx.fail("sizing the storage of the kernel (up to the one for " + s.func + " at distance " +
                     outermost_first(s.distance) + ") enumerates more than " +
                     std::to_string(kMaxEnumeratedOffsets) +
                     " window offsets (t2s-stt's limit on its work)",
                 "stt-storage");
      offsets_left -= enumerated;
      return std::make_pair(delta, live);
    };
    const auto first = live_until(s.first_reader);
    const auto [fifo_delta, fifo_live] = first;
    if (fifo_live == 0) {
      s.none = true;
      continue;
    }
    Register& reg = s.reg;
    reg.func = s.func;
    reg.kernel = ctx.kernel.name;
    reg.type = u.type;
    reg.shape = schedule.shape;
    for (size_t p = 0; p < u.arg_var.size(); ++p) reg.distance.push_back(s.distance[u.arg_var[p]]);
    for (size_t i = 0; i < schedule.space; ++i)
      reg.pe_offset.push_back(schedule.loops[i].aff.dot(s.distance));
    reg.time_distance = s.time_distance;
    reg.naive = s.time_distance + 1;
    reg.loc = u.loc;
    // A shift register when every PE writes one value every `period` steps at one phase and
    // a shift register is exactly as large as the live values.
    // Shifting every step (period 1) is always correct: the PE shifts where it does not run,
    // so a slot number counts steps. When every PE writes one value every `period` steps at
    // one phase, shifting only at those steps needs fewer slots.
    if (!period_of_domain) {
      poly::Set all = o.domain();
      period_of_domain = poly::uniform_step(all, keys, time);
      if (*period_of_domain && **period_of_domain > 1)
        if (auto p = poly::single_value(all, time.mod(**period_of_domain))) {
          domain_step = **period_of_domain;
          domain_phase = *p;
        }
    }
    const std::optional<int64_t> period = *period_of_domain;
    const int64_t step = domain_step, phase = domain_phase;
    // One reader: the window up to the last read is the one up to the first.
    const auto [last_delta, last_live] =
        s.last_reader == s.first_reader ? first : live_until(s.last_reader);
    const int64_t shift_depth =
        period && *period == 0 ? 1 : last_delta / (step * order.quantum) + 1;
    const bool shift = shift_depth == last_live;
    if (shift) {
      reg.period = step;
      s.phase = phase;
      s.delta = last_delta;
    }
    if (!shift) s.delta = fifo_delta;
    reg.kind = shift ? Register::kShift : Register::kFifo;
    reg.depth = shift ? shift_depth : fifo_live;
    if (!shift) reg.period = 1;
    const int n = ++count[s.func];
    reg.name = fresh_name(
        names, s.func + (shift ? "_shreg" : "_fifo") + (n > 1 ? "_" + std::to_string(n) : ""));
    if (!shift) s.value_name = fresh_name(names, reg.name + "_val");
  }
  return ks;
}

}  // namespace t2s::stt_internal
