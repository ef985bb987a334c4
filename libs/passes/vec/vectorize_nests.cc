// Steps 1 and 2 of t2s-vec: a nest of directly nested vectorized loops gives N lanes (flat,
// innermost fastest), and its body is rewritten statement by statement into vector code
// (lane_vectorizer.cc); a nest whose lanes' order that cannot keep is serialised whole.
#include <algorithm>
#include <set>

#include "libs/ir/program_facts.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

// Loop `nest[i]` (statement `s`) of a nest of vectorized loops, with the loops from it inwards
// made `kind`.
StmtPtr serialised(const StmtPtr& s, const std::vector<const For*>& nest, size_t i, LoopKind kind) {
  For copy = *nest[i];
  copy.loop_kind = kind;
  if (i + 1 < nest.size()) copy.body = {serialised(copy.body[0], nest, i + 1, kind)};
  return with_node(*s, copy);
}

// The nest of vectorized loops of `kernel` whose outermost loop `first` is statement `outer`, as
// the code that replaces it; adds what it learned to `learned`.
StmtList vectorize_nest(const Program& program, const std::string& kernel, const For& first,
                        const StmtPtr& outer, NameSupply& names, VectorizedNests* learned) {
  // The directly nested vectorized loops, outermost first: those of the perfect nest inside
  // the first until one that is not vectorized.
  std::vector<const For*> nest{&first};
  const LoopNest inside = loop_nest(first.body);
  if (inside.realizes.empty())  // a realize ends the nest (loop_nest looks through it)
    for (const For* f : inside.loops) {
      if (f->loop_kind != LoopKind::kVectorized) break;
      nest.push_back(f);
    }
  const StmtList* body = &nest.back()->body;
  learned->vectorized_kernels.insert(kernel);
  Lanes lanes;
  VecLoopReport rep;
  rep.kernel = kernel;
  rep.loc = vectorize_directive_loc(program, kernel, nest.back()->var, outer->loc);
  int64_t n = 1;
  for (auto it = nest.rbegin(); it != nest.rend(); ++it) {
    const For& f = **it;
    const SourceLoc at = vectorize_directive_loc(program, kernel, f.var, outer->loc);
    if (f.min->kind != ExprKind::kIntImm || f.extent->kind != ExprKind::kIntImm)
      throw Diagnostic(
          at, "vectorize: loop '" + f.var + "' of '" + kernel + "' does not have a constant extent",
          "vec-extent");
    lanes.vars.push_back(f.var);
    lanes.mins.push_back(f.min->int_value);
    lanes.extents.push_back(f.extent->int_value);
    lanes.strides.push_back(n);
    n *= f.extent->int_value;
    if (n > kMaxLanes || n < 1)
      throw Diagnostic(at,
                       "vectorize: the vectorized loops of '" + kernel + "' give " +
                           std::to_string(n) + " lanes; a vector has 1 to " +
                           std::to_string(kMaxLanes),
                       "vec-lanes");
  }
  lanes.n = static_cast<int>(n);
  const int64_t dims =
      std::count_if(lanes.extents.begin(), lanes.extents.end(), [](int64_t e) { return e > 1; });
  if (dims > Type::kMaxOuterDims + 1)
    throw Diagnostic(rep.loc,
                     "vectorize: '" + kernel + "' has " + std::to_string(dims) +
                         " vectorized loops of more than one lane; a tensor has at most " +
                         std::to_string(Type::kMaxOuterDims + 1) + " dimensions",
                     "vec-lanes");
  rep.loops = lanes.vars;
  rep.extents = lanes.extents;
  rep.lanes = lanes.n;
  StmtList result;
  if (lanes.n == 1) {
    rep.notes.push_back("one lane: the loop runs as it is");
    result = {serialised(outer, nest, 0, LoopKind::kSerial)};
  } else {
    try {
      // Every use of the loop variables is replaced: the nest is gone.
      std::set<std::string> registers;
      result = vectorize_lanes(program, kernel, lanes, *body, names, rep, &registers);
      for (const std::string& r : registers)
        learned->registers[r] = {lanes.vars.size(), lanes.typed(Type::Int(32))};
    } catch (const Serialise& s) {
      rep.serialised = true;
      rep.notes = {"serialised (the lanes run one after another, unrolled): " + s.why};
      result = {serialised(outer, nest, 0, LoopKind::kUnrolled)};
    }
  }
  learned->loops.push_back(rep);
  return result;
}

// Every nest of vectorized loops (its outermost loop) of one kernel gives way to its vector code.
class Nests : public SplicingMutator {
 public:
  Nests(const Program& program, const std::string& kernel, NameSupply& names,
        VectorizedNests* learned)
      : program_(program), kernel_(kernel), names_(names), learned_(learned) {}

 protected:
  StmtPtr mutate_for(const For& f, const StmtPtr& s) override {
    if (f.loop_kind != LoopKind::kVectorized) return mutate_children(s);
    return splice(vectorize_nest(program_, kernel_, f, s, names_, learned_));
  }

 private:
  const Program& program_;
  const std::string& kernel_;
  NameSupply& names_;
  VectorizedNests* learned_;
};

}  // namespace

VectorizedNests vectorize_nests(const Program& stt, NameSupply& names) {
  const std::set<std::string> names_before = names.names();
  VectorizedNests out;
  for (const Kernel& k : stt.kernels) {
    Kernel rewritten = k;
    rewritten.body = Nests(stt, k.name, names, &out).mutate_stmts(k.body);
    out.kernels.push_back(std::move(rewritten));
  }
  for (const std::string& n : names.names())
    if (!names_before.count(n)) out.taken_names.insert(n);
  return out;
}

}  // namespace t2s::vec_internal
