// //libs/passes/vec:vec_test: what t2s-vec does with registers of vectorized PEs.
//
// Each case is a small spec lowered to the stt stage and vectorized; the vectorized program
// must compute the merged stage's result bit for bit (two random inputs), hold no more live
// values in a register than its size (the interpreter's register tracking), and give the
// registers the type and the reads the slots stated here.
#include "libs/passes/vec/vec.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/verify.h"
#include "libs/ir/visitor.h"
#include "libs/passes/lower/lower.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

struct Vectorized {
  Program merged, program;
  VecReport report;
};

Vectorized vectorize(const std::string& spec) {
  SourceManager sources;
  sources.add("", "test.t2s", spec);
  Vectorized v;
  v.merged = lower_to(parse_spec(sources, FrontendOptions{}), Stage::kMerged);
  v.program = vec_pass(lower_to(v.merged, Stage::kStt), &v.report);
  verify_program(v.program, "test.t2s");
  return v;
}

// The vectorized program computes the merged one's result; no register holds more values at
// once than its size.
void expect_equivalent(const Vectorized& v) {
  for (uint64_t seed : {1, 2}) {
    auto inputs = complete_inputs(v.merged, {}, FillKind::kRandom, seed);
    NdArray expected = run_program(v.merged, inputs);
    std::map<std::string, int64_t> live;
    RunOptions options;
    options.track_registers = true;
    options.max_live = &live;
    NdArray actual = run_program(v.program, inputs, options);
    EXPECT_FALSE(compare_arrays(expected, actual).has_value()) << "seed " << seed;
    for (const Register& r : v.program.registers) EXPECT_LE(live.at(r.name), r.depth) << r.name;
  }
}

// Every read of register `name` in the kernels, printed.
std::vector<std::string> reads_of(const Program& p, const std::string& name) {
  std::vector<std::string> out;
  for (const Kernel& k : p.kernels)
    for_each_stmt_expr(k.body, [&](const Expr& x) {
      if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kRegister && x->name == name)
        out.push_back(print_expr(x));
    });
  return out;
}

std::string report_text(const Vectorized& v) { return vec_report_text(v.report); }

// A running sum along kk (4 lanes of a vectorized space loop) continued from the last lane of
// the previous ko step: the register is read at lane 3 only, so it keeps that lane.
TEST(VecRegisters, ReadAtOneLaneKeepsThatLane) {
  Vectorized v = vectorize(R"(
ImageParam a(Int(32), 2, "a");
Var kk, ko, i;
Func S(Int(32), {kk, i, ko}), c(Place::Device);
S(kk, i, ko) = select(kk == 0, select(ko == 0, 0, S(kk + 3, i, ko - 1)), S(kk - 1, i, ko))
               + a(kk + 4 * ko, i);
c(i) = select(kk == 3 && ko == 1, S(kk, i, ko));
S.merge_ures(c).set_bounds(kk, 0, 4, i, 0, 3, ko, 0, 2).space_time_transform(kk, i).vectorize(kk);
c.realize({3});
)");
  const Register* r = v.program.find_register("S_shreg");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->type, Type::Int(32));
  EXPECT_EQ(reads_of(v.program, "S_shreg"), std::vector<std::string>{"S_shreg(i, 0)"});
  EXPECT_NE(report_text(v).find("register S_shreg: keeps lane 3 only (int32; every read takes it)"),
            std::string::npos)
      << report_text(v);
  // The chain's `concat` is no longer read and goes.
  bool concat = false;
  for_each_stmt_expr(v.program.kernels[0].body, [&](const Expr& x) {
    concat |= x->kind == ExprKind::kCall && x->name == "concat";
  });
  EXPECT_FALSE(concat);
  expect_equivalent(v);
}

// A sum along ko in each of 4 lanes (kk, a vectorized space loop): each lane reads its own lane
// of the previous step.
const char kSumAlongKo[] = R"(
ImageParam a(Float(32), 2, "a");
Var kk, ko, i;
Func S(Float(32), {kk, i, ko}), c(Place::Device);
S(kk, i, ko) = select(ko == 0, 0.0f, S(kk, i, ko - 1)) + a(kk + 4 * ko, i);
c(kk, i) = select(ko == 2, S(kk, i, ko));
S.merge_ures(c).set_bounds(kk, 0, 4, i, 0, 3, ko, 0, 3).space_time_transform(kk, i).vectorize(kk);
c.realize({4, 3});
)";

// Hand-edited stt IR: a second copy of the vectorized nest with fewer lanes. Its accesses keep
// the register's lane dimensions, which the first nest removes (ill-formed IR, an internal error;
// found by ir_mutation_fuzzer): refused.
TEST(VecRegisters, RegisterOfAVectorizedNestAccessedLaneByLaneElsewhereIsRefused) {
  SourceManager sources;
  sources.add("", "test.t2s", kSumAlongKo);
  Program stt = lower_to(parse_spec(sources, FrontendOptions{}), Stage::kStt);
  // The time loop ko, then the PE loops: i (unrolled), kk (vectorized) innermost.
  For* time = testing::edit_as<For>(stt.kernels[0].body[0]);
  ASSERT_NE(time, nullptr);
  ASSERT_EQ(time->body.size(), 1u);
  For copy = *time->body[0]->as<For>();
  ASSERT_EQ(copy.body.size(), 1u);
  For inner = *copy.body[0]->as<For>();
  ASSERT_EQ(inner.loop_kind, LoopKind::kVectorized);
  inner.extent = make_int(Type::Int(32), 2);
  copy.body = {std::make_shared<Stmt>(Stmt{inner, copy.body[0]->loc})};
  time->body.push_back(std::make_shared<Stmt>(Stmt{copy, time->body[0]->loc}));
  try {
    vec_pass(stt);
    ADD_FAILURE() << "vectorized";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "vec-lanes");
    EXPECT_EQ(d.message(),
              "vectorize: register 'S_shreg' is a vector register of a vectorized nest of kernel "
              "'S', but is also accessed lane by lane outside it (or in a nest with other lanes)");
  }
}

// Each lane reads its own lane of the previous step: the register keeps every lane.
TEST(VecRegisters, ReadOfEveryLaneKeepsTheVector) {
  Vectorized v = vectorize(kSumAlongKo);
  const Register* r = v.program.find_register("S_shreg");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->type, Type::Float(32, 4));
  EXPECT_EQ(report_text(v).find("keeps lane"), std::string::npos) << report_text(v);
  expect_equivalent(v);
}

// Lane kk reads lane kk - 1 (and kk + 1) of the previous step. t2s-stt numbered the slots with
// the lanes run in order, so lane kk - 1 has already shifted when lane kk reads slot 1; as one
// vector read before the shift that is slot 0. Lane kk + 1 has not, and keeps its slot.
TEST(VecRegisters, EarlierLaneOfThePreviousStepIsReadBeforeTheShift) {
  Vectorized v = vectorize(R"(
ImageParam a(Int(32), 2, "a");
Var kk, ko, i;
Func T(Int(32), {kk, i, ko}), c(Place::Device);
T(kk, i, ko) = select(kk == 0 || kk == 3 || ko == 0, a(kk + 4 * ko, i),
                      T(kk - 1, i, ko - 1) * 3 + T(kk + 1, i, ko - 1));
c(kk, i) = select(ko == 2, T(kk, i, ko));
T.merge_ures(c).set_bounds(kk, 0, 4, i, 0, 3, ko, 0, 3).space_time_transform(i).vectorize(kk);
c.realize({4, 3});
)");
  ASSERT_EQ(v.report.loops.size(), 1u);
  EXPECT_FALSE(v.report.loops[0].serialised) << report_text(v);
  for (const std::string& read : reads_of(v.program, "T_shreg")) EXPECT_EQ(read, "T_shreg(i, 0)");
  EXPECT_EQ(v.program.find_register("T_shreg")->type, Type::Int(32, 4));
  expect_equivalent(v);
}

// `select(kk + 4 * ko == 7, ...)` computed lane by lane leaves, per lane, `4 * ko + l == 7`: the
// loop ko in [0, 2) decides all but lane 3's (isl), so one if remains, and the select on
// `kk + 4 * ko == 0` in the chain is decided for lanes 1 to 3.
TEST(VecConditions, ConditionsTheLoopsDecideAreFolded) {
  Vectorized v = vectorize(R"(
ImageParam a(Int(32), 2, "a");
Var kk, ko, i;
Func S(Int(32), {kk, i, ko}), c(Place::Device);
S(kk, i, ko) = select(kk + 4 * ko == 0, 0, select(kk == 0, S(kk + 3, i, ko - 1), S(kk - 1, i, ko)))
               + a(kk + 4 * ko, i);
c(i) = select(kk + 4 * ko == 7, S(kk, i, ko));
S.merge_ures(c).set_bounds(kk, 0, 4, i, 0, 3, ko, 0, 2).space_time_transform(kk, i).vectorize(kk);
c.realize({3});
)");
  std::vector<std::string> ifs, selects;
  for_each_stmt(v.program.kernels[0].body, [&](const Stmt& s) {
    if (const IfThenElse* i = s.as<IfThenElse>()) ifs.push_back(print_expr(i->condition));
  });
  for_each_stmt_expr(v.program.kernels[0].body, [&](const Expr& x) {
    if (x->kind == ExprKind::kSelect) selects.push_back(print_expr(x->operands[0]));
  });
  EXPECT_EQ(ifs, std::vector<std::string>{"3 + 4 * ko == 7"});
  EXPECT_EQ(selects, std::vector<std::string>{"4 * ko == 0"});
  expect_equivalent(v);
}

}  // namespace
}  // namespace t2s
