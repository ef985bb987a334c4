// The storage of a space-time transformed kernel: one shift register or FIFO per dependence,
// sized exactly with isl (libs/poly).
#include <algorithm>
#include <optional>

#include "libs/passes/stt/stt_internal.h"

namespace t2s::stt_internal {

// Execution-order distance from the write of x - d (statement `writer`) to its read at x
// (statement `reader`): time steps, then PEs, then statements, a read before a write.
int64_t KernelTransformer::delta(const std::vector<int64_t>& d, size_t reader,
                                 size_t writer) const {
  return checked_add(
      checked_add(checked_mul(quantum_, time_.dot(d)), checked_mul(2 * stmts_, order_.dot(d))),
      2 * (static_cast<int64_t>(reader) - static_cast<int64_t>(writer)) - 1);
}

void KernelTransformer::allocate() {
  std::vector<poly::Aff> keys;
  for (size_t i = 0; i < space_; ++i) keys.push_back(poly_of(loops_[i].aff));
  const poly::Aff time = poly_of(time_);
  for (const Read& r : reads_) {
    Ure& u = ures_.at(r.func);
    if (!u.allocatable) continue;
    if (u.value_name.empty()) u.value_name = fresh(u.func + "_val");
    if (std::all_of(r.distance.begin(), r.distance.end(), [](int64_t c) { return c == 0; }))
      continue;
    auto key = std::make_pair(r.func, r.distance);
    if (storage_index_.count(key)) {
      Storage& s = storage_[storage_index_[key]];
      s.first_reader = std::min(s.first_reader, r.stmt);
      s.last_reader = std::max(s.last_reader, r.stmt);
      continue;
    }
    Storage s;
    s.func = r.func;
    s.distance = r.distance;
    s.first_reader = r.stmt;
    s.last_reader = r.stmt;
    storage_index_[key] = storage_.size();
    storage_.push_back(s);
  }
  // A URE no statement reads (hand-edited IR) is still computed, into a let of its own.
  for (auto& [func, u] : ures_)
    if (u.allocatable && u.value_name.empty()) u.value_name = fresh(u.func + "_val");
  std::map<std::string, int> count;
  int64_t offsets_left = kMaxEnumeratedOffsets;
  // Whether every PE writes one value every `period` steps at one phase: a property of the
  // kernel's domain, the same for every storage (computed once, when a storage needs it).
  std::optional<std::optional<int64_t>> period_of_domain;
  int64_t domain_step = 1, domain_phase = 0;
  for (Storage& s : storage_) {
    const Ure& u = ures_.at(s.func);
    s.time_distance = time_.dot(s.distance);
    // The values that are read: produced at x with x + d in the domain.
    poly::Set read = domain();
    for (size_t v = 0; v < isl_.size(); ++v)
      if (s.distance[v] != 0)
        read.where(poly::Cond::range(mins_[v], poly::Aff::dim(isl_[v]) + s.distance[v],
                                     mins_[v] + extents_[v]));
    // Values live from their write to the pop (fifo: the first reader) or to the last read
    // (shift register); a window of `span` steps holds them.
    auto live_until = [&](size_t reader) {
      const int64_t delta = this->delta(s.distance, reader, u.stmt);
      const int64_t span = (delta + quantum_ - 1) / quantum_ - 1;
      const int64_t limit = std::min(kMaxWindowOffsets, offsets_left);
      int64_t enumerated = 0;
      int64_t live = poly::max_points_within(read, keys, time, span, limit, &enumerated);
      if (live > kMaxWindowOffsets)
        fail("the storage for " + s.func + " at distance " + outermost_first(s.distance) +
                 " holds more than " + std::to_string(kMaxWindowOffsets) + " values per PE",
             "stt-storage");
      if (enumerated > limit)
        fail("sizing the storage of the kernel (up to the one for " + s.func + " at distance " +
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
    reg.kernel = kernel_.name;
    reg.type = u.type;
    reg.shape = shape_;
    for (size_t p = 0; p < u.arg_var.size(); ++p) reg.distance.push_back(s.distance[u.arg_var[p]]);
    reg.time_distance = s.time_distance;
    reg.naive = s.time_distance + 1;
    reg.loc = u.loc;
    // A shift register when every PE writes one value every `period` steps at one phase and
    // a shift register is exactly as large as the live values.
    // Shifting every step (period 1) is always correct: the PE shifts where it does not run,
    // so a slot number counts steps. When every PE writes one value every `period` steps at
    // one phase, shifting only at those steps needs fewer slots.
    if (!period_of_domain) {
      poly::Set all = domain();
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
    const int64_t shift_depth = period && *period == 0 ? 1 : last_delta / (step * quantum_) + 1;
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
    reg.name =
        fresh(s.func + (shift ? "_shreg" : "_fifo") + (n > 1 ? "_" + std::to_string(n) : ""));
    if (!shift) s.value_name = fresh(reg.name + "_val");
    out_.registers.push_back(reg);
  }
}

}  // namespace t2s::stt_internal
