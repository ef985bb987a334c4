// Step 5 of t2s-vec (seed 002 1.1): channels whose ends have different lanes are matched. The
// channel carries the narrower end's lanes; the wider end concatenates several reads, or writes
// its vector as several slices, which keeps the FIFO's order.
#include <algorithm>
#include <map>
#include <set>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

// The lanes and the types of the values written to each channel.
class ChannelWrites : public StmtVisitor {
 public:
  ChannelWrites(std::map<std::string, std::set<int>>* lanes,
                std::map<std::string, std::set<std::string>>* types)
      : lanes_(lanes), types_(types) {}

 protected:
  void visit_write_channel(const WriteChannel& w, const Stmt&) override {
    (*lanes_)[w.channel].insert(w.value->type.lanes);
    (*types_)[w.channel].insert(w.value->type.name());
  }

 private:
  std::map<std::string, std::set<int>>* lanes_;
  std::map<std::string, std::set<std::string>>* types_;
};

// The reads and writes of the channels in `width` (name -> the lanes it carries) as reads and
// writes of that many lanes.
class ChannelOps : public StmtMutator {
 public:
  ChannelOps(const std::map<std::string, int>& width, const std::map<std::string, Type>& types,
             NameSupply& names)
      : width_(width), types_(types), names_(names) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    if (e->call_kind != CallKind::kChannel) return mutate_operands(e);
    auto it = width_.find(e->operands[0]->name);
    if (it == width_.end()) return e;
    const Type channel = types_.at(e->operands[0]->name);
    if (e->type.lanes == it->second)  // one read, reshaped when the channel's shape differs
      return reshaped(make_call(e->name, CallKind::kChannel, channel, e->operands, e->loc),
                      e->type);
    if (e->type.lanes < it->second) return e;
    std::vector<Expr> parts;
    for (int i = 0; i < e->type.lanes / it->second; ++i)
      parts.push_back(make_call(e->name, CallKind::kChannel, channel, e->operands, e->loc));
    return reshaped(
        make_call("concat", CallKind::kIntrinsic, e->type.with_lanes(e->type.lanes), parts, e->loc),
        e->type);
  }

  StmtPtr mutate_write_channel(const WriteChannel& n, const StmtPtr& s) override {
    WriteChannel w = n;  // with the channel reads of its operands rewritten first
    for (Expr& i : w.index) i = mutate(i);
    w.value = mutate(w.value);
    auto it = width_.find(w.channel);
    if (it != width_.end() && w.value->type.lanes == it->second &&
        w.value->type != types_.at(w.channel))
      return make_write_channel(w.channel, w.index, reshaped(w.value, types_.at(w.channel)),
                                s->loc);
    if (it == width_.end() || w.value->type.lanes <= it->second) return with_node(*s, std::move(w));
    const std::string tmp_name = names_.fresh("ch_value");
    const Expr v = make_var(tmp_name, w.value->type, s->loc);
    StmtList writes;
    for (int at = 0; at < w.value->type.lanes; at += it->second)
      writes.push_back(make_write_channel(
          w.channel, w.index,
          make_call("slice", CallKind::kIntrinsic, v->type.with_lanes(it->second),
                    {v, lit32(at), lit32(it->second)}, s->loc),
          s->loc));
    return make_let(tmp_name, w.value, writes, s->loc);
  }

 private:
  const std::map<std::string, int>& width_;
  const std::map<std::string, Type>& types_;
  NameSupply& names_;
};

}  // namespace

Program match_channels(const Program& program, NameSupply& names,
                       std::vector<std::string>* report) {
  Program out = program;
  std::map<std::string, std::set<int>> read_lanes, write_lanes;
  std::map<std::string, std::set<std::string>> read_types, write_types;  // tensor shapes
  for (const Kernel& k : out.kernels) {
    ChannelWrites(&write_lanes, &write_types).visit_stmts(k.body);
    for_each_stmt_expr(k.body, [&](const Expr& x) {
      if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kChannel) {
        read_lanes[x->operands[0]->name].insert(x->type.lanes);
        read_types[x->operands[0]->name].insert(x->type.name());
      }
    });
  }
  std::map<std::string, int> width;
  std::map<std::string, Type> types;  // the vector channels' types
  for (Channel& c : out.channels) {
    const std::set<int>& w = write_lanes[c.name];
    const std::set<int>& r = read_lanes[c.name];
    if (w.size() > 1 || r.size() > 1)
      throw Diagnostic(c.loc,
                       "channel '" + c.name + "' is " + (w.size() > 1 ? "written" : "read") +
                           " with different lane counts",
                       "vec-lanes");
    const int wl = w.empty() ? 1 : *w.begin(), rl = r.empty() ? 1 : *r.begin();
    if (wl == 1 && rl == 1) continue;
    const int narrow = std::min(wl, rl), wide = std::max(wl, rl);
    if (wide % narrow != 0) {
      Diagnostic d(c.loc,
                   "channel '" + c.name + "': its writer '" + c.producer + "' sends " +
                       std::to_string(wl) + " lane" + (wl == 1 ? "" : "s") +
                       " per write and its reader '" + c.consumer + "' takes " +
                       std::to_string(rl) + " per read; neither is a multiple of the other",
                   "vec-lanes");
      for (const auto& [kernel, n] : {std::pair{c.producer, wl}, std::pair{c.consumer, rl}}) {
        const SourceLoc at = vectorize_directive_loc(program, kernel, "", {});
        if (n > 1 && at.valid())
          d.add_note(at,
                     "'" + kernel + "' has " + std::to_string(n) + " lanes from this vectorize");
      }
      throw d;
    }
    width[c.name] = narrow;
    c.type = c.type.with_lanes(narrow);
    // Ends of one tensor type share it; other ends reshape to and from the flat lanes.
    const std::set<std::string>& wt = write_types[c.name];
    if (wl == rl && wt.size() == 1 && (read_types[c.name].empty() || read_types[c.name] == wt))
      c.type = *Type::from_name(*wt.begin());
    types[c.name] = c.type;
    const std::string how = wl == rl ? "both ends use " + std::to_string(wl) + " lanes"
                            : wl < rl
                                ? "the reader concatenates " + std::to_string(rl / wl) +
                                      " reads of " + std::to_string(wl)
                                : "the writer sends its " + std::to_string(wl) + " lanes as " +
                                      std::to_string(wl / rl) + " slices of " + std::to_string(rl);
    report->push_back("channel " + c.name + ": " + c.type.name() + " (" + how + ")");
  }
  if (width.empty()) return out;
  ChannelOps ops(width, types, names);
  for (Kernel& k : out.kernels) k.body = ops.mutate_stmts(k.body);
  return out;
}

}  // namespace t2s::vec_internal
