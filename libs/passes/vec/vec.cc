// t2s-vec (seed 002): vectorized loops to vector operations. docs/ir.md ("The vectorized
// stage") states the rules; vec_pass follows them as a list of steps (vec_internal.h), each a
// function of the program and of what the steps before it learned:
//   1. a nest of directly nested vectorized loops gives N lanes (flat, innermost fastest);
//   2. its body is rewritten statement by statement into vector code (lane_vectorizer.cc),
//      computing what reads an earlier lane of the same step lane after lane; a nest whose
//      lanes' order that cannot keep is serialised whole, as unrolled loops (vectorize_nests.cc);
//   3. registers whose lane dimensions became vectors change type and shape; registers no
//      longer read are removed (registers.cc);
//   4. registers read at the same lanes only keep those (narrow_registers.cc), conditions the
//      loops decide (known_conditions.cc) and lets that nothing reads go;
//   5. channels whose ends have different lanes are matched (channels.cc).
#include "libs/passes/vec/vec.h"

#include <set>
#include <sstream>

#include "libs/ir/program_facts.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s {

namespace vec_internal {

SourceLoc vectorize_directive_loc(const Program& program, const std::string& kernel,
                                  const std::string& var, const SourceLoc& fallback) {
  for (const Directive& d : program.directives)
    if (d.is(DirectiveKind::kVectorize) && d.func == kernel && !d.args.empty() &&
        (var.empty() || d.args[0].text == var))
      return d.loc;
  return fallback;
}

}  // namespace vec_internal

Program vec_pass(const Program& stt, VecReport* report) {
  using namespace vec_internal;
  if (stt.stage != Stage::kStt)
    throw Diagnostic({}, std::string("t2s-vec takes the stt stage, not ") + stage_name(stt.stage),
                     "stage");
  if (const Directive* d = first_unimplemented_directive(stt, DirectiveStage::kVec))
    throw Diagnostic(d->loc, d->name + " of '" + d->func + "' is not supported yet by t2s-vec",
                     "unsupported-directive");
  NameSupply names(stt);  // the program's names and those the steps take
  // 1, 2. Every nest of vectorized loops becomes vector code, or runs serialised.
  const VectorizedNests nests = vectorize_nests(stt, names);
  Program out = stt;
  out.stage = Stage::kVectorized;
  out.kernels = nests.kernels;
  // A vector register also accessed lane by lane (hand-edited IR) is refused.
  check_vector_register_accesses(out, nests.registers);
  // 3. Registers whose every read became a lane of a chain go.
  const std::set<std::string> unread = unread_registers(out, nests.registers);
  out = drop_registers(out, unread);
  VectorRegisters vector_registers = nests.registers;
  for (const std::string& r : unread) vector_registers.erase(r);
  // 3. The others' lane dimensions become their types' shape.
  out = reshape_vector_registers(out, vector_registers);
  // 4. Registers read at the same lanes keep only those.
  std::vector<std::string> narrowed;
  out = narrow_registers(out, vector_registers, &narrowed);
  // 4. What lane-by-lane code leaves in the vectorized kernels (decided conditions, copies,
  // unread lets) goes; every name is a candidate let, those the rewrite took a candidate copy.
  out =
      simplify_vectorized_kernels(out, nests.vectorized_kernels, nests.taken_names, names.names());
  // 5. Channels whose ends have different lanes carry the narrower end's.
  std::vector<std::string> channels;
  out = match_channels(out, names, &channels);
  if (report) *report = {nests.loops, channels, {unread.begin(), unread.end()}, narrowed};
  return out;
}

Program vec_pass(const Program& stt) { return vec_pass(stt, nullptr); }

std::string vec_report_text(const VecReport& report) {
  std::ostringstream out;
  if (report.loops.empty()) out << "no vectorized loops\n";
  for (const VecLoopReport& l : report.loops) {
    out << "kernel " << l.kernel << ": ";
    for (size_t i = 0; i < l.loops.size(); ++i)
      out << (i ? " x " : "") << l.loops[i] << " " << l.extents[i];
    out << " (innermost first): " << l.lanes << " lanes, "
        << (l.serialised ? "serialised" : "vectorized");
    std::vector<int64_t> dims;  // a tensor: one dimension per loop of more than one lane
    for (int64_t e : l.extents)
      if (e > 1) dims.push_back(e);
    if (!l.serialised && dims.size() > 1) {
      out << " as tensors of ";
      for (size_t i = 0; i < dims.size(); ++i) out << (i ? " x " : "") << dims[i];
    }
    out << "\n";
    for (const std::string& n : l.notes) out << "  " << n << "\n";
  }
  for (const std::string& c : report.channels) out << c << "\n";
  for (const std::string& r : report.dropped)
    out << "register " << r << ": removed (its values are read within the step, lane by lane)\n";
  for (const std::string& n : report.narrowed) out << n << "\n";
  return out.str();
}

}  // namespace t2s
