// //libs/passes/merge:merge_test: which Funcs are inlined (Halide's default, whatever their
// Place) and how inlining shares a call read more than once (a `let` per distinct call).
#include "libs/passes/merge/merge.h"

#include <gtest/gtest.h>

#include <string>

#include "libs/frontend/frontend.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"

namespace t2s {
namespace {

// The merged program of a spec given as text, verified.
Program merged_program(const std::string& spec) {
  SourceManager sources;
  sources.add("", "test.t2s", spec);
  Program p = merge_pass(parse_spec(sources, FrontendOptions{}));
  verify_program(p, "test.t2s");
  return p;
}
// Its IR text.
std::string merged(const std::string& spec) { return write_program(merged_program(spec)); }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const char kHeader[] = "ImageParam a(Int(32), 1, \"a\");\nVar x;\n";

TEST(MergeTest, DeviceFuncWithoutLoopNestIsInlined) {
  const Program p = merged_program(std::string(kHeader) +
                                   "Func f(Place::Device), out(Place::Device);\n"
                                   "f(x) = a(x) * 2;\n"
                                   "out(x) = f(x) + 1;\n"
                                   "out.realize({4});\n");
  const std::string ir = write_program(p);
  ASSERT_EQ(p.kernels.size(), 1u) << ir;  // no kernel of f, and f needs no bounds
  EXPECT_EQ(p.kernels[0].name, "out");
  EXPECT_EQ(p.kernels[0].place, Place::kDevice);
  EXPECT_TRUE(p.buffers.size() == 1 && p.buffers[0].name == "out") << ir;
  EXPECT_NE(ir.find("\"value\": \"a(x) * 2 + 1\""), std::string::npos) << ir;
}

TEST(MergeTest, RepeatedCallIsBoundOnce) {
  const std::string ir = merged(std::string(kHeader) +
                                "Func f, g, out;\n"
                                "f(x) = a(x) * 2;\n"
                                "g(x) = f(x) + f(x);\n"
                                "out(x) = g(x) * g(x);\n"
                                "out.realize({4});\n");
  EXPECT_NE(ir.find("\"let\": \"f_inl\",\n"), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"value\": \"a(x) * 2\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"value\": \"f_inl + f_inl\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"value\": \"g_inl * g_inl\""), std::string::npos) << ir;
}

TEST(MergeTest, CallReadOnceIsSubstituted) {
  const std::string ir = merged(std::string(kHeader) +
                                "Func f, out;\n"
                                "f(x) = a(x) * 2;\n"
                                "out(x) = f(x) + f(x + 1);\n"
                                "out.realize({4});\n");
  EXPECT_EQ(count(ir, "\"let\""), 0) << ir;
  EXPECT_NE(ir.find("\"value\": \"a(x) * 2 + a(x + 1) * 2\""), std::string::npos) << ir;
}

TEST(MergeTest, CallUnderASelectBranchIsNotHoisted) {
  // Evaluating f before the select would read a(x - 1) at x == 0.
  const std::string ir = merged(std::string(kHeader) +
                                "Func f, out;\n"
                                "f(x) = a(x - 1);\n"
                                "out(x) = select(x > 0, f(x) + f(x), 0);\n"
                                "out.realize({4});\n");
  EXPECT_EQ(count(ir, "\"let\""), 0) << ir;
  EXPECT_NE(ir.find("a(x - 1) + a(x - 1)"), std::string::npos) << ir;
}

TEST(MergeTest, LetNamesAreUnique) {
  const std::string ir = merged(std::string(kHeader) +
                                "Var f_inl;\n"
                                "Func f, out;\n"
                                "f(x) = a(x) * 2;\n"
                                "out(x) = f(x) * f(x);\n"
                                "out.realize({4});\n");
  EXPECT_NE(ir.find("\"let\": \"f_inl_1\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"value\": \"f_inl_1 * f_inl_1\""), std::string::npos) << ir;
}

}  // namespace
}  // namespace t2s
