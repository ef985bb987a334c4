// The program-level facts (program_facts.h): runs of kernels, what each kernel touches.
#include "libs/ir/program_facts.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace t2s {
namespace {

const Type kInt = Type::Int(32);

Expr var(const char* name) { return make_var(name, kInt, {}); }
Expr read(const char* func, CallKind kind) { return make_call(func, kind, kInt, {var("i")}); }
Expr read_channel(const char* channel) {
  return make_call("read_channel", CallKind::kChannel, kInt, {make_var(channel)});
}
StmtPtr loop(StmtList body) {
  return make_for("i", make_int(kInt, 0), make_int(kInt, 4), LoopKind::kSerial, std::move(body));
}

TEST(ProgramFacts, RunsAreMaximalStretchesOfDeviceKernels) {
  Program p;
  for (auto [name, place] : {std::pair{"a", Place::kDevice},
                             {"b", Place::kDevice},
                             {"h", Place::kHost},
                             {"g", Place::kHost},
                             {"c", Place::kDevice}}) {
    Kernel k;
    k.name = name;
    k.place = place;
    p.kernels.push_back(k);
  }
  std::vector<std::pair<size_t, size_t>> runs;
  for (const KernelRun& r : kernel_runs(p)) runs.emplace_back(r.first, r.last);
  EXPECT_EQ(runs, (std::vector<std::pair<size_t, size_t>>{{0, 2}, {2, 3}, {3, 4}, {4, 5}}));
  EXPECT_TRUE(kernel_runs(Program()).empty());
}

TEST(ProgramFacts, AccessesSeeBuffersInputsAndChannelsButNotRealizedStorage) {
  Program p;
  p.inputs.push_back({"x", kInt, 1, {4}, {}});
  p.buffers.push_back({"B", kInt, {}, {}, {}});
  p.buffers.push_back({"T", kInt, {}, {}, {}});
  p.buffers.push_back({"U", kInt, {}, {}, {}});
  p.channels.push_back({"c0", kInt, {}, 0, "k", "other", {}, ""});
  p.channels.push_back({"c1", kInt, {}, 0, "other", "k", {}, ""});
  Kernel k;
  k.name = "k";
  // B(i) = x(i) + read_channel(c1); write_channel(c0, U(i));
  // realize T { T(i) = B(i); B(i) = T(i) }: T is the realize's own storage, not buffer T.
  k.body = {loop({
      make_provide(
          "B", {var("i")},
          make_binary(BinaryOp::kAdd, read("x", CallKind::kImage), read_channel("c1"), kInt)),
      make_write_channel("c0", {}, read("U", CallKind::kFunc)),
      make_realize("T", kInt, {make_int(kInt, 0)}, {make_int(kInt, 4)},
                   {make_provide("T", {var("i")}, read("B", CallKind::kFunc)),
                    make_provide("B", {var("i")}, read("T", CallKind::kFunc))}),
  })};
  p.kernels.push_back(k);
  const KernelAccesses a = kernel_accesses(p, p.kernels[0]);
  EXPECT_EQ(a.inputs_read, (std::set<size_t>{0}));
  EXPECT_EQ(a.buffers_read, (std::set<size_t>{0, 2}));  // B (in the realize) and U
  EXPECT_EQ(a.buffers_written, (std::set<size_t>{0}));  // B, not T
  EXPECT_EQ(a.channels_read, (std::set<size_t>{1}));
  EXPECT_EQ(a.channels_written, (std::set<size_t>{0}));
}

TEST(ProgramFacts, FreshNamesAvoidEveryNameOfTheProgram) {
  Program p;
  p.vars = {"i"};
  p.funcs.push_back({"F", kInt, {"i"}, Place::kDevice, true, "", nullptr, {}, {}});
  p.inputs.push_back({"x", kInt, 1, {4}, {}});
  p.buffers.push_back({"B", kInt, {}, {}, {}});
  p.channels.push_back({"ch", kInt, {}, 0, "k", "k", {}, ""});
  Kernel k;
  k.name = "k";
  k.body = {loop({make_let("v", make_int(kInt, 1),
                           {make_realize("R", kInt, {}, {}, {make_provide("R", {}, var("v"))})})})};
  p.kernels.push_back(k);
  NameSupply names(p);
  for (const char* taken : {"i", "F", "x", "B", "ch", "k", "v", "R"}) {
    EXPECT_TRUE(names.taken(taken)) << taken;
    EXPECT_EQ(names.fresh(taken), std::string(taken) + "_1");
  }
  EXPECT_EQ(names.fresh("t"), "t");
  EXPECT_EQ(names.fresh("t"), "t_1");
  EXPECT_EQ(names.fresh("t"), "t_2");
  names.take("u");
  EXPECT_EQ(names.fresh("u"), "u_1");
  EXPECT_TRUE(names.taken("t_2"));
  // stt's spelling: underscores appended, past every name taken so far.
  names.take("w_");
  EXPECT_EQ(names.fresh("w", NameSupply::Suffix::kUnderscores), "w");
  EXPECT_EQ(names.fresh("w", NameSupply::Suffix::kUnderscores), "w__");
  EXPECT_EQ(names.fresh("t", NameSupply::Suffix::kUnderscores), "t_");
}

TEST(ProgramFacts, FirstUnimplementedDirectiveOfAStage) {
  Program p;
  p.directives.push_back(
      Directive::make("F", DirectiveKind::kReorder, {DirectiveArg::expr("i")}, {}));
  p.directives.push_back(
      Directive::make("F", DirectiveKind::kRemove, {DirectiveArg::expr("j")}, {}));
  p.directives.push_back(Directive::make(
      "F", DirectiveKind::kBuffer, {DirectiveArg::expr("P"), DirectiveArg::expr("j")}, {"", 3, 5}));
  p.directives.push_back(Directive::make("F", DirectiveKind::kScatter,
                                         {DirectiveArg::expr("P"), DirectiveArg::expr("k")}, {}));
  // Every declared directive is implemented now (buffer and remove by t2s-merge and t2s-stt,
  // scatter by t2s-stt): no stage refuses one as unsupported.
  for (DirectiveStage stage : {DirectiveStage::kMerge, DirectiveStage::kStt, DirectiveStage::kVec,
                               DirectiveStage::kGather})
    EXPECT_EQ(first_unimplemented_directive(p, stage), nullptr);
  for (const DirectiveDecl* d = directive_decls_begin(); d != directive_decls_end(); ++d)
    EXPECT_TRUE(d->implemented) << d->name;
}

}  // namespace
}  // namespace t2s
