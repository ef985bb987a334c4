// Storage: Func buffers and realizes, program inputs, and registers (shift registers and FIFOs)
// with their run-time checks and the max_live instrumentation.
#include <algorithm>
#include <new>

#include "libs/exec/interpreter_internal.h"

namespace t2s {
namespace interp {

Storage Storage::unallocated(const std::string& name, Type type, size_t dims) {
  Storage s;
  s.name = name;
  s.type = type;
  s.mins.assign(dims, 0);
  s.extents.assign(dims, 0);
  s.strides.assign(dims, 0);
  return s;
}

std::string Storage::bounds_text() const {
  std::string s;
  for (size_t d = 0; d < dims(); ++d) {
    if (d) s += " x ";
    s += "[" + std::to_string(mins[d]) + ", " + std::to_string(mins[d] + extents[d]) + ")";
  }
  return s;
}

// Sets the bounds and clears every written flag (keeping the allocation when it fits).
void Storage::allocate(const SourceLoc& loc) {
  int64_t size = 1;
  for (size_t d = 0; d < dims(); ++d) {
    if (extents[d] < 0)
      throw InternalError("interpreter: storage of '" + name + "' has negative extent " +
                          std::to_string(extents[d]));
    strides[d] = size;
    if (extents[d] != 0 && size > kMaxStorageElements / extents[d]) size = -1;
    if (size < 0) break;
    size *= extents[d];
  }
  if (size < 0 || size > kMaxStorageElements)
    throw Diagnostic(loc,
                     "storage of '" + name + "' with bounds " + bounds_text() +
                         " is too large for the interpreter (more than 2^32 elements)",
                     "run-storage-size");
  try {
    data.resize(static_cast<size_t>(size));
    written.assign(static_cast<size_t>(size), 0);
  } catch (const std::bad_alloc&) {
    throw Diagnostic(loc,
                     "not enough memory for the storage of '" + name + "' (" +
                         std::to_string(size) + " elements)",
                     "run-storage-size");
  }
}

// The index of PE `pe` (linear, Fortran order) of a PE array of shape `shape`.
std::vector<int64_t> pe_index(const std::vector<int64_t>& shape, int64_t pe) {
  std::vector<int64_t> index;
  for (int64_t d : shape) {
    index.push_back(pe % d);
    pe /= d;
  }
  return index;
}

// Fresh storage: every slot without a value, every FIFO empty.
void RegisterState::allocate(bool track) {
  const std::string& name = reg->name;
  try {
    if (reg->kind == Register::kShift) {
      if (depth > kMaxStorageElements / pes)
        throw Diagnostic(reg->loc,
                         "storage of shift register '" + name + "' (" + std::to_string(pes) +
                             " PEs x " + std::to_string(depth) +
                             " slots) is too large for the interpreter (more than 2^32 "
                             "elements)",
                         "run-storage-size");
      if (depth > kMaxStorageElements / pes / lanes)
        throw Diagnostic(reg->loc,
                         "storage of shift register '" + name + "' (" + std::to_string(pes) +
                             " PEs x " + std::to_string(depth) + " slots x " +
                             std::to_string(lanes) +
                             " lanes) is too large for the interpreter (more than 2^32 values)",
                         "run-storage-size");
      const size_t size = static_cast<size_t>(pes * depth);
      data.assign(size * static_cast<size_t>(lanes), Value{});
      written.assign(size, 0);
      head.assign(static_cast<size_t>(pes), 0);
      if (track) ids.assign(size, -1);
    } else {
      fifos.assign(static_cast<size_t>(pes), Fifo{});
      if (track) id_fifos.assign(static_cast<size_t>(pes), Fifo{});
    }
  } catch (const std::bad_alloc&) {
    throw Diagnostic(reg->loc, "not enough memory for the storage of register '" + name + "'",
                     "run-storage-size");
  }
  lives.clear();
}

// RunOptions::max_live for this register (see interpreter.h): a sweep over the write and last
// read events of the values that are read, counting live values per PE.
int64_t RegisterState::max_live() const {
  struct Event {
    uint64_t at;
    int64_t pe;
    int delta;
  };
  std::vector<Event> events;
  for (const ValueLife& v : lives) {
    if (v.last_read == 0) continue;
    events.push_back({v.write, v.pe, 1});
    events.push_back({v.last_read, v.pe, -1});
  }
  // Every event number is distinct, so the order is total.
  std::sort(events.begin(), events.end(),
            [](const Event& x, const Event& y) { return x.at < y.at; });
  std::vector<int64_t> live(static_cast<size_t>(pes), 0);
  int64_t best = 0;
  for (const Event& e : events) {
    int64_t& n = live[static_cast<size_t>(e.pe)];
    n += e.delta;
    best = std::max(best, n);
  }
  return best;
}

std::vector<Storage> buffer_templates(const Program& program) {
  std::vector<Storage> out;
  for (const Buffer& b : program.buffers)
    out.push_back(Storage::unallocated(b.name, b.type, b.mins.size()));
  return out;
}

void Exec::uncomputed(const Storage& s, int64_t linear, const SourceLoc* loc) {
  std::vector<int64_t> index(s.dims());
  for (size_t d = 0; d < s.dims(); ++d) {
    index[d] = s.mins[d] + linear % s.extents[d];
    linear /= s.extents[d];
  }
  throw Diagnostic(*loc,
                   "read of '" + s.name + "' at " + format_index(index) + " before it was computed",
                   "run-uncomputed");
}

// The element of input `in` at `index` (dims values); run-input-bounds when outside. Shared by
// scalar reads and the lanes of gathers.
Value Exec::load_image_at(const InputView& in, const int64_t* index, size_t dims,
                          const SourceLoc* loc) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims; ++d) {
    if (index[d] < 0 || index[d] >= in.shape[d])
      throw Diagnostic(*loc,
                       "read of input '" + in.name + "' at " +
                           format_index(std::vector<int64_t>(index, index + dims)) +
                           " is outside its extents " + format_index(in.shape),
                       "run-input-bounds");
    linear += index[d] * in.strides[d];
  }
  return load_element(in.elem, in.data + static_cast<size_t>(linear) * in.element_size);
}

Value Exec::load_image(const Node* n) {
  const InputView& in = run_.inputs[n->slot];
  int64_t index[kMaxDims];
  const size_t dims = n->args.size();
  for (size_t d = 0; d < dims; ++d) index[d] = eval(n->args[d]).i;
  return load_image_at(in, index, dims, n->loc);
}

// Evaluates the PE index in `args` (then the slot into `*slot`, unless `slot` is null) of
// register `r` and returns the PE's linear number; `run-register-bounds` when outside.
int64_t Exec::register_pe(const RegisterState& r, const std::vector<const Node*>& args,
                          int64_t* slot, const char* what, const SourceLoc* loc) {
  int64_t index[kMaxDims];
  const size_t n = args.size();
  for (size_t d = 0; d < n; ++d) index[d] = eval(args[d]).i;
  const std::vector<int64_t>& shape = r.reg->shape;
  bool inside = true;
  int64_t pe = 0, stride = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d]) inside = false;
    pe += index[d] * stride;
    stride *= shape[d];
  }
  if (slot) {
    *slot = index[shape.size()];
    if (*slot < 0 || *slot >= r.depth) inside = false;
  }
  if (!inside)
    throw Diagnostic(*loc,
                     std::string(what) + " '" + r.reg->name + "' at " +
                         format_index(std::vector<int64_t>(index, index + n)) +
                         " is outside its PE array " + format_index(shape) +
                         (slot ? " x " + std::to_string(r.depth) + " slots" : ""),
                     "run-register-bounds");
  return pe;
}

// Tracking: a new value written to PE `pe` of `r`; returns its id.
int64_t Exec::new_value(RegisterState& r, int64_t pe) {
  ValueLife v;
  v.pe = pe;
  v.write = ++events_;
  r.lives.push_back(v);
  return static_cast<int64_t>(r.lives.size()) - 1;
}

void Exec::read_value(RegisterState& r, int64_t id) {
  r.lives[static_cast<size_t>(id)].last_read = ++events_;
}

// The position of the shift-register slot the read `n` names, refused while nothing has
// reached it; tracks the read. (Scalar and vector reads.)
int64_t Exec::register_read_at(const Node* n, RegisterState& r) {
  int64_t slot = 0;
  const int64_t pe = register_pe(r, n->args, &slot, "read of shift register", n->loc);
  const int64_t at = r.position(pe, slot);
  if (!r.written[at])
    throw Diagnostic(*n->loc,
                     "read of slot " + std::to_string(slot) + " of shift register '" + r.reg->name +
                         "' of PE " + format_index(pe_index(r.reg->shape, pe)) +
                         " before any value reached it",
                     "run-register-unwritten");
  if (track_) read_value(r, r.ids[at]);
  return at;
}

// After a value was stored in slot position `at` of PE `pe`.
void Exec::register_written(RegisterState& r, int64_t at, int64_t pe) {
  r.written[at] = 1;
  if (track_) r.ids[at] = new_value(r, pe);
}

Value Exec::load_register(const Node* n) {
  RegisterState& r = regs_[n->slot];
  return r.data[register_read_at(n, r)];
}

void Exec::provide_register(const SNode* s) {
  if (s->a->lanes > 1) return provide_register_vec(s);
  RegisterState& r = regs_[s->slot];
  int64_t slot = 0;
  const int64_t pe = register_pe(r, s->args, &slot, "write of shift register", s->loc);
  const Value v = eval(s->a);
  const int64_t at = r.position(pe, slot);
  r.data[at] = v;
  register_written(r, at, pe);
}

void Exec::shift(const SNode* s) {
  RegisterState& r = regs_[s->slot];
  const int64_t pe = register_pe(r, s->args, nullptr, "shift of shift register", s->loc);
  if (r.depth == 1) return;
  // Slot m takes slot m - 1: the ring's head moves back one place, onto the old deepest slot
  // (whose value is dropped), which then takes slot 0's value (slot 0 keeps it).
  int64_t& head = r.head[static_cast<size_t>(pe)];
  const int64_t from = r.position(pe, 0);
  head = head == 0 ? r.depth - 1 : head - 1;
  const int64_t to = r.position(pe, 0);
  if (r.lanes == 1)
    r.data[to] = r.data[from];
  else
    for (int64_t l = 0; l < r.lanes; ++l) r.data[to * r.lanes + l] = r.data[from * r.lanes + l];
  r.written[to] = r.written[from];
  if (track_) r.ids[to] = r.ids[from];
}

// Refuses a push to FIFO `f` of PE `pe` when it holds its depth (of r.lanes-value vectors).
void Exec::check_room(const SNode* s, const RegisterState& r, const Fifo& f, int64_t pe) {
  if (static_cast<int64_t>(f.count) >= r.depth * r.lanes)
    throw Diagnostic(*s->loc,
                     "FIFO '" + r.reg->name + "' of PE " +
                         format_index(pe_index(r.reg->shape, pe)) +
                         " overflows: it already holds its depth of " + std::to_string(r.depth) +
                         " value" + (r.depth == 1 ? "" : "s"),
                     "run-fifo-overflow");
}

// After a push to PE `pe`'s FIFO.
void Exec::pushed(RegisterState& r, int64_t pe) {
  if (!track_) return;
  Value id;
  id.i = new_value(r, pe);
  r.id_fifos[static_cast<size_t>(pe)].push(id);
}

// The FIFO the pop `n` reads, refused when empty; tracks the read.
Fifo& Exec::fifo_to_pop(const Node* n, RegisterState& r) {
  const int64_t pe = register_pe(r, n->args, nullptr, "pop from FIFO", n->loc);
  Fifo& f = r.fifos[static_cast<size_t>(pe)];
  if (f.count == 0)
    throw Diagnostic(*n->loc,
                     "pop from FIFO '" + r.reg->name + "' of PE " +
                         format_index(pe_index(r.reg->shape, pe)) + ", which is empty",
                     "run-fifo-empty");
  if (track_) read_value(r, r.id_fifos[static_cast<size_t>(pe)].pop().i);
  return f;
}

void Exec::push(const SNode* s) {
  if (s->a->lanes > 1) return push_vec(s);
  RegisterState& r = regs_[s->slot];
  const int64_t pe = register_pe(r, s->args, nullptr, "push to FIFO", s->loc);
  const Value v = eval(s->a);
  Fifo& f = r.fifos[static_cast<size_t>(pe)];
  check_room(s, r, f, pe);
  f.push(v);
  pushed(r, pe);
}

Value Exec::pop(const Node* n) {
  RegisterState& r = regs_[n->slot];
  return fifo_to_pop(n, r).pop();
}

}  // namespace interp
}  // namespace t2s
