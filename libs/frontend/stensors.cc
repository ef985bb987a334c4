// The lowering of Stensor chains to directives (docs/language.md, "Stensor chains"). It follows
// T2SP's Stensor.cpp (RealizeOnFPGA) step by step; where we differ, the comment says why.
#include "libs/frontend/stensors.h"

#include <algorithm>
#include <map>
#include <set>

#include "libs/ir/strings.h"
#include "libs/ir/visitor.h"

namespace t2s::frontend_internal {

const char* stensor_position_name(StensorPosition p) {
  switch (p) {
    case StensorPosition::kHost:
      return "HOST";
    case StensorPosition::kDram:
      return "DRAM";
    case StensorPosition::kSram:
      return "SRAM";
    case StensorPosition::kReg:
      return "REG";
  }
  return "HOST";
}

namespace {

// The Vars in the arguments of the calls to one ImageParam (T2SP's FindUsedVars).
class ImageVars : public ExprVisitor {
 public:
  explicit ImageVars(std::string image) : image_(std::move(image)) {}
  std::set<std::string> vars;

 protected:
  void visit_var(const Expr& e) override {
    if (inside_) vars.insert(e->name);
  }
  void visit_call(const Expr& e) override {
    bool was = inside_;
    if (e->call_kind == CallKind::kImage && e->name == image_) inside_ = true;
    visit_operands(e);
    inside_ = was;
  }

 private:
  std::string image_;
  bool inside_ = false;
};

// What a chain lowers against: the array T2SP's FindVars finds (the Func with merged UREs).
struct Array {
  std::string ure;
  std::vector<std::string> group;          // the URE and the UREs merged into it
  std::vector<std::string> loops;          // its loops, innermost first
  std::vector<std::string> space;          // the space loops of its first space_time_transform
  std::map<std::string, int64_t> extents;  // set_bounds on it
  std::set<std::string> vectorized;        // loops it vectorizes itself

  int index(const std::string& v) const {
    auto it = std::find(loops.begin(), loops.end(), v);
    return it == loops.end() ? -1 : static_cast<int>(it - loops.begin());
  }
  bool is_space(const std::string& v) const {
    return std::find(space.begin(), space.end(), v) != space.end();
  }
};

[[noreturn]] void fail(const SourceLoc& loc, const std::string& message, const char* rule) {
  throw Diagnostic(loc, message, rule);
}

Array find_array(const Program& p, const SourceLoc& loc) {
  Array a;
  SourceLoc merge_loc;
  for (const Directive& d : p.directives) {
    if (!d.is(DirectiveKind::kMergeUres)) continue;
    if (!a.ure.empty()) {
      Diagnostic diag(d.loc,
                      "Stensor chains lower against one array of merged UREs; '" + a.ure +
                          "' and '" + d.func + "' both merge UREs",
                      "stensor-chain");
      diag.add_note(merge_loc, "the first merge is here");
      throw diag;
    }
    a.ure = d.func;
    merge_loc = d.loc;
    a.group.push_back(d.func);
    for (const DirectiveArg& g : d.args) a.group.push_back(g.text);
  }
  if (a.ure.empty())
    fail(loc,
         "Stensor chains lower against the array's merged UREs, and no Func applies "
         "merge_ures (T2SP: \"Do you forget to apply merge_ures?\")",
         "stensor-chain");
  a.loops = p.find_func(a.ure)->args;
  for (const Directive& d : p.directives) {
    if (d.func != a.ure) continue;
    if (d.is(DirectiveKind::kSpaceTimeTransform) && a.space.empty())
      for (const DirectiveArg& v : d.args[0].items) a.space.push_back(v.text);
    if (d.is(DirectiveKind::kSetBounds))
      for (size_t i = 0; i + 2 < d.args.size(); i += 3)
        if (auto e = d.args[i + 2].integer()) a.extents[d.args[i].text] = *e;
    if (d.is(DirectiveKind::kVectorize)) a.vectorized.insert(d.args[0].text);
  }
  return a;
}

DirectiveArg name_arg(const std::string& n) { return DirectiveArg::expr(n); }

class ChainLowering {
 public:
  ChainLowering(const Program& p, const Array& a, StensorLowering* out)
      : program_(p), array_(a), out_(out) {}

  void lower(StensorChain c) {
    check_loops(c);
    if (c.output) {
      lower_output(c);
    } else {
      check_inclusiveness(c);
      lower_input(c);
    }
  }

 private:
  void emit(const std::string& func, const char* directive, std::vector<DirectiveArg> args,
            const SourceLoc& loc) {
    out_->directives.push_back({func, directive, std::move(args), loc});
  }

  void add_func(const Stensor& s) {
    Func f;
    f.name = s.name;
    f.place = s.position == StensorPosition::kHost ? Place::kHost : Place::kDevice;
    f.loc = s.chain_loc;
    f.decl_loc = s.loc;
    out_->funcs.push_back(f);
  }

  // Every loop a Stensor names is a loop of the array; out() splits into a bank width (a loop
  // that is not a space loop: vectorized) and banks (space loops), as T2SP's find_banks.
  void check_loops(StensorChain& c) {
    for (StensorLink& l : c.links) {
      Stensor& s = l.stensor;
      auto check = [&](const std::string& v, const SourceLoc& at, const char* what) {
        if (array_.index(v) < 0)
          fail(at,
               "Stensor '" + s.handle + "': " + what + " '" + v + "' is not a loop of the array '" +
                   array_.ure + "' (its loops: " + join(array_.loops, ", ") + ")",
               "stensor-scope");
      };
      if (!s.scope.empty()) check(s.scope, s.scope_loc, "the scope");
      for (size_t i = 0; i < s.banks.size(); ++i) {
        check(s.banks[i], s.bank_locs[i], "the bank loop");
        if (!array_.is_space(s.banks[i]))
          fail(s.bank_locs[i],
               "Stensor '" + s.handle + "': the bank loop '" + s.banks[i] +
                   "' is not a space loop of the array '" + array_.ure + "' (" +
                   (array_.space.empty() ? "it has no space_time_transform"
                                         : "its space loops: " + join(array_.space, ", ")) +
                   ")",
               "stensor-out");
      }
      std::string width;
      for (size_t i = 0; i < s.outs.size(); ++i) {
        check(s.outs[i], s.out_locs[i], "the out loop");
        if (array_.is_space(s.outs[i])) {
          s.banks.push_back(s.outs[i]);
          s.bank_locs.push_back(s.out_locs[i]);
        } else if (width.empty()) {
          width = s.outs[i];
        } else {
          fail(s.out_locs[i],
               "Stensor '" + s.handle + "': out() packs one loop as the bank width, and '" + width +
                   "' and '" + s.outs[i] + "' are both loops outside the array's space loops",
               "stensor-out");
        }
      }
      widths_[s.name] = width;
    }
  }

  // The scope of a Stensor of an input chain lies inside its predecessor's (an inclusive
  // cache); a Stensor without a scope inherits its predecessor's, the first the outermost loop.
  void check_inclusiveness(StensorChain& c) {
    int outer = static_cast<int>(array_.loops.size()) - 1;
    std::string outer_name;
    for (StensorLink& l : c.links) {
      Stensor& s = l.stensor;
      if (s.scope.empty()) {
        s.scope = array_.loops[outer];
        continue;
      }
      int j = array_.index(s.scope);
      if (j == 0)
        fail(s.scope_loc,
             "Stensor '" + s.handle + "': the scope '" + s.scope +
                 "' is the array's innermost loop; the storage of a Stensor lives at a loop with "
                 "loops inside it",
             "stensor-scope");
      if (j > outer)
        fail(s.scope_loc,
             "Stensor '" + s.handle + "': the scope '" + s.scope + "' is outside the scope '" +
                 outer_name +
                 "' of the Stensor before it (a Stensor of an input chain holds part "
                 "of what its predecessor holds)",
             "stensor-scope");
      outer = j;
      outer_name = s.scope;
    }
  }

  // The loops below `scope` (innermost first) that the input's indices do not use: each value
  // is reused across them (T2SP's find_reuse_vars).
  std::vector<std::string> reuse_loops(const std::string& input, const std::string& scope) {
    ImageVars used(input);
    for (const std::string& g : array_.group) {
      const Func* f = program_.find_func(g);
      if (f && f->definition) used.visit(f->definition);
    }
    std::vector<std::string> loops;
    for (const std::string& v : array_.loops) {
      if (v == scope) break;
      if (!used.vars.count(v)) loops.push_back(v);
    }
    return loops;
  }

  // An input chain: isolate_producer_chain, remove, scatter, buffer, vectorize, min_depth.
  void lower_input(const StensorChain& c) {
    const std::vector<StensorLink>& links = c.links;
    // T2SP puts a host serializer first when the chain starts on the device; the first device
    // Stensor here reads the ImageParam from global memory itself (docs/language.md).
    std::vector<DirectiveArg> chain{name_arg(c.source)};
    for (const StensorLink& l : links) {
      add_func(l.stensor);
      chain.push_back(name_arg(l.stensor.name));
    }
    emit(array_.ure, "isolate_producer_chain", chain, c.loc);

    // remove: each producer drops the loops below the next Stensor's scope that the input does
    // not use; a host producer keeps its loops (its buffer is read by index).
    std::string scope = links.back().stensor.scope;
    for (int i = static_cast<int>(links.size()) - 2; i >= 0; --i) {
      const Stensor& s = links[i].stensor;
      std::vector<std::string> loops = reuse_loops(c.source, scope);
      if (!loops.empty() && s.position != StensorPosition::kHost) {
        std::vector<DirectiveArg> args;
        for (const std::string& v : loops) args.push_back(name_arg(v));
        emit(s.name, "remove", args, s.chain_loc);
      }
      scope = s.scope;
    }

    // scatter where the banks grow by one loop.
    for (size_t i = 1; i < links.size(); ++i) {
      const Stensor& prev = links[i - 1].stensor;
      const Stensor& s = links[i].stensor;
      if (s.banks.size() != prev.banks.size() + 1) continue;
      for (const std::string& b : s.banks)
        if (std::find(prev.banks.begin(), prev.banks.end(), b) == prev.banks.end()) {
          emit(s.name, "scatter", {name_arg(prev.name), name_arg(b)}, s.chain_loc);
          break;
        }
    }

    // buffer at each SRAM Stensor's scope.
    for (size_t i = 0; i < links.size(); ++i) {
      const Stensor& s = links[i].stensor;
      if (s.position != StensorPosition::kSram) continue;
      if (i == 0)
        fail(s.chain_loc,
             "Stensor '" + s.handle +
                 "': an SRAM Stensor double-buffers what the Stensor before it sends, and it is "
                 "the first of its chain (put a DRAM Stensor before it)",
             "stensor-chain");
      emit(s.name, "buffer", {name_arg(links[i - 1].stensor.name), name_arg(s.scope)}, s.chain_loc);
    }

    // vectorize each bank width, and the array's loop that the last Stensor packs.
    for (const StensorLink& l : links) vectorize(l.stensor, widths_[l.stensor.name]);
    const std::string& last = widths_[links.back().stensor.name];
    if (!last.empty() && !array_.vectorized.count(last) && !vectorized_array_.count(last)) {
      emit(array_.ure, "vectorize", {name_arg(last)}, links.back().stensor.chain_loc);
      vectorized_array_.insert(last);
    }
    for (const StensorLink& l : links) min_depth(l);
  }

  void vectorize(const Stensor& s, const std::string& loop) {
    // A host Func reads the device's buffer element by element: T2SP's vectorize of a host
    // Stensor has no effect on the values, and we do not vectorize host Funcs.
    if (loop.empty() || s.position == StensorPosition::kHost) return;
    if (!vectorized_.insert({s.name, loop}).second) return;  // the bank and the width agree
    emit(s.name, "vectorize", {name_arg(loop)}, s.chain_loc);
  }

  void min_depth(const StensorLink& l) {
    if (l.fifo_depth > 0)
      emit(l.stensor.name, "min_depth", {DirectiveArg::expr(std::to_string(l.fifo_depth))},
           l.fifo_loc);
  }

  // An output chain: isolate_consumer(_chain), gather where the banks shrink, vectorize,
  // min_depth; a host Stensor last (T2SP adds `<source>_deserializer` when there is none).
  void lower_output(StensorChain c) {
    std::vector<StensorLink>& links = c.links;
    if (links.back().stensor.position != StensorPosition::kHost) {
      StensorLink host;
      host.stensor.handle = host.stensor.name = c.source + "_deserializer";
      host.stensor.loc = host.stensor.chain_loc = links.back().stensor.chain_loc;
      links.push_back(host);
    }
    for (size_t i = 0; i + 1 < links.size(); ++i)
      if (links[i].stensor.position == StensorPosition::kHost)
        fail(links[i].stensor.chain_loc,
             "Stensor '" + links[i].stensor.handle +
                 "' is on the host, and only the last Stensor of an output chain may be (the "
                 "result); give it DRAM, SRAM or REG",
             "stensor-chain");
    for (const StensorLink& l : links) add_func(l.stensor);
    const Stensor& first = links[0].stensor;
    std::vector<DirectiveArg> consumers;
    auto names = [&](size_t from) {
      std::vector<DirectiveArg> v;
      for (size_t i = from; i < links.size(); ++i) v.push_back(name_arg(links[i].stensor.name));
      return v;
    };
    size_t gather_from = 0;  // the links the bank-shrinking gathers walk
    if (first.banks.size() == 1) {
      // T2SP relays the array's results along the other space loops inside the array (relay)
      // into one channel per bank. We build the same data path outside the array: the first
      // Stensor inherits the array's PEs and gathers along the other space loop, so that one
      // channel per bank leaves it, and the Stensors after it read a vector of the banks.
      if (links.size() < 2 || links[1].stensor.position != StensorPosition::kDram)
        fail(links.size() < 2 ? first.chain_loc : links[1].stensor.chain_loc,
             "Stensor '" + first.handle +
                 "' has one bank loop, so its results leave the array one channel per bank, "
                 "which a DRAM Stensor must take next (T2SP's relay)",
             "stensor-chain");
      const std::string& bank = first.banks[0];
      emit(c.source, "isolate_consumer_chain", names(0), c.loc);
      std::vector<std::string> others;
      for (const std::string& v : array_.space)
        if (v != bank) others.push_back(v);
      if (others.size() > 1)
        fail(first.bank_locs[0],
             "Stensor '" + first.handle + "': the array has " +
                 std::to_string(array_.space.size()) +
                 " space loops; a one-bank output Stensor relays along one other space loop "
                 "(give banks of all but one)",
             "stensor-out");
      if (!others.empty())
        emit(first.name, "gather", {name_arg(c.source), name_arg(others[0])}, first.chain_loc);
      min_depth(links[0]);
      for (size_t i = 1; i < links.size(); ++i) vectorize(links[i].stensor, bank);
      gather_from = 1;
    } else if (first.banks.size() == 2) {
      // The first Stensor gets a transform of its own over its banks: the array's output URE
      // has fewer loops than the array (T2SP's isolate_consumer + space_time_transform).
      emit(c.source, "isolate_consumer", {name_arg(first.name)}, c.loc);
      std::vector<DirectiveArg> banks;
      for (const std::string& b : first.banks) banks.push_back(name_arg(b));
      emit(first.name, "space_time_transform", banks, first.chain_loc);
      if (links.size() > 1) emit(first.name, "isolate_consumer_chain", names(1), first.chain_loc);
    } else if (first.banks.empty()) {
      emit(c.source, "isolate_consumer_chain", names(0), c.loc);
    } else {
      fail(first.bank_locs[2],
           "Stensor '" + first.handle + "' has " + std::to_string(first.banks.size()) +
               " bank loops; the first Stensor of an output chain has 0, 1 or 2",
           "stensor-out");
    }
    // gather where the banks shrink by one loop; a gather into no banks also packs the
    // gathered loop as a vector, in the gatherer and the Stensor after it.
    for (size_t i = gather_from + 1; i < links.size(); ++i) {
      const Stensor& prev = links[i - 1].stensor;
      const Stensor& s = links[i].stensor;
      if (s.banks.size() + 1 != prev.banks.size()) continue;
      std::string dropped;
      for (const std::string& b : prev.banks)
        if (std::find(s.banks.begin(), s.banks.end(), b) == s.banks.end()) dropped = b;
      const std::string& from = i == gather_from + 1 ? c.source : links[i - 2].stensor.name;
      emit(prev.name, "gather", {name_arg(from), name_arg(dropped)}, prev.chain_loc);
      if (s.banks.empty()) {
        vectorize(prev, dropped);
        vectorize(s, dropped);
      }
    }
    for (size_t i = gather_from; i < links.size(); ++i)
      vectorize(links[i].stensor, widths_[links[i].stensor.name]);
    for (size_t i = gather_from; i < links.size(); ++i) min_depth(links[i]);
  }

  const Program& program_;
  const Array& array_;
  StensorLowering* out_;
  std::map<std::string, std::string> widths_;  // Stensor name -> bank width loop
  std::set<std::string> vectorized_array_;
  std::set<std::pair<std::string, std::string>> vectorized_;  // (Stensor, loop)
};

}  // namespace

StensorLowering lower_stensor_chains(const Program& program,
                                     const std::vector<StensorChain>& chains,
                                     const std::string& compiled, const SourceLoc& compile_loc) {
  StensorLowering out;
  const StensorChain* compiled_chain = nullptr;
  for (const StensorChain& c : chains)
    for (const StensorLink& l : c.links)
      if (l.stensor.handle == compiled) compiled_chain = &c;
  if (!compiled_chain || !compiled_chain->output)
    fail(compile_loc,
         "Stensor '" + compiled +
             "' is not in an output chain; compile (realize) the host Stensor that ends the "
             "array's output chain (T2SP: \"Please realize the stensors on the output path\")",
         "realize");
  const Stensor& host = compiled_chain->links.back().stensor;
  if (host.handle != compiled || host.position != StensorPosition::kHost)
    fail(compile_loc,
         "Stensor '" + compiled +
             "' is not the host Stensor that ends its output chain; compile that one (T2SP: "
             "\"Stensors must be realized on the host\")",
         "realize");
  Array array = find_array(program, chains.front().loc);
  ChainLowering lowering(program, array, &out);
  for (const StensorChain& c : chains) lowering.lower(c);

  // The result has the output URE's dimensions, with the array's extents of its loops.
  const Func* result = program.find_func(compiled_chain->source);
  out.output.func = host.name;
  out.output.loc = compile_loc;
  for (const std::string& v : result->args) {
    auto it = array.extents.find(v);
    if (it == array.extents.end())
      fail(compile_loc,
           "the result '" + host.name + "' has the dimensions of '" + result->name +
               "', and the extent of its loop '" + v + "' is not a constant set_bounds of '" +
               array.ure + "'",
           "realize");
    out.output.extents.push_back(it->second);
  }
  return out;
}

}  // namespace t2s::frontend_internal
