// t2s-run's engines on golden IR: jit::run_program (through libt2s_jit.so, loaded as t2s-run
// loads it) against the interpreter, a run-time error's message and location, auto's choice.
#include "libs/exec/jit/run.h"

#include <gtest/gtest.h>

#include "libs/exec/interpreter.h"
#include "libs/exec/jit/select.h"
#include "libs/ir/diagnostic.h"
#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s::jit {
namespace {

TEST(JitRunTest, LoopIterationsMultiplyConstantExtents) {
  // gemm: one kernel, loops k (8), j (4), i (4).
  EXPECT_EQ(loop_iterations(testing::load_golden_ir("gemm", "gathered")), 8 * 4 * 4);
}

TEST(JitRunTest, GivesTheInterpretersOutput) {
  for (const char* stage : {"merged", "stt", "gathered"}) {
    Program program = testing::load_golden_ir("seed000_abc", stage);
    auto inputs = complete_inputs(program, {}, FillKind::kRandom, 3);
    NdArray expected = t2s::run_program(program, inputs);
    Timings timings;
    NdArray result = jit::run_program(program, inputs, &timings);
    EXPECT_EQ(result.shape, expected.shape) << stage;
    EXPECT_EQ(result.data, expected.data) << stage;
    EXPECT_GT(timings.compile_seconds, 0) << stage;
  }
}

TEST(JitRunTest, OptimizationLevelZeroGivesTheSameBits) {
  Program program = testing::load_golden_ir("seed000_abc", "gathered");
  auto inputs = complete_inputs(program, {}, FillKind::kRandom, 5);
  NdArray expected = t2s::run_program(program, inputs);
  EXPECT_EQ(jit::run_program(program, inputs, nullptr, 0).data, expected.data) << "-O0";
  EXPECT_THROW(jit::run_program(program, inputs, nullptr, 4), InternalError);
}

Program overflowing_fifo() {
  Program program = testing::load_golden_ir("seed000_abc", "stt");
  for (Register& r : program.registers)
    if (r.name == "A_fifo") r.depth -= 1;
  return program;
}

TEST(JitRunTest, ARunTimeErrorIsTheEmulationsMessage) {
  Program program = overflowing_fifo();
  auto inputs = complete_inputs(program, {}, FillKind::kSequential, 0);
  try {
    jit::run_program(program, inputs);
    FAIL() << "no error";
  } catch (const ProgramError& e) {
    EXPECT_STREQ(e.what(),
                 "FIFO 'A_fifo' of PE (0) overflows: it already holds its depth of 8 "
                 "values");
  }
}

TEST(JitSelectTest, TheJitsRunTimeErrorIsLocatedAsTheInterpretersIs) {
  Program program = overflowing_fifo();
  auto inputs = complete_inputs(program, {}, FillKind::kSequential, 0);
  std::string interp_rule, jit_rule, interp_message, jit_message;
  try {
    run_with_engine(EngineChoice::kInterp, program, inputs, {});
  } catch (const Diagnostic& d) {
    interp_rule = d.rule();
    interp_message = d.what();
  }
  try {
    run_with_engine(EngineChoice::kJit, program, inputs, {});
  } catch (const Diagnostic& d) {
    jit_rule = d.rule();
    jit_message = d.what();
  }
  EXPECT_EQ(interp_rule, "run-fifo-overflow");
  EXPECT_EQ(jit_rule, interp_rule);
  EXPECT_EQ(jit_message, interp_message);
}

TEST(JitSelectTest, AutoRunsSmallProgramsWithTheInterpreter) {
  Program program = testing::load_golden_ir("gemm", "gathered");
  auto inputs = complete_inputs(program, {}, FillKind::kSequential, 0);
  EngineRun run = run_with_engine(EngineChoice::kAuto, program, inputs, {});
  EXPECT_FALSE(run.used_jit);
  EXPECT_TRUE(run_with_engine(EngineChoice::kJit, program, inputs, {}).used_jit);
}

// Every loop of `list` (nested too) runs `extent` times.
void set_loop_extents(StmtList& list, int64_t extent) {
  for (StmtPtr& slot : list) {
    Stmt& s = testing::edit(slot);
    if (For* loop = s.as<For>()) loop->extent = make_int(Type::Int(32), extent);
    for (StmtList* child : s.children()) set_loop_extents(*child, extent);
  }
}

TEST(JitSelectTest, AutoKeepsTheInterpretersStepLimit) {
  Program program = testing::load_golden_ir("gemm", "merged");
  for (Kernel& k : program.kernels) set_loop_extents(k.body, 200);  // 200^3 = 8 million
  ASSERT_EQ(loop_iterations(program), 8000000);
  EXPECT_EQ(resolve_engine(EngineChoice::kAuto, program, 2000000000), EngineChoice::kJit);
  // A step budget the iterations exceed: the interpreter, which stops at it.
  EXPECT_EQ(resolve_engine(EngineChoice::kAuto, program, 7999999), EngineChoice::kInterp);
  EXPECT_EQ(resolve_engine(EngineChoice::kJit, program, 7999999), EngineChoice::kJit);
  EXPECT_EQ(resolve_engine(EngineChoice::kInterp, program, 2000000000), EngineChoice::kInterp);
}

}  // namespace
}  // namespace t2s::jit
