// //libs/passes/merge:merge_test: which Funcs are inlined (Halide's default, whatever their
// Place), how inlining shares a call read more than once (a `let` per distinct call), and
// bounds inference (loops without set_bounds get the range their consumers read).
#include "libs/passes/merge/merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "libs/frontend/frontend.h"
#include "libs/ir/diagnostic.h"
#include "libs/ir/expr_printer.h"
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

// The [min, extent] of loop `var` in kernel `name`.
std::pair<std::string, std::string> loop_bounds(const Program& p, const std::string& name,
                                                const std::string& var) {
  for (const Kernel& k : p.kernels) {
    if (k.name != name) continue;
    const Stmt* s = k.body.empty() ? nullptr : k.body[0].get();
    while (s) {
      if (const For* loop = s->as<For>()) {
        if (loop->var == var) return {print_expr(loop->min), print_expr(loop->extent)};
        s = loop->body.empty() ? nullptr : loop->body[0].get();
      } else if (const Realize* r = s->as<Realize>()) {
        s = r->body.empty() ? nullptr : r->body[0].get();
      } else {
        s = nullptr;
      }
    }
  }
  return {"", ""};
}

// The rule of the Diagnostic merging `spec` throws, with its message.
std::string merge_error(const std::string& spec) {
  try {
    merged_program(spec);
  } catch (const Diagnostic& d) {
    return d.message() + " [" + d.rule() + "]";
  }
  return "";
}

// Loop `var` of kernel `name` (through its perfect nest), or null.
const For* find_loop(const Program& p, const std::string& name, const std::string& var) {
  for (const Kernel& k : p.kernels) {
    if (k.name != name) continue;
    const Stmt* s = k.body.empty() ? nullptr : k.body[0].get();
    while (s) {
      if (const For* loop = s->as<For>()) {
        if (loop->var == var) return loop;
        s = loop->body.empty() ? nullptr : loop->body[0].get();
      } else if (const Realize* r = s->as<Realize>()) {
        s = r->body.empty() ? nullptr : r->body[0].get();
      } else {
        s = nullptr;
      }
    }
  }
  return nullptr;
}

// The loop variables of kernel `name`, outermost first.
std::string loop_names(const Program& p, const std::string& name) {
  std::string out;
  for (const Kernel& k : p.kernels) {
    if (k.name != name) continue;
    const Stmt* s = k.body.empty() ? nullptr : k.body[0].get();
    while (s) {
      if (const For* loop = s->as<For>()) {
        out += (out.empty() ? "" : " ") + loop->var;
        s = loop->body.empty() ? nullptr : loop->body[0].get();
      } else if (const Realize* r = s->as<Realize>()) {
        s = r->body.empty() ? nullptr : r->body[0].get();
      } else {
        s = nullptr;
      }
    }
  }
  return out;
}

// A prefix sum P over a realized range, for the split tests.
const char kPrefixSum[] =
    "ImageParam a(Int(32), 1, \"a\");\n"
    "Var x, xo, xi, y;\n"
    "Func P(Int(32), {x});\n"
    "P(x) = select(x == 0, a(x), P(x - 1) + a(x));\n";

TEST(MergeTest, SplitReplacesTheLoopAndSubstitutesIt) {
  const Program p = merged_program(std::string(kPrefixSum) +
                                   "P.split(x, xo, xi, 4);\n"
                                   "P.realize({8});\n");
  const std::string ir = write_program(p);
  EXPECT_EQ(loop_names(p, "P"), "xo xi") << ir;
  EXPECT_EQ(loop_bounds(p, "P", "xo"), std::make_pair(std::string("0"), std::string("2")));
  EXPECT_EQ(loop_bounds(p, "P", "xi"), std::make_pair(std::string("0"), std::string("4")));
  EXPECT_NE(ir.find("\"xo * 4 + xi\"\n"), std::string::npos) << ir;  // P's provide
  EXPECT_NE(ir.find("select(xo * 4 + xi == 0, a(xo * 4 + xi), P(xo * 4 + xi - 1)"),
            std::string::npos)
      << ir;
  // The output buffer keeps the Func's arguments.
  ASSERT_EQ(p.buffers.size(), 1u);
  EXPECT_EQ(print_expr(p.buffers[0].extents[0]), "8");
}

TEST(MergeTest, SplitOfALoopThatDoesNotStartAtZero) {
  // Q has a loop nest of its own (compute_root) over the range out reads, [3, 7).
  const Program p = merged_program(
      "ImageParam a(Int(32), 1, \"a\");\n"
      "Var x, xo, xi;\n"
      "Func Q, out;\n"
      "Q(x) = a(x) * 2;\n"
      "out(x) = Q(x + 3);\n"
      "Q.compute_root().split(x, xo, xi, 2);\n"
      "out.realize({4});\n");
  const std::string ir = write_program(p);
  EXPECT_EQ(loop_bounds(p, "Q", "xo"), std::make_pair(std::string("0"), std::string("2"))) << ir;
  EXPECT_NE(ir.find("a(xo * 2 + xi + 3) * 2"), std::string::npos) << ir;
}

TEST(MergeTest, SplitAfterBoundsInference) {
  // P's range [0, 10) comes from out's reads, whatever the order of the directives.
  const std::string spec = std::string(kPrefixSum) +
                           "Func out;\n"
                           "out(x) = P(x) + P(x + 2);\n"
                           "P.split(x, xo, xi, FACTOR);\n"
                           "out.realize({8});\n";
  auto with = [&](const std::string& factor) { return "#define FACTOR " + factor + "\n" + spec; };
  const Program p = merged_program(with("5"));
  EXPECT_EQ(loop_bounds(p, "P", "xo"), std::make_pair(std::string("0"), std::string("2")));
  EXPECT_EQ(loop_bounds(p, "P", "xi"), std::make_pair(std::string("0"), std::string("5")));
  EXPECT_EQ(merge_error(with("4")),
            "split of 'x' by 4: the factor does not divide the loop's extent 10 (splits have no "
            "tail; use a factor that divides 10) [split-factor]");
}

TEST(MergeTest, SplitOfASplitLoopAndReorder) {
  // (Reordering the tiles of the prefix sum P would read values computed later.)
  const Program p = merged_program(std::string(kHeader) +
                                   "Var xo, xi, xoo, xoi;\n"
                                   "Func P;\n"
                                   "P(x) = a(x) * 2;\n"
                                   "P.split(x, xo, xi, 2).split(xo, xoo, xoi, 2)"
                                   ".reorder(xoi, xi);\n"
                                   "P.realize({8});\n");
  const std::string ir = write_program(p);
  // x = (xoo * 2 + xoi) * 2 + xi; loops innermost first: xoi, xi, xoo.
  EXPECT_EQ(loop_names(p, "P"), "xoo xi xoi") << ir;
  EXPECT_NE(ir.find("(xoo * 2 + xoi) * 2 + xi"), std::string::npos) << ir;
}

TEST(MergeTest, SplitKeepingTheNameAsHalideDoes) {
  const Program p = merged_program(std::string(kPrefixSum) +
                                   "P.split(x, x, xi, 4);\n"
                                   "P.realize({8});\n");
  EXPECT_EQ(loop_names(p, "P"), "x xi");
  EXPECT_NE(write_program(p).find("x * 4 + xi"), std::string::npos);
}

TEST(MergeTest, SplitRules) {
  EXPECT_EQ(merge_error(std::string(kPrefixSum) + "P.split(y, xo, xi, 4);\nP.realize({8});\n"),
            "split: 'y' is not a loop of 'P' (its loops: x (innermost first)) [split-var]");
  EXPECT_EQ(merge_error(std::string(kPrefixSum) +
                        "P.split(x, xo, xi, 4).split(x, y, xi, 2);\nP.realize({8});\n"),
            "split: 'x' is not a loop of 'P' (its loops: xi, xo (innermost first)); an earlier "
            "split replaced it by 'xo' and 'xi' [split-var]");
  EXPECT_EQ(merge_error(std::string(kPrefixSum) +
                        "P.split(x, xo, xi, 4).split(xo, xi, y, 2);\nP.realize({8});\n"),
            "split: 'xi' is already a loop of 'P' (or one of its arguments); the split loops "
            "need new names [split-var]");
  EXPECT_EQ(merge_error(std::string(kPrefixSum) + "P.split(x, xo, xi, -2);\nP.realize({8});\n"),
            "split of 'x': the factor must be a positive integer, not -2 [split-factor]");
  EXPECT_EQ(merge_error(std::string(kPrefixSum) +
                        "P.split(x, xo, xi, 4).set_bounds(xi, 0, 4);\nP.realize({8});\n"),
            "set_bounds of 'xi', a loop made by split: bound the loop it splits instead (a split "
            "loop's bounds follow from it and the factor) [set-bounds-var]");
  // set_bounds of the split Var itself is fine, before or after the split.
  EXPECT_EQ(merge_error(std::string(kPrefixSum) +
                        "Func out;\nout(x) = P(x);\n"
                        "P.split(x, xo, xi, 4).set_bounds(x, 0, 8);\nout.realize({8});\n"),
            "");
}

TEST(MergeTest, SplitDependencesAreCheckedInTheFinalOrder) {
  // Y(t, n) reads Y(t + 1, n - 1): legal in the order (n, t), outermost first; after the split
  // of n and reorder(ni, t, no), within a tile (t, ni) reads (t + 1, ni - 1), computed later.
  const std::string spec =
      "ImageParam a(Int(32), 1, \"a\");\n"
      "Var t, n, no, ni;\n"
      "Func Y(Int(32), {t, n});\n"
      "Y(t, n) = select(n == 0 || t == 2, a(t), Y(t + 1, n - 1) + a(t));\n"
      "Y.set_bounds(t, 0, 3, n, 0, 8).split(n, no, ni, FACTOR).reorder(ni, t, no);\n"
      "Y.realize({3, 8});\n";
  EXPECT_EQ(merge_error("#define FACTOR 4\n" + spec),
            "'Y' reads 'Y(t + 1, n - 1)' before it is computed in the order the loops run after "
            "split (no, t, ni, outermost first): the iteration (no = 0, t = 0, ni = 1) reads the "
            "value of (no = 0, t = 1, ni = 0), which is computed later [ure-distance]");
  // With factor 1 every tile has one n: the order is (n, t) again.
  EXPECT_EQ(merge_error("#define FACTOR 1\n" + spec), "");
}

TEST(MergeTest, SplitWithOneOuterIterationOrdersByTheInnerLoop) {
  // A(i, k) reads A(i - 1, k + 1): refused in the order (k, i); after split(k, ko, ki, 4) with
  // k's extent 4 (ko has one iteration) and reorder(ki, i, ko), the order is (ko, i, ki), in
  // which the read is of an earlier i.
  const std::string spec =
      "ImageParam a(Int(32), 1, \"a\");\n"
      "Var i, k, ko, ki;\n"
      "Func A(Int(32), {i, k});\n"
      "A(i, k) = select(i == 0 || k == 3, a(k), A(i - 1, k + 1) + a(k));\n"
      "A.set_bounds(i, 0, 4, k, 0, 4)SPLIT;\n"
      "A.realize({4, 4});\n";
  auto with = [&](const std::string& split) {
    std::string s = spec;
    return s.replace(s.find("SPLIT"), 5, split);
  };
  EXPECT_EQ(merge_error(with("")).substr(merge_error(with("")).size() - 14), "[ure-distance]");
  EXPECT_EQ(merge_error(with(".split(k, ko, ki, 4).reorder(ki, i, ko)")), "");
}

TEST(MergeTest, VectorizeAndUnrollWithAFactorSplit) {
  const Program p = merged_program(std::string(kPrefixSum) +
                                   "Var x_ui;\n"
                                   "P.vectorize(x, 4);\n"
                                   "P.unroll(x, 2);\n"
                                   "P.realize({16});\n");
  const std::string ir = write_program(p);
  // x = (x * 2 + x_ui_1) * 4 + x_vi; x_ui is a declared Var, so the unroll loop is x_ui_1.
  EXPECT_EQ(loop_names(p, "P"), "x x_ui_1 x_vi") << ir;
  ASSERT_NE(find_loop(p, "P", "x_ui_1"), nullptr);
  EXPECT_EQ(find_loop(p, "P", "x_ui_1")->loop_kind, LoopKind::kUnrolled);
  EXPECT_EQ(find_loop(p, "P", "x_vi")->loop_kind, LoopKind::kVectorized);
  EXPECT_NE(ir.find("(x * 2 + x_ui_1) * 4 + x_vi"), std::string::npos) << ir;
  std::string directives;
  for (const Directive& d : p.directives) {
    directives += d.name + "(";
    for (size_t i = 0; i < d.args.size(); ++i) directives += (i ? ", " : "") + d.args[i].text;
    directives += ") ";
  }
  EXPECT_EQ(directives,
            "split(x, x, x_vi, 4) vectorize(x_vi) split(x, x, x_ui_1, 2) unroll(x_ui_1) ");
}

TEST(MergeTest, UnrollMarksTheLoop) {
  const Program p = merged_program(std::string(kPrefixSum) +
                                   "P.unroll(x).split(x, xo, xi, 2);\n"
                                   "P.realize({8});\n");
  // Unrolling a loop that is split afterwards unrolls both parts.
  EXPECT_EQ(find_loop(p, "P", "xo")->loop_kind, LoopKind::kUnrolled);
  EXPECT_EQ(find_loop(p, "P", "xi")->loop_kind, LoopKind::kUnrolled);
  EXPECT_EQ(merge_error(std::string(kPrefixSum) + "P.unroll(y);\nP.realize({8});\n"),
            "unroll: 'y' is not a loop of 'P' (its loops: x (innermost first)) [unroll-var]");
}

TEST(MergeTest, ComputeRootGivesAFuncALoopNest) {
  const Program p = merged_program(std::string(kHeader) +
                                   "Func f, out;\n"
                                   "f(x) = a(x) * 2;\n"
                                   "out(x) = f(x) + f(x + 1);\n"
                                   "f.compute_root();\n"
                                   "out.realize({4});\n");
  const std::string ir = write_program(p);
  ASSERT_EQ(p.kernels.size(), 2u) << ir;
  EXPECT_EQ(p.kernels[0].name, "f");  // before its consumer
  EXPECT_EQ(loop_bounds(p, "f", "x"), std::make_pair(std::string("0"), std::string("5")));
  EXPECT_NE(ir.find("\"value\": \"f(x) + f(x + 1)\""), std::string::npos) << ir;
  // Split of a Func computed at root.
  const Program q = merged_program(std::string(kHeader) +
                                   "Var xo, xi;\n"
                                   "Func f, out;\n"
                                   "f(x) = a(x) * 2;\n"
                                   "out(x) = f(x) + f(x + 1);\n"
                                   "f.compute_root().split(x, xo, xi, 5);\n"
                                   "out.realize({4});\n");
  EXPECT_EQ(loop_names(q, "f"), "xo xi");
  EXPECT_EQ(merge_error(std::string(kHeader) + "Var k;\n"
                                               "Func A(Int(32), {x}), B(Int(32), {x});\n"
                                               "A(x) = a(x);\nB(x) = A(x) + 1;\n"
                                               "A.merge_ures(B);\nB.compute_root();\n"
                                               "B.realize({4});\n"),
            "compute_root on 'B', which is merged into 'A': call it on the representative 'A' "
            "[merge-directive-on-member]");
}

TEST(MergeTest, IsolatedConsumerCopiesTheSplits) {
  const Program p =
      merged_program(std::string(kPrefixSum) +
                     "Func d;\n"
                     "P.set_bounds(x, 0, 8).split(x, xo, xi, 4).isolate_consumer(d);\n"
                     "d.realize({8});\n");
  const std::string ir = write_program(p);
  EXPECT_EQ(loop_names(p, "P"), "xo xi") << ir;
  EXPECT_EQ(loop_names(p, "d"), "xo xi") << ir;
  EXPECT_NE(ir.find("\"provide\": \"d\",\n"), std::string::npos) << ir;
}

// A GEMM array A(k, i, j) with a loader of a (isolate_producer_chain, sent where j == 0) and
// a drainer of c(i, j) (isolate_consumer), on the device; DIRECTIVES follow the isolations.
std::string isolated_gemm(const std::string& directives) {
  return "ImageParam a(Float(32), 2, \"a\");\n"
         "ImageParam b(Float(32), 2, \"b\");\n"
         "Var k, i, j, ko, ki, io, ii;\n"
         "Func A(Float(32), {k, i, j}), B(Float(32), {k, i, j}), C(Float(32), {k, i, j});\n"
         "Func c(Place::Device), load(Place::Device), drain(Place::Device);\n"
         "A(k, i, j) = select(j == 0, a(k, i), A(k, i, j - 1));\n"
         "B(k, i, j) = select(i == 0, b(j, k), B(k, i - 1, j));\n"
         "C(k, i, j) = select(k == 0, 0.0f, C(k - 1, i, j)) + A(k, i, j) * B(k, i, j);\n"
         "c(i, j) = select(k == 7, C(k, i, j));\n"
         "A.merge_ures(B, C, c).set_bounds(k, 0, 8, i, 0, 4, j, 0, 4);\n"
         "A.isolate_producer_chain(a, load);\n"
         "c.isolate_consumer(drain);\n" +
         directives + "drain.realize({4, 4});\n";
}

// The channels isolation makes get names no declared name holds (NameSupply): Vars named
// as the channels would be push them to the next free name.
TEST(MergeTest, ChannelNamesAreFreshAgainstDeclaredNames) {
  std::string spec = isolated_gemm("");
  const std::string vars = "Var k, i, j, ko, ki, io, ii;\n";
  spec.replace(spec.find(vars), vars.size(),
               "Var k, i, j, ko, ki, io, ii, c_to_drain, load_to_A, load_to_A_1;\n");
  const Program p = merged_program(spec);
  std::vector<std::string> channels;
  for (const Channel& c : p.channels) channels.push_back(c.name);
  std::sort(channels.begin(), channels.end());
  EXPECT_EQ(channels, (std::vector<std::string>{"c_to_drain_1", "load_to_A_2"}))
      << write_program(p);
  // Without the Vars, the names are the plain ones.
  channels.clear();
  for (const Channel& c : merged_program(isolated_gemm("")).channels) channels.push_back(c.name);
  std::sort(channels.begin(), channels.end());
  EXPECT_EQ(channels, (std::vector<std::string>{"c_to_drain", "load_to_A"}));
}

TEST(MergeTest, SplitAndVectorizeOnAnIsolatedProducer) {
  // The loader's directives apply to the loops it copies (k, i, j), after the copy.
  const Program p = merged_program(isolated_gemm("load.split(k, ko, ki, 2);\n"));
  const std::string ir = write_program(p);
  EXPECT_EQ(loop_names(p, "load"), "j i ko ki") << ir;
  EXPECT_EQ(loop_bounds(p, "load", "ki"), std::make_pair(std::string("0"), std::string("2")));
  EXPECT_NE(ir.find("a(ko * 2 + ki, i)"), std::string::npos) << ir;
  EXPECT_EQ(loop_names(p, "A"), "j i k") << ir;  // the array keeps its loops
  // vectorize(k, 4): a split, then the inner loop vectorized.
  const Program q = merged_program(isolated_gemm("load.vectorize(k, 4);\n"));
  EXPECT_EQ(loop_names(q, "load"), "j i k k_vi");
  ASSERT_NE(find_loop(q, "load", "k_vi"), nullptr);
  EXPECT_EQ(find_loop(q, "load", "k_vi")->loop_kind, LoopKind::kVectorized);
  EXPECT_EQ(loop_bounds(q, "load", "k"), std::make_pair(std::string("0"), std::string("2")));
  // Unroll of a split loop of the loader; the directives may come before the isolation too.
  const Program u =
      merged_program(isolated_gemm("").replace(isolated_gemm("").find("A.isolate_producer_chain"),
                                               0, "load.split(k, ko, ki, 4).unroll(ki);\n"));
  EXPECT_EQ(find_loop(u, "load", "ki")->loop_kind, LoopKind::kUnrolled);
}

TEST(MergeTest, MinDepthOutOfRangeInHandEditedIr) {
  // t2s-parse refuses these depths; an IR document may carry them (issue 16: the merged IR was
  // ill-formed, an internal error).
  SourceManager sources;
  sources.add("", "test.t2s", isolated_gemm("load.min_depth(4);\n"));
  const Program parsed = parse_spec(sources, FrontendOptions{});
  for (const char* depth : {"0", "-1", "2147483648"}) {
    Program p = parsed;
    for (Directive& d : p.directives)
      if (d.name == "min_depth") d.args[0] = DirectiveArg::expr(depth);
    try {
      merge_pass(p);
      ADD_FAILURE() << "min_depth(" << depth << ") merged";
    } catch (const Diagnostic& d) {
      EXPECT_EQ(d.rule(), "directive-args");
      EXPECT_EQ(d.message(),
                std::string("min_depth: the depth must be from 1 to 2^31 - 1, not ") + depth);
    }
  }
}

TEST(MergeTest, ReorderOfAnIsolatedProducerThatKeepsTheChannelOrder) {
  // The loader sends only where j == 0: moving j inside i sends the same values in the same
  // order (i, then k).
  const Program p = merged_program(isolated_gemm("load.reorder(j, i);\n"));
  EXPECT_EQ(loop_names(p, "load"), "i j k");
  // Split loops of k reordered among themselves change the order of the values: refused.
  EXPECT_EQ(merge_error(isolated_gemm("load.split(k, ko, ki, 2).reorder(ko, ki);\n")),
            "reorder of 'load' makes the two ends of channel 'load_to_A' visit its values in "
            "different orders: 'load' sends load(2, 0, 0) before load(1, 0, 0), but 'A' reads "
            "them in the other order (a channel keeps the order values are written in; both "
            "ends must visit them in one order) [isolate-order]");
}

TEST(MergeTest, SplitReorderAndVectorizeOnAnIsolatedConsumer) {
  // The drainer copies c's loops over its arguments (i, j), not k.
  const Program p = merged_program(isolated_gemm("drain.vectorize(i, 2);\n"));
  EXPECT_EQ(loop_names(p, "drain"), "j i i_vi");
  EXPECT_EQ(find_loop(p, "drain", "i_vi")->loop_kind, LoopKind::kVectorized);
  const Program q = merged_program(isolated_gemm("drain.split(i, io, ii, 2);\n"));
  EXPECT_EQ(loop_names(q, "drain"), "j io ii");
  EXPECT_NE(write_program(q).find("\"io * 2 + ii\",\n"), std::string::npos) << write_program(q);
  // c sends one value per (i, j), at k == 7: the drainer may not read them in another order.
  EXPECT_EQ(merge_error(isolated_gemm("drain.reorder(j, i);\n")),
            "reorder of 'drain' makes the two ends of channel 'c_to_drain' visit its values in "
            "different orders: 'A' sends c(1, 0) before c(0, 1), but 'drain' reads them in the "
            "other order (a channel keeps the order values are written in; both ends must visit "
            "them in one order) [isolate-order]");
}

// The transforms kernel `name` inherits (Kernel::inherited_transforms), as
// "A: [[i, j], [], SpaceTimeTransform::NoCheckTime]" each.
std::string arg_text(const DirectiveArg& a) {
  if (a.kind != DirectiveArg::kList) return a.text;
  std::string s = "[";
  for (size_t i = 0; i < a.items.size(); ++i) s += (i ? ", " : "") + arg_text(a.items[i]);
  return s + "]";
}
std::vector<std::string> inherited(const Program& p, const std::string& name) {
  std::vector<std::string> out;
  for (const Kernel& k : p.kernels)
    if (k.name == name)
      for (const Directive& d : k.inherited_transforms)
        out.push_back(d.func + ": " + arg_text(DirectiveArg::list(d.args)));
  return out;
}
using Strings = std::vector<std::string>;

TEST(MergeTest, IsolatedConsumerInheritsTheTransform) {
  const Program p = merged_program(isolated_gemm("A.space_time_transform({k, i}, {1, 2});\n"));
  // The drainer has c's loops (i, j): k, a space loop it lacks, is dropped with its
  // coefficient; its next loop out (j) becomes time.
  EXPECT_EQ(inherited(p, "drain"), Strings{"A: [[i], [2], SpaceTimeTransform::NoCheckTime]"});
  // The device loader follows the array's schedule: it has all of A's loops.
  EXPECT_EQ(inherited(p, "load"), Strings{"A: [[k, i], [1, 2], SpaceTimeTransform::NoCheckTime]"});
  EXPECT_TRUE(inherited(p, "A").empty());  // a kernel's own transforms stay in directives
  for (const Kernel& k : p.kernels)
    if (k.name == "drain") {
      for (const Directive& d : p.directives)
        if (d.name == "isolate_consumer") {
          EXPECT_EQ(k.inherited_transforms[0].loc, d.loc);
        }
    }
  // The array's lanes inside its space loops come with the transform.
  const Program lanes =
      merged_program(isolated_gemm("A.space_time_transform({i}, {1}).vectorize(k);\n"));
  EXPECT_EQ(inherited(lanes, "load"), Strings{"A: [[i], [1], SpaceTimeTransform::NoCheckTime]"});
  ASSERT_NE(find_loop(lanes, "load", "k"), nullptr);
  EXPECT_EQ(find_loop(lanes, "load", "k")->loop_kind, LoopKind::kVectorized);
  // Without a scheduling vector the array reads in its loop order, which the loader has.
  EXPECT_TRUE(
      inherited(merged_program(isolated_gemm("A.space_time_transform(k, i);\n")), "load").empty());
  // The drainer lacks the loop the vector skews (k, outside the space loop i): it runs
  // unskewed, in the order the PEs write.
  EXPECT_EQ(inherited(merged_program(
                          isolated_gemm("A.reorder(i, k, j).space_time_transform({i}, {2});\n")),
                      "drain"),
            Strings{"A: [[i], [], SpaceTimeTransform::NoCheckTime]"});
  // No loop of the drainer is left for time: the scheduling vector goes too.
  EXPECT_EQ(inherited(merged_program(isolated_gemm(
                          "A.reorder(i, j, k).space_time_transform({i, j}, {1, 1});\n")),
                      "drain"),
            Strings{"A: [[i, j], [], SpaceTimeTransform::NoCheckTime]"});
  // A chain's step whose space loops the drainer lacks ends the copy.
  EXPECT_EQ(inherited(merged_program(isolated_gemm(
                          "A.space_time_transform({k, i}, {1, 1}, SpaceTimeTransform::CheckTime)"
                          ".space_time_transform({k});\n")),
                      "drain"),
            Strings{"A: [[i], [1], SpaceTimeTransform::CheckTime]"});
  // A general form whose source loops the drainer lacks (k) is not copied.
  EXPECT_TRUE(inherited(merged_program(isolated_gemm("Var s, t;\nA.space_time_transform({k, i, "
                                                     "j}, {s, t}, {{0, 1, 0}, {1, 0, 4}});\n")),
                        "drain")
                  .empty());
  // The drainer's own transform replaces the inherited one.
  EXPECT_TRUE(inherited(merged_program(isolated_gemm("A.space_time_transform({k, i}, {1, 2});\n"
                                                     "drain.space_time_transform(j);\n")),
                        "drain")
                  .empty());
}

// A Func with all of its producer's loops inherits a general form as it is; a chain's second
// consumer inherits what the first ends up with (its own transform).
TEST(MergeTest, ChainInheritsWhatEachConsumerEndsUpWith) {
  const std::string spec =
      "ImageParam a(Int(32), 2, \"a\");\n"
      "Var i, j, s, t;\n"
      "Func P(Int(32), {i, j}, Place::Device), d(Place::Device), e(Place::Device);\n"
      "P(i, j) = select(j == 0, a(i, j), P(i, j - 1) + a(i, j));\n"
      "P.set_bounds(i, 0, 3, j, 0, 4).space_time_transform({i, j}, {s, t}, {{1, 0}, {1, 1}});\n"
      "P.isolate_consumer_chain(d, e);\n";
  Program p = merged_program(spec + "e.realize({3, 4});\n");
  const std::string general =
      "P: [[i, j], [s, t], [[1, 0], [1, 1]], [], SpaceTimeTransform::NoCheckTime]";
  EXPECT_EQ(inherited(p, "d"), Strings{general});
  EXPECT_EQ(inherited(p, "e"), Strings{general});
  p = merged_program(spec + "d.space_time_transform(i);\ne.realize({3, 4});\n");
  EXPECT_TRUE(inherited(p, "d").empty());
  EXPECT_EQ(inherited(p, "e"), Strings{"d: [[i], [], SpaceTimeTransform::NoCheckTime]"});
}

TEST(MergeTest, IsolatedConsumerInheritsVectorizedAndUnrolledLoops) {
  Program p = merged_program(isolated_gemm("A.vectorize(i);\n"));
  ASSERT_NE(find_loop(p, "drain", "i"), nullptr);
  EXPECT_EQ(find_loop(p, "drain", "i")->loop_kind, LoopKind::kVectorized);
  // Its own vectorize replaces the inherited lanes.
  p = merged_program(isolated_gemm("A.vectorize(i);\ndrain.vectorize(j, 2);\n"));
  EXPECT_EQ(find_loop(p, "drain", "i")->loop_kind, LoopKind::kSerial);
  EXPECT_EQ(find_loop(p, "drain", "j_vi")->loop_kind, LoopKind::kVectorized);
  p = merged_program(isolated_gemm("A.unroll(j);\n"));
  EXPECT_EQ(find_loop(p, "drain", "j")->loop_kind, LoopKind::kUnrolled);
  // ... which its own transform replaces with the inherited transform.
  p = merged_program(isolated_gemm("A.unroll(j);\ndrain.space_time_transform(i);\n"));
  EXPECT_EQ(find_loop(p, "drain", "j")->loop_kind, LoopKind::kSerial);
}

TEST(MergeTest, IsolatedConsumerInheritsThePendingOrderWithTheTransform) {
  // A's reorder is legal only in the transformed order (pending); D inherits it with the
  // transform, so both ends run one schedule.
  const std::string spec =
      "ImageParam a(Int(32), 3, \"a\");\n"
      "Var i, j, k;\n"
      "Func A(Int(32), {i, j, k}), out(Place::Device), D(Place::Device);\n"
      "A(i, j, k) = select(j < 2 || k < 2, a(i, j, k), A(i + 1, j - 2, k - 2) + a(i, j, k));\n"
      "out(i, j, k) = A(i, j, k) * 2;\n"
      "A.merge_ures(out).set_bounds(i, 0, 3, j, 0, 4, k, 0, 1).reorder(k, j, i)"
      ".space_time_transform({k}, {1});\n"
      "out.isolate_consumer(D);\n";
  Program p = merged_program(spec + "D.realize({3, 4, 1});\n");
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[1].pending_order, (Strings{"k", "j", "i"}));
  EXPECT_EQ(p.kernels[1].pending_order, p.kernels[0].pending_order);
  // With a transform of its own, D runs its merged order.
  p = merged_program(spec + "D.space_time_transform(i);\nD.realize({3, 4, 1});\n");
  EXPECT_TRUE(p.kernels[1].pending_order.empty());
}

TEST(MergeTest, LoopDirectivesOnAnIsolatedFuncNameItsCopiedLoops) {
  EXPECT_EQ(merge_error(isolated_gemm("drain.split(k, ko, ki, 2);\n")),
            "split: 'k' is not a loop of 'drain' (its loops: i, j (innermost first)) [split-var]");
  EXPECT_EQ(merge_error(isolated_gemm("drain.reorder(k, i);\n")),
            "'k' is not a loop of 'drain' (i, j) [reorder-var]");
  EXPECT_EQ(merge_error(isolated_gemm("load.split(k, ko, ki, 3);\n")),
            "split of 'k' by 3: the factor does not divide the loop's extent 8 (splits have no "
            "tail; use a factor that divides 8) [split-factor]");
  EXPECT_EQ(merge_error(isolated_gemm("load.unroll(ko);\n")),
            "unroll: 'ko' is not a loop of 'load' (its loops: k, i, j (innermost first)) "
            "[unroll-var]");
  EXPECT_EQ(merge_error(isolated_gemm("load.vectorize(ko);\n")),
            "vectorize: 'ko' is not a loop of 'load' (its loops: k, i, j (innermost first)) "
            "[vectorize-var]");
  // set_bounds may repeat a copied bound, not change it.
  EXPECT_EQ(merge_error(isolated_gemm("load.set_bounds(k, 0, 8);\n")), "");
  EXPECT_EQ(merge_error(isolated_gemm("load.set_bounds(k, 0, 4);\n")),
            "set_bounds of 'k' on 'load', an isolated Func, to [0, 4): it copies its loops from "
            "the nest it is isolated from, where 'k' runs over [0, 8) [set-bounds-var]");
}

TEST(MergeTest, BoundsAreInferredFromShiftedReads) {
  const Program p = merged_program(std::string(kHeader) +
                                   "Func P(Int(32), {x}), out;\n"
                                   "P(x) = select(x == 0, a(x), P(x - 1) + a(x));\n"
                                   "out(x) = P(x) + P(x + 2);\n"
                                   "out.realize({4});\n");
  EXPECT_EQ(loop_bounds(p, "P", "x"), std::make_pair(std::string("0"), std::string("6")));
  EXPECT_EQ(loop_bounds(p, "out", "x"), std::make_pair(std::string("0"), std::string("4")));
}

TEST(MergeTest, BoundsAreInferredUnderSelectConditionsAndTransitively) {
  // Q is read at x - 1 only where x > 1 (x in [2, 5)), and through the inlined f: [1, 4).
  const Program p = merged_program(std::string(kHeader) +
                                   "Func Q(Int(32), {x}), P(Int(32), {x}), f, out;\n"
                                   "Q(x) = select(x == 1, a(x), Q(x - 1) + a(x));\n"
                                   "f(x) = Q(x - 1) * 2;\n"
                                   "P(x) = select(x > 1, P(x - 1) + f(x), 0);\n"
                                   "out(x) = P(x + 1);\n"
                                   "out.realize({4});\n");
  EXPECT_EQ(loop_bounds(p, "P", "x"), std::make_pair(std::string("1"), std::string("4")));
  EXPECT_EQ(loop_bounds(p, "Q", "x"), std::make_pair(std::string("1"), std::string("3")));
}

TEST(MergeTest, BoundsThroughADiamondOfInlinedFuncs) {
  // F1 reads P; F2 .. F40 each read the one before twice: each call is walked once (2^40
  // copies otherwise).
  std::string spec = std::string(kHeader) + "Func P(Int(32), {x}), out;\n";
  for (int n = 1; n <= 40; ++n) spec += "Func F" + std::to_string(n) + ";\n";
  spec += "P(x) = select(x == 0, a(x), P(x - 1) + a(x));\n";
  spec += "F1(x) = P(x + 1);\n";
  for (int n = 2; n <= 40; ++n)
    spec += "F" + std::to_string(n) + "(x) = F" + std::to_string(n - 1) + "(x) + F" +
            std::to_string(n - 1) + "(x);\n";
  spec += "out(x) = F40(x);\nout.realize({4});\n";
  const Program p = merged_program(spec);
  // F1 reads P over [1, 5); P(1) reads P(0), where the recursion starts: [0, 5).
  EXPECT_EQ(loop_bounds(p, "P", "x"), std::make_pair(std::string("0"), std::string("5")));
}

TEST(MergeTest, InferredRangeHoldsTheValuesANestReadsOfItself) {
  // out reads P over [3, 7); P(3) needs P(2), P(1) (where the recursion starts), but not P(0).
  const Program p = merged_program(std::string(kHeader) +
                                   "Func P(Int(32), {x}), out;\n"
                                   "P(x) = select(x == 1, a(x), P(x - 1) + a(x));\n"
                                   "out(x) = P(x + 3);\n"
                                   "out.realize({4});\n");
  EXPECT_EQ(loop_bounds(p, "P", "x"), std::make_pair(std::string("1"), std::string("6")));
  // A recursion without a start below the range read: the range would grow without end.
  try {
    merged_program(std::string(kHeader) +
                   "Func P(Int(32), {x}), out;\n"
                   "P(x) = select(x == -100000, a(x), P(x - 1) + a(x));\n"
                   "out(x) = P(x);\n"
                   "out.realize({4});\n");
    FAIL() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "merge-bounds");
    EXPECT_EQ(d.message(),
              "the range of loop 'x' of 'P' that its consumers read keeps growing with the values "
              "'P' reads of itself (now [-4097, 4)); give P.set_bounds(x, min, extent)");
  }
}

TEST(MergeTest, MergeGroupGetsTheLoopsSetBoundsDoesNotGive) {
  // k from set_bounds, i from out's reads c(x) and c(x + 1): [0, 5).
  const Program p = merged_program(
      "ImageParam a(Int(32), 2, \"a\");\n"
      "Var i, k;\n"
      "Func C(Int(32), {i, k}), c(Int(32), {i}), out;\n"
      "C(i, k) = select(k == 0, 0, C(i, k - 1)) + a(i, k);\n"
      "c(i) = select(k == 3, C(i, k));\n"
      "C.merge_ures(c).set_bounds(k, 0, 4);\n"
      "out(i) = c(i) + c(i + 1);\n"
      "out.realize({4});\n");
  EXPECT_EQ(loop_bounds(p, "C", "k"), std::make_pair(std::string("0"), std::string("4")));
  EXPECT_EQ(loop_bounds(p, "C", "i"), std::make_pair(std::string("0"), std::string("5")));
}

TEST(MergeTest, SetBoundsWinsOverInference) {
  const Program p = merged_program(std::string(kHeader) +
                                   "Func P(Int(32), {x}), out;\n"
                                   "P(x) = select(x == 0, a(x), P(x - 1) + a(x));\n"
                                   "P.set_bounds(x, 0, 9);\n"
                                   "out(x) = P(x) + P(x + 2);\n"
                                   "out.realize({4});\n");
  EXPECT_EQ(loop_bounds(p, "P", "x"), std::make_pair(std::string("0"), std::string("9")));
}

TEST(MergeTest, NoBoundsWhereNothingReadsTheLoop) {
  // The merged group's k is not an argument of the realized c: nothing determines it.
  EXPECT_EQ(merge_error(std::string(kHeader) + "Var k;\n"
                                               "Func C(Int(32), {x, k}), c;\n"
                                               "C(x, k) = select(k == 0, 0, C(x, k - 1)) + a(x);\n"
                                               "c(x) = select(k == 3, C(x, k));\n"
                                               "C.merge_ures(c);\n"
                                               "c.realize({4});\n"),
            "no bounds for loop 'k' of 'C': give C.set_bounds(k, min, extent) [merge-bounds]");
}

TEST(MergeTest, NoBoundsFromANonAffineRead) {
  EXPECT_EQ(merge_error(std::string(kHeader) + "Func P(Int(32), {x}), out;\n"
                                               "P(x) = select(x == 0, a(x), P(x - 1) + a(x));\n"
                                               "out(x) = P(x * x);\n"
                                               "out.realize({4});\n"),
            "no bounds for loop 'x' of 'P': give P.set_bounds(x, min, extent) [merge-bounds]");
}

// The loops of a kernel's nest, innermost first.
std::vector<std::string> nest_order(const Kernel& k) {
  std::vector<std::string> loops;
  const StmtList* body = &k.body;
  while (body->size() == 1 && (*body)[0]->as<Realize>()) body = &(*body)[0]->as<Realize>()->body;
  while (body->size() == 1 && (*body)[0]->as<For>()) {
    loops.insert(loops.begin(), (*body)[0]->as<For>()->var);
    body = &(*body)[0]->as<For>()->body;
  }
  return loops;
}

// X reads X(q + 1, iic - 1): distance (-1, 1) over (q, iic), legal with q outermost only.
const char kDiagonal[] =
    "ImageParam x(Int(32), 1, \"x\");\n"
    "Var q, iic, qo, qi;\n"
    "Func X(Int(32), ARGS), out;\n"
    "X(ARGS_USE) = select(iic == 0 || q == 3, x(q + iic), X(NEXT));\n"
    "out(q) = select(iic == 2, X(ARGS_USE));\n"
    "X.merge_ures(out).set_bounds(q, 0, 4, iic, 0, 3)DIRECTIVES;\n"
    "out.realize({4});\n";

std::string diagonal(bool iic_first, const std::string& directives) {
  std::string s = kDiagonal;
  auto put = [&](const std::string& key, const std::string& value) {
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at))
      s.replace(at, key.size(), value);
  };
  put("ARGS_USE", iic_first ? "iic, q" : "q, iic");
  put("ARGS", iic_first ? "{iic, q}" : "{q, iic}");
  put("NEXT", iic_first ? "iic - 1, q + 1" : "q + 1, iic - 1");
  put("DIRECTIVES", directives);
  return s;
}

TEST(MergeTest, ReorderLegalOnlyAfterTheTransformWaitsForIt) {
  const Program p =
      merged_program(diagonal(false, ".reorder(iic, q).space_time_transform({iic}, {2})"));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(nest_order(p.kernels[0]), (std::vector<std::string>{"q", "iic"}));
  EXPECT_EQ(p.kernels[0].pending_order, (std::vector<std::string>{"iic", "q"}));
}

TEST(MergeTest, DefinedOrderIllegalBeforeTheTransformRunsInALegalPermutation) {
  const Program p = merged_program(diagonal(true, ".space_time_transform({iic}, {2})"));
  EXPECT_EQ(nest_order(p.kernels[0]), (std::vector<std::string>{"q", "iic"}));
  EXPECT_EQ(p.kernels[0].pending_order, (std::vector<std::string>{"iic", "q"}));
}

TEST(MergeTest, SplitNestOrderLegalOnlyAfterTheTransformWaitsForIt) {
  // qo has extent 1: the transform's order (qo, qi, iic with t = qi + 2 * iic) respects the
  // diagonal read; the merged stage runs the splits without the reorder.
  const Program p = merged_program(diagonal(
      false, ".split(q, qo, qi, 4).reorder(iic, qi, qo).space_time_transform({iic}, {2})"));
  EXPECT_EQ(nest_order(p.kernels[0]), (std::vector<std::string>{"qi", "qo", "iic"}));
  EXPECT_EQ(p.kernels[0].pending_order, (std::vector<std::string>{"iic", "qi", "qo"}));
}

TEST(MergeTest, LegalOrderHasNoPendingOrder) {
  const Program p = merged_program(diagonal(false, ".space_time_transform({q})"));
  EXPECT_EQ(nest_order(p.kernels[0]), (std::vector<std::string>{"q", "iic"}));
  EXPECT_TRUE(p.kernels[0].pending_order.empty());
}

TEST(MergeTest, IllegalOrderWithoutTransformIsRefused) {
  try {
    merged_program(diagonal(true, ""));
    FAIL() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "ure-distance");
  }
  try {
    merged_program(diagonal(false, ".reorder(iic, q)"));
    FAIL() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "reorder-dependence");
    ASSERT_EQ(d.notes().size(), 1u);
    EXPECT_EQ(d.notes()[0].loc.str(), "4:52");
  }
}

}  // namespace
}  // namespace t2s
