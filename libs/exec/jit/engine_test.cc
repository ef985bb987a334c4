// The JIT engine's compiler: compile_unit (the C++ runtime, exceptions, threads and thread_local
// variables, static constructors, no FMA contraction, compile errors).
#include "libs/exec/jit/engine.h"

#include <gtest/gtest.h>

#include <cstring>

#include "libs/ir/diagnostic.h"

namespace t2s::jit {
namespace {

template <typename F>
F function(CompiledUnit& unit, const std::string& name) {
  return reinterpret_cast<F>(unit.function(name));
}

TEST(JitEngineTest, FindsTheCompilersHeaders) {
  const Toolchain& toolchain = find_toolchain();
  EXPECT_FALSE(toolchain.resource_dir.empty());
  EXPECT_FALSE(toolchain.include_dirs.empty());
}

TEST(JitEngineTest, CompilesAndCallsAFunction) {
  auto unit = compile_unit("extern \"C\" int add(int a, int b) { return a + b; }", "add.cpp");
  EXPECT_EQ(function<int (*)(int, int)>(*unit, "add")(2, 3), 5);
}

TEST(JitEngineTest, StaticConstructorsRunBeforeTheCode) {
  auto unit = compile_unit(
      "#include <string>\n"
      "static std::string greeting = std::string(\"hello, \") + \"world\";\n"
      "extern \"C\" unsigned long length() { return greeting.size(); }\n",
      "static.cpp");
  EXPECT_EQ(function<unsigned long (*)()>(*unit, "length")(), 12u);
}

TEST(JitEngineTest, ExceptionsAreThrownAndCaughtInJitCode) {
  auto unit = compile_unit(
      "#include <stdexcept>\n"
      "#include <string>\n"
      "static int depth(int n) { if (n == 0) throw std::runtime_error(\"bottom\"); "
      "return depth(n - 1) + 1; }\n"
      "extern \"C\" int caught() { try { return depth(10); } "
      "catch (const std::exception& e) { return std::string(e.what()) == \"bottom\" ? 7 : 8; } }\n",
      "throw.cpp");
  EXPECT_EQ(function<int (*)()>(*unit, "caught")(), 7);
}

TEST(JitEngineTest, ThreadsHaveTheirOwnThreadLocalVariables) {
  auto unit = compile_unit(
      "#include <thread>\n"
      "thread_local int value = 1;\n"
      "extern \"C\" int threads() { int seen = 0; "
      "std::thread t([&] { value = 5; seen = value; }); t.join(); return seen * 10 + value; }\n",
      "threads.cpp");
  EXPECT_EQ(function<int (*)()>(*unit, "threads")(), 51);
}

TEST(JitEngineTest, NoMultiplyAddContraction) {
  // (1 + 2^-13) * (1 - 2^-13) rounds to 1 as a float; a fused multiply-add would keep -2^-26.
  auto unit = compile_unit(
      "extern \"C\" float mul_add(float a, float b, float c) { "
      "return a * b + c; }",
      "fma.cpp");
  const float e = 1.0f / 8192;
  float result = function<float (*)(float, float, float)>(*unit, "mul_add")(1 + e, 1 - e, -1);
  EXPECT_EQ(result, 0.0f);
}

TEST(JitEngineTest, ACompileErrorIsAnInternalErrorWithClangsMessage) {
  try {
    compile_unit("int f() { return undeclared; }", "bad.cpp");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::strstr(e.what(), "bad.cpp does not compile"), nullptr) << e.what();
    EXPECT_NE(std::strstr(e.what(), "undeclared"), nullptr) << e.what();
  }
}

}  // namespace
}  // namespace t2s::jit
