#include <gtest/gtest.h>

#include "libs/frontend/frontend.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"

namespace t2s {
namespace {

Program parse(const std::string& text, std::vector<std::string> defines = {}) {
  SourceManager sources;
  sources.add("", "spec.t2s", text);
  FrontendOptions options;
  options.preprocess.defines = std::move(defines);
  return parse_spec(sources, options);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Diagnostic& d) {
    return d.loc().str() + ": " + d.message() + " [" + d.rule() + "]";
  }
  return "no error";
}

std::string args_of(const Directive& d) {
  std::string s;
  std::function<void(const DirectiveArg&)> print = [&](const DirectiveArg& a) {
    if (a.kind != DirectiveArg::kList) {
      s += a.text;
      return;
    }
    s += "{";
    for (size_t i = 0; i < a.items.size(); ++i) {
      if (i) s += ",";
      print(a.items[i]);
    }
    s += "}";
  };
  for (size_t i = 0; i < d.args.size(); ++i) {
    if (i) s += " ";
    print(d.args[i]);
  }
  return s;
}

const char* kPrelude = R"(
ImageParam a(Float(32), 2, "a");
Var i, j, k, t, s;
Func A(Float(32), {i, j, k}), c;
A(i, j, k) = select(i == 0, a(j, k), A(i - 1, j, k));
c(i, j) = select(k == 3, A(i, j, k));
)";

std::string stt(const std::string& call) {
  Program p =
      parse(std::string(kPrelude) + "A.merge_ures(c).set_bounds(i, 0, 4, j, 0, 4, k, 0, 4)" + call +
            ";\nc.realize({4, 4});\n");
  return args_of(p.directives.back());
}

TEST(ParserTest, SpaceTimeTransformNormalForms) {
  EXPECT_EQ(stt(".space_time_transform(i, j)"), "{i,j} {} SpaceTimeTransform::NoCheckTime");
  EXPECT_EQ(stt(".space_time_transform({i, j})"), "{i,j} {} SpaceTimeTransform::NoCheckTime");
  EXPECT_EQ(stt(".space_time_transform({i, j}, {2, 3})"),
            "{i,j} {2,3} SpaceTimeTransform::NoCheckTime");
  EXPECT_EQ(stt(".space_time_transform({i, j}, {2, 1 + 2}, SpaceTimeTransform::CheckTime)"),
            "{i,j} {2,3} SpaceTimeTransform::CheckTime");
  // General form: flat and nested matrices and reverse mappings give the same record.
  std::string flat =
      stt(".space_time_transform({i, j, k}, {s, t}, {1, 0, 0, 1, 1, 1}, "
          "{i, s, j, t - s - k, k, k})");
  std::string nested =
      stt(".space_time_transform({i, j, k}, {s, t}, {{1, 0, 0}, {1, 1, 1}}, "
          "{{i, s}, {j, t - s - k}, {k, k}})");
  EXPECT_EQ(flat,
            "{i,j,k} {s,t} {{1,0,0},{1,1,1}} {{i,s},{j,t - s - k},{k,k}} "
            "SpaceTimeTransform::NoCheckTime");
  EXPECT_EQ(flat, nested);
  EXPECT_EQ(stt(".space_time_transform({i, j}, {i, t}, {1, 0, 1, 1})"),
            "{i,j} {i,t} {{1,0},{1,1}} {} SpaceTimeTransform::NoCheckTime");
}

TEST(ParserTest, SpaceTimeTransformErrors) {
  auto err = [](const std::string& call) {
    return error_of(std::string(kPrelude) + "A" + call + ";\nc.realize({4, 4});\n");
  };
  EXPECT_EQ(err(".space_time_transform({i, j}, {s, t}, {1, 0, 1})"),
            "7:40: space_time_transform: the matrix has 3 entries; expected 2 x 2 = 4 "
            "[directive-args]");
  EXPECT_EQ(err(".space_time_transform(i, SpaceTimeTransform::Sometimes)"),
            "7:27: space_time_transform: expected SpaceTimeTransform::CheckTime or "
            "SpaceTimeTransform::NoCheckTime, not 'SpaceTimeTransform::Sometimes' "
            "[directive-args]");
  EXPECT_EQ(err(".space_time_transform({i, j}).space_time_transform({i, j})"),
            "7:32: the space loops (i, j) of a chained space_time_transform must be a proper "
            "subset of the previous transform's (i, j) [stt-chain]");
}

TEST(ParserTest, T2sTestProgramConstructs) {
  // The spec part of a T2S test program: Var names, util.h's PLACE macros, C++ ifs on
  // constants, a Buffer result and a Target.
  Program p = parse(R"(
#define KK 2
#define OK 4
ImageParam a(type_of<int>(), 2);
Var kk("kk"), ok("ok");
const int N = OK * KK;
Func A(Int(32), {kk, ok}, PLACE1), out(PLACE0);
if (KK != OK) {
  A(kk, ok) = select(kk == 0, a(kk, ok), A(kk - 1, ok) + cast<int>(1.5f));
} else {
  A(kk, ok) = 0;
}
out(ok) = select(kk == KK - 1, A(kk, ok));
A.merge_ures(out).set_bounds(kk, 0, KK, ok, 0, N / KK);
Target target = get_host_target();
target.set_feature(Target::IntelFPGA);
Buffer<int> result = out.realize({OK}, target);
)");
  ASSERT_EQ(p.funcs.size(), 2u);
  EXPECT_EQ(p.funcs[0].place, Place::kDevice);
  EXPECT_EQ(p.funcs[1].place, Place::kHost);
  EXPECT_EQ(print_expr(p.funcs[0].definition),
            "select(kk == 0, a(kk, ok), A(kk - 1, ok) + cast(Int(32), 1.5f))");
  EXPECT_EQ(print_expr(p.funcs[1].definition), "select(kk == 1, A(kk, ok))");
  EXPECT_EQ(args_of(p.directives[1]), "kk 0 2 ok 0 4");
  EXPECT_EQ(p.output.func, "out");
  EXPECT_EQ(p.output.extents, std::vector<int64_t>{4});
}

TEST(ParserTest, DefinitionsTakeHalideTypes) {
  Program p = parse(R"(
ImageParam a(UInt(8), 1, "a");
Var i;
Func f(Float(32), {i}), g, h;
f(i) = 0;
g(i) = a(i) + 1;
h(i) = g(i) * 2.5;
h.realize(8);
)");
  EXPECT_EQ(print_expr(p.funcs[0].definition), "0.0f");
  EXPECT_EQ(p.funcs[1].type, Type::UInt(8));
  EXPECT_EQ(print_expr(p.funcs[1].definition), "a(i) + cast(UInt(8), 1)");
  EXPECT_EQ(p.funcs[2].type, Type::Float(64));
  EXPECT_EQ(print_expr(p.funcs[2].definition), "cast(Float(64), g(i)) * 2.5");
}

TEST(ParserTest, DirectivesAreRecordedInProgramOrder) {
  Program p = parse(R"(
ImageParam a(Float(32), 2, "a");
Var i, j;
Func A(Float(32), {i, j}, Place::Device), c(Place::Device), d(Place::Device), e(Place::Device);
Func feeder(Place::Device);
A(i, j) = select(j == 0, a(i, j), A(i, j - 1));
c(i) = select(j == 3, A(i, j));
A.merge_ures(c).reorder(j, i).set_bounds(i, 0, 4, j, 0, 4);
A.isolate_producer_chain(a, feeder);
c.isolate_consumer_chain(d, e);
d.gather(c, i);
e.vectorize(i);
e.realize({4});
)");
  std::vector<std::string> names;
  for (const Directive& d : p.directives)
    names.push_back(d.func + "." + d.name + "(" + args_of(d) + ")");
  EXPECT_EQ(names, (std::vector<std::string>{
                       "A.merge_ures(c)", "A.reorder(j i)", "A.set_bounds(i 0 4 j 0 4)",
                       "A.isolate_producer_chain(a feeder)", "c.isolate_consumer_chain(d e)",
                       "d.gather(c i GatherStrategy::Up)", "e.vectorize(i)"}));
}

TEST(ParserTest, RecordsT2sDirectivesBeyondTheLanguage) {
  Program p = parse(std::string(kPrelude) + R"(
Func loader(Place::Device), feeder(Place::Device);
A.merge_ures(c).set_bounds(i, 0, 4, j, 0, 4, k, 0, 4);
A.isolate_producer_chain(a, loader, feeder);
feeder.scatter(loader, i).buffer(loader, j, BufferStrategy::Double).remove(k).min_depth(2 * 128);
c.realize({4, 4});
)");
  std::vector<std::string> names;
  for (size_t n = 3; n < p.directives.size(); ++n)
    names.push_back(p.directives[n].name + "(" + args_of(p.directives[n]) + ")");
  EXPECT_EQ(names, (std::vector<std::string>{"scatter(loader i)",
                                             "buffer(loader j BufferStrategy::Double)", "remove(k)",
                                             "min_depth(256)"}));
  EXPECT_EQ(error_of(std::string(kPrelude) + "A.min_depth(0);\nc.realize({4, 4});\n"),
            "7:13: min_depth: the depth must be from 1 to 2^31 - 1, not 0 [directive-args]");
}

TEST(ParserTest, HalideSchedulingDirectives) {
  Program p = parse(std::string(kPrelude) + R"(
Var ko, ki, k_vi;
Func h;
h(i, j) = a(i, j);
A.merge_ures(c).set_bounds(i, 0, 4, j, 0, 4, k, 0, 8).split(k, ko, ki, 2 * 2);
A.vectorize(ki, 2).unroll(j, 2).unroll(i).vectorize(i);
A.vectorize(j, 2);
h.compute_root();
c.realize({4, 4});
)");
  std::vector<std::string> names;
  for (size_t n = 2; n < p.directives.size(); ++n)
    names.push_back(p.directives[n].name + "(" + args_of(p.directives[n]) + ")");
  // vectorize(v, f) and unroll(v, f): a split keeping v's name outside, then the directive on
  // the inner loop, whose name no symbol (k_vi is a Var) or earlier split loop has.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "split(k ko ki 4)", "split(ki ki ki_vi 2)", "vectorize(ki_vi)",
                       "split(j j j_ui 2)", "unroll(j_ui)", "unroll(i)", "vectorize(i)",
                       "split(j j j_vi 2)", "vectorize(j_vi)", "compute_root()"}));
  for (size_t n = 3; n < 5; ++n) EXPECT_EQ(p.directives[n].loc.str(), "12:3");
  auto error = [](const std::string& directive) {
    return error_of(std::string(kPrelude) + "Var ko, ki;\nA" + directive +
                    ";\nc.realize({4, 4});\n");
  };
  EXPECT_EQ(error(".split(k, ko, 4)"),
            "8:3: split: expected (v, vo, vi, factor): the loop, its outer and inner loops, and "
            "the factor [directive-args]");
  EXPECT_EQ(error(".split(k, ko, ko, 4)"),
            "8:16: split: the outer and inner loops need two names, not 'ko' twice "
            "[directive-args]");
  EXPECT_EQ(error(".split(k, ko, ki, i)"),
            "8:20: split: the factor must be an integer constant, not 'i' [directive-args]");
  EXPECT_EQ(error(".vectorize(k, 2, 3)"),
            "8:3: vectorize: expected a loop (a Var) and an optional factor [directive-args]");
  EXPECT_EQ(error(".compute_root(k)"), "8:3: compute_root: takes no arguments [directive-args]");
}

TEST(ParserTest, CommandLineDefines) {
  const char* spec = R"(
#ifndef N
#define N 4
#endif
Var i;
Func f;
f(i) = i * N;
f.realize({N});
)";
  EXPECT_EQ(parse(spec).output.extents, std::vector<int64_t>{4});
  Program p = parse(spec, {"N=16"});
  EXPECT_EQ(p.output.extents, std::vector<int64_t>{16});
  EXPECT_EQ(print_expr(p.funcs[0].definition), "i * 16");
}

TEST(ParserTest, Errors) {
  EXPECT_EQ(error_of("Var i;\nFunc f;\nf(i) = i;\nf.realize({0});\n"),
            "4:12: a realize extent must be from 1 to 2^31 - 1, not 0 [realize]");
  EXPECT_EQ(error_of("Var i;\nFunc f;\nf(i) = f;\nf.realize({4});\n"),
            "3:8: 'f' is a Func and cannot be used as a value here (call it with arguments) "
            "[not-a-value]");
  EXPECT_EQ(error_of("Var i, i;\n"), "1:8: redefinition of 'i' (already a Var) [redefinition]");
  EXPECT_EQ(error_of("Var select;\n"), "1:5: 'select' is a reserved name [redefinition]");
  EXPECT_EQ(error_of("Var i;\nFunc f, g;\nf(i) = i;\ng(i) = f(i);\nf.merge_ures(g).set_bounds(i, "
                     "0, 3000000000l);\ng.realize({4});\n"),
            "5:34: set_bounds: the extent must be an integer constant, not '3000000000l' "
            "[directive-args]");
  EXPECT_EQ(error_of("Var i;\nFunc f;\nf(i) = i;\nf.realize({4});\nwhile (1) {}\n"),
            "5:1: unknown identifier 'while' [unknown-identifier]");
  EXPECT_EQ(error_of("Var i;\nFunc f, g;\nf.isolate_consumer(g);\ng.realize({4});\n"), "no error");
  EXPECT_EQ(error_of("Var i;\nFunc f;\nf(i) = i;\nf.merge_ures(" + std::string(100000, '{') + "\n"),
            "4:22: lists nested too deeply in a directive argument [syntax]");
  EXPECT_EQ(error_of("Var i;\nFunc f, g;\nf(i) = i;\ng.realize({4});\n"),
            "4:3: the realized Func 'g' is never defined [realize]");
}

TEST(ParserTest, OutputIsDeterministicAndRoundTrips) {
  std::string spec = std::string(kPrelude) +
                     "A.merge_ures(c).set_bounds(i, 0, 4, j, 0, 4, k, 0, 4);\nc.realize({4, 4});\n";
  std::string first = write_program(parse(spec));
  EXPECT_EQ(first, write_program(parse(spec)));
  EXPECT_EQ(write_program(read_program(first, "x.json")), first);
}

}  // namespace
}  // namespace t2s
