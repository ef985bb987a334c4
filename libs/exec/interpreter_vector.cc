// Vector values (docs/ir.md, "Vector values (the vectorized stage)"): a vector expression of N
// lanes evaluates to N scalar values, lane l of each operation computed by the scalar
// operations of values.cc, so vector code gives the bits of its scalar version. Every operand
// of a vector operation is evaluated once, as a whole vector, left to right (a vector select
// evaluates both values, as a blend does); let-bound vector values, vector register elements
// and vector channel elements hold N values.
#include <mutex>

#include "libs/exec/interpreter_internal.h"

namespace t2s {
namespace interp {

__attribute__((noinline)) Value Exec::extract(const Node* n) {
  Value lanes[kMaxLanes];
  eval_vec(n->a, lanes);
  return lanes[n->slot];
}

void Exec::eval_vec(const Node* n, Value* out) {
  const int lanes = n->lanes;
  switch (n->op) {
    case Op::kVVar:
      for (int l = 0; l < lanes; ++l) out[l] = vars_[static_cast<size_t>(n->slot + l)];
      return;
    case Op::kVBroadcast: {
      if (n->a->lanes != 1) {  // of a vector or tensor: copies of it as an outer dimension
        const int inner = n->a->lanes;
        eval_vec(n->a, out);
        for (int l = inner; l < lanes; ++l) out[l] = out[l % inner];
        return;
      }
      const Value v = eval(n->a);
      for (int l = 0; l < lanes; ++l) out[l] = v;
      return;
    }
    case Op::kVRamp: {
      // int32 arithmetic, wrapping as kAddS and kMulS do: base + l * stride.
      if (n->a->lanes != 1) {  // nested: copy r of the base is base + r * stride, lane by lane
        const int inner = n->a->lanes;
        Value base[kMaxLanes], stride[kMaxLanes];
        eval_vec(n->a, base);
        eval_vec(n->b, stride);
        for (int l = 0; l < lanes; ++l)
          out[l].i = wrap_s(
              base[l % inner].u + static_cast<uint64_t>(l / inner) * stride[l % inner].u, 32);
        return;
      }
      const uint64_t base = eval(n->a).u, stride = eval(n->b).u;
      for (int l = 0; l < lanes; ++l)
        out[l].i = wrap_s(base + static_cast<uint64_t>(l) * stride, 32);
      return;
    }
    case Op::kVSlice: {
      Value v[kMaxLanes];
      eval_vec(n->a, v);
      for (int l = 0; l < lanes; ++l) out[l] = v[n->slot + l];
      return;
    }
    case Op::kVConcat: {
      int at = 0;
      for (const Node* part : n->args) {
        if (part->lanes == 1)
          out[at] = eval(part);
        else
          eval_vec(part, out + at);
        at += part->lanes;
      }
      return;
    }
    case Op::kVSelect:
      return eval_vec(n->args[eval(n->a).u ? 0 : 1], out);
    case Op::kVMap: {
      Value v[3][kMaxLanes];
      const size_t k = n->args.size();
      for (size_t i = 0; i < k; ++i) eval_vec(n->args[i], v[i]);
      for (int l = 0; l < lanes; ++l) {
        for (size_t i = 0; i < k; ++i) vars_[static_cast<size_t>(n->slot) + i] = v[i][l];
        out[l] = eval(n->lane);
      }
      return;
    }
    case Op::kVLoadFunc: {
      int64_t index[kMaxLanes][kMaxDims];
      gather_index(n->args, lanes, index);
      Storage& s = *storage_[n->slot];
      for (int l = 0; l < lanes; ++l) {
        const int64_t i = element_at(s, index[l], false, n->loc);
        if (!s.written[i]) uncomputed(s, i, n->loc);
        out[l] = s.data[i];
      }
      return;
    }
    case Op::kVLoadImage: {
      int64_t index[kMaxLanes][kMaxDims];
      gather_index(n->args, lanes, index);
      const InputView& in = run_.inputs[n->slot];
      for (int l = 0; l < lanes; ++l) out[l] = load_image_at(in, index[l], n->args.size(), n->loc);
      return;
    }
    case Op::kVReadChannel:
      return read_channel_vec(n, out);
    case Op::kVLoadRegister:
      return load_register_vec(n, out);
    case Op::kVPop:
      return pop_vec(n, out);
    default:
      throw InternalError("interpreter: a scalar operation evaluated as a vector");
  }
}

void Exec::gather_index(const std::vector<const Node*>& args, int lanes,
                        int64_t (*index)[kMaxDims]) {
  for (size_t d = 0; d < args.size(); ++d) {
    if (args[d]->lanes == 1) {
      const int64_t v = eval(args[d]).i;
      for (int l = 0; l < lanes; ++l) index[l][d] = v;
    } else {
      Value v[kMaxLanes];
      eval_vec(args[d], v);
      for (int l = 0; l < lanes; ++l) index[l][d] = v[l].i;
    }
  }
}

// A provide with vector indices: the index, then the value, are evaluated; lane 0 is stored
// first, so where two lanes name one element the last lane's value stays.
void Exec::scatter(const SNode* s) {
  const int lanes = s->lanes;
  int64_t index[kMaxLanes][kMaxDims];
  gather_index(s->args, lanes, index);
  Value v[kMaxLanes];
  eval_vec(s->a, v);
  Storage& st = *storage_[s->slot];
  for (int l = 0; l < lanes; ++l) {
    const int64_t i = element_at(st, index[l], true, s->loc);
    st.data[i] = v[l];
    st.written[i] = 1;
  }
}

void Exec::write_channel_vec(const SNode* s) {
  ChannelState& c = run_.channels[s->slot];
  const int64_t fi = fifo_index(c, s->args, 0);
  const int lanes = s->a->lanes;
  Value v[kMaxLanes];
  eval_vec(s->a, v);
  Fifo& f = c.fifos[fi];
  std::unique_lock<std::mutex> lock(group_->mutex);
  // The FIFO holds `lanes` values per element (capacity depth * lanes); a writer that finds it
  // full waits as for a scalar, and the reader of a partial element waits for the rest.
  for (int l = 0; l < lanes; ++l) {
    while (f.count >= c.capacity) group_->wait(lock, member_, c, fi, true, s->loc);
    f.push(v[l]);
    if (f.waiting_reader >= 0) {
      group_->wake(f.waiting_reader);
      f.waiting_reader = -1;
    }
  }
}

void Exec::read_channel_vec(const Node* n, Value* out) {
  ChannelState& c = run_.channels[n->slot];
  const int64_t fi = fifo_index(c, n->args, 1);
  Fifo& f = c.fifos[fi];
  std::unique_lock<std::mutex> lock(group_->mutex);
  for (int l = 0; l < n->lanes; ++l) {
    while (f.count == 0) group_->wait(lock, member_, c, fi, false, n->loc);
    out[l] = f.pop();
    if (f.waiting_writer >= 0) {
      group_->wake(f.waiting_writer);
      f.waiting_writer = -1;
    }
  }
}

void Exec::load_register_vec(const Node* n, Value* out) {
  RegisterState& r = regs_[n->slot];
  const int64_t at = register_read_at(n, r);
  for (int64_t l = 0; l < r.lanes; ++l) out[l] = r.data[at * r.lanes + l];
}

void Exec::provide_register_vec(const SNode* s) {
  RegisterState& r = regs_[s->slot];
  int64_t slot = 0;
  const int64_t pe = register_pe(r, s->args, &slot, "write of shift register", s->loc);
  Value v[kMaxLanes];
  eval_vec(s->a, v);  // into a temporary: the value may read the slot it replaces
  const int64_t at = r.position(pe, slot);
  for (int64_t l = 0; l < r.lanes; ++l) r.data[at * r.lanes + l] = v[l];
  register_written(r, at, pe);
}

void Exec::push_vec(const SNode* s) {
  RegisterState& r = regs_[s->slot];
  const int64_t pe = register_pe(r, s->args, nullptr, "push to FIFO", s->loc);
  Value v[kMaxLanes];
  eval_vec(s->a, v);
  Fifo& f = r.fifos[static_cast<size_t>(pe)];
  check_room(s, r, f, pe);
  for (int64_t l = 0; l < r.lanes; ++l) f.push(v[l]);
  pushed(r, pe);
}

void Exec::pop_vec(const Node* n, Value* out) {
  RegisterState& r = regs_[n->slot];
  Fifo& f = fifo_to_pop(n, r);
  for (int64_t l = 0; l < r.lanes; ++l) out[l] = f.pop();
}

}  // namespace interp
}  // namespace t2s
