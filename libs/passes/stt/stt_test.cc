// //libs/passes/stt:stt_test: the stt stage of every spec computes what the merged stage does,
// and every register is exactly as large as the largest number of values live in it at once.
//
// The sizes t2s-stt computes with isl are checked here against an independent brute force: the
// reference interpreter runs the stt stage with register tracking (RunOptions::max_live), which
// follows every value from its write to its last read through the actual schedule. Every
// program the pass produces is also well formed (the IR verifier), and its expression trees are
// the ones the IR reader makes of their printed form.
#include "libs/passes/stt/stt.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/ir/visitor.h"
#include "libs/passes/merge/merge.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

struct Case {
  std::string spec;                  // testdata/specs/NAME.t2s
  std::vector<std::string> defines;  // -D values
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Program merged_of(const Case& c) {
  SourceManager sources;
  sources.add("", c.spec, read(c.spec));
  sources.set_base_dir(std::filesystem::path(c.spec).parent_path().string());
  FrontendOptions options;
  options.preprocess.defines = c.defines;
  return merge_pass(parse_spec(sources, options));
}

// The same statement trees with the same expression trees (equal(): types and values).
void expect_same_trees(const StmtList& a, const StmtList& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const Stmt &sa = *a[i], &sb = *b[i];
    ASSERT_EQ(sa.kind(), sb.kind()) << at;
    std::vector<const Expr*> ea = sa.exprs(), eb = sb.exprs();
    ASSERT_EQ(ea.size(), eb.size()) << at;
    for (size_t e = 0; e < ea.size(); ++e)
      EXPECT_TRUE(equal(*ea[e], *eb[e])) << at << ": " << (*ea[e] ? print_expr(*ea[e]) : "null");
    std::vector<const StmtList*> ca = sa.children(), cb = sb.children();
    ASSERT_EQ(ca.size(), cb.size()) << at;
    for (size_t c = 0; c < ca.size(); ++c) expect_same_trees(*ca[c], *cb[c], at + ".body");
  }
}

// What every test checks of a program stt_pass made: it is well formed, and the trees the pass
// built are the canonical ones (those the reader builds from the document), so that the IR in
// memory and the IR written are the same.
void check_stt_program(const Program& stt, const std::string& name) {
  EXPECT_NO_THROW(verify_program(stt, name)) << name;
  Program reread = read_program(write_program(stt), name);
  ASSERT_EQ(stt.kernels.size(), reread.kernels.size());
  for (size_t k = 0; k < stt.kernels.size(); ++k)
    expect_same_trees(stt.kernels[k].body, reread.kernels[k].body, stt.kernels[k].name);
}

Program checked_stt_pass(const Program& merged, const std::string& name) {
  Program stt = stt_pass(merged);
  check_stt_program(stt, name);
  return stt;
}

// Every spec, with the flags its `// t2s-parse-flags:` comment names, and the int32 variants.
std::vector<Case> all_cases() {
  std::vector<Case> cases;
  std::vector<std::string> specs;
  for (const auto& e : std::filesystem::directory_iterator("testdata/specs"))
    if (e.path().extension() == ".t2s") specs.push_back(e.path().string());
  std::sort(specs.begin(), specs.end());
  for (const std::string& spec : specs) {
    Case c{spec, {}};
    std::smatch m;
    std::string text = read(spec);
    if (std::regex_search(text, m, std::regex("//\\s*t2s-parse-flags:([^\\n]*)"))) {
      std::istringstream flags(m[1].str());
      std::string f;
      while (flags >> f)
        if (f != "-D") c.defines.push_back(f);
    }
    cases.push_back(c);
    if (text.find("USE_INT") != std::string::npos) {
      c.defines.push_back("USE_INT");
      cases.push_back(c);
    }
  }
  return cases;
}

std::string name_of(const Case& c) {
  std::string n = c.spec;
  for (const std::string& d : c.defines) n += " -D " + d;
  return n;
}

// The largest constant slot read of shift register `name` in the program's kernels (-1: none).
int64_t deepest_slot_read(const Program& p, const std::string& name) {
  int64_t deepest = -1;
  for (const Kernel& k : p.kernels)
    for_each_stmt(k.body, [&](const Stmt& st) {
      for (const Expr* e : st.exprs())
        if (*e)
          for_each_expr(*e, [&](const Expr& x) {
            if (x->kind == ExprKind::kCall && x->call_kind == CallKind::kRegister &&
                x->name == name && !x->operands.empty() &&
                x->operands.back()->kind == ExprKind::kIntImm)
              deepest = std::max(deepest, x->operands.back()->int_value);
          });
    });
  return deepest;
}

TEST(SttTest, EveryRegisterHoldsExactlyTheLiveValuesAndTheResultIsUnchanged) {
  std::vector<Case> cases = all_cases();
  ASSERT_GE(cases.size(), 20u);
  int registers = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(name_of(c));
    Program merged = merged_of(c);
    Program stt = checked_stt_pass(merged, name_of(c));
    for (uint64_t seed : {1, 2}) {
      auto inputs = complete_inputs(merged, {}, FillKind::kRandom, seed);
      NdArray expected = run_program(merged, inputs);
      std::map<std::string, int64_t> live;
      RunOptions options;
      options.track_registers = true;
      options.max_live = &live;
      NdArray actual = run_program(stt, inputs, options);
      auto mismatch = compare_arrays(expected, actual);
      EXPECT_FALSE(mismatch.has_value()) << "stt result differs from merged, seed " << seed;
      for (const Register& r : stt.registers) {
        // A shift register whose values are read only under conditions the schedule does not
        // decide (T2SP's LU reads L(i - 1) only where i > k and j > k) holds fewer live values
        // than slots; a shift register is still no deeper than its deepest read needs.
        const int64_t deepest = deepest_slot_read(stt, r.name) + 1;
        if (r.kind == Register::kShift && live.at(r.name) < r.depth) {
          EXPECT_EQ(deepest, r.depth) << "register " << r.name << " (shift)";
        } else {
          EXPECT_EQ(live.at(r.name), r.depth)
              << "register " << r.name << " (" << register_kind_name(r.kind) << ")";
        }
        EXPECT_LE(r.depth, r.naive) << r.name;
      }
    }
    registers += static_cast<int>(stt.registers.size());
  }
  EXPECT_GE(registers, 30);
}

const Register& reg(const Program& p, const std::string& name) {
  const Register* r = p.find_register(name);
  if (!r) throw std::runtime_error("no register " + name);
  return *r;
}

// The for loops of a kernel, outermost first: name, extent, kind.
std::vector<std::tuple<std::string, int64_t, LoopKind>> loops_of(const Kernel& k) {
  std::vector<std::tuple<std::string, int64_t, LoopKind>> out;
  const StmtList* body = &k.body;
  while (body->size() == 1) {
    const Stmt& s = *(*body)[0];
    if (const For* loop = s.as<For>()) {
      out.emplace_back(loop->var, loop->extent->int_value, loop->loop_kind);
      body = &loop->body;
    } else if (const Realize* realize = s.as<Realize>()) {
      body = &realize->body;
    } else {
      break;
    }
  }
  return out;
}

// Seed 000's worked example (I = J = K = 10, double projection).
TEST(SttTest, SeedDoubleProjection) {
  Program stt = checked_stt_pass(merged_of({"testdata/specs/seed000_abc.t2s", {}}), "seed000");
  using L = std::tuple<std::string, int64_t, LoopKind>;
  EXPECT_EQ(loops_of(stt.kernels[0]),
            (std::vector<L>{L{"t1", 55, LoopKind::kSerial}, L{"t2", 28, LoopKind::kSerial},
                            L{"i", 10, LoopKind::kUnrolled}}));
  const int64_t time_distance[] = {58, 85, 28};
  const char* names[] = {"A_fifo", "B_fifo", "C_fifo"};
  for (int f = 0; f < 3; ++f) {
    const Register& r = reg(stt, names[f]);
    EXPECT_EQ(r.time_distance, time_distance[f]) << names[f];
    EXPECT_EQ(r.naive, time_distance[f] + 1) << names[f];  // the seed's srA[10][59], ...
    EXPECT_EQ(r.shape, std::vector<int64_t>{10});
    EXPECT_LT(r.depth * 5, r.naive) << names[f];  // far below the naive shift register
  }
  // The seed estimates 3 for B ("either 1 or 3"); values from other j interleave in time.
  EXPECT_GT(reg(stt, "B_fifo").depth, 3);
  // A value moves to the next PE along i; B and C stay in their PE.
  EXPECT_EQ(reg(stt, "A_fifo").pe_offset, std::vector<int64_t>{1});
  EXPECT_EQ(reg(stt, "B_fifo").pe_offset, std::vector<int64_t>{0});
  EXPECT_EQ(reg(stt, "C_fifo").pe_offset, std::vector<int64_t>{0});
}

// The PE offset a register records is the space rows of a general transform applied to its
// distance, not the distance of a Func argument named like the space loop: the space loop k of
// conv1d_reorder_skewed is iic, and X(q, iic) reads X(q + 1, iic - 1): distance (-1, 1).
TEST(SttTest, RegistersRecordTheirPeOffsetThroughTheMatrix) {
  Program stt = checked_stt_pass(merged_of({"testdata/specs/conv1d_reorder_skewed.t2s", {}}),
                                 "conv1d_reorder_skewed");
  const Register& x = reg(stt, "X_shreg");
  EXPECT_EQ(x.distance, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(x.pe_offset, std::vector<int64_t>{1});
  EXPECT_EQ(reg(stt, "W_shreg").pe_offset, std::vector<int64_t>{0});
  EXPECT_EQ(reg(stt, "Z_shreg").pe_offset, std::vector<int64_t>{1});
}

TEST(SttTest, GemmDefaultScheduleUsesOneRegisterPerPe) {
  Program stt = checked_stt_pass(merged_of({"testdata/specs/gemm.t2s", {}}), "gemm");
  for (const char* name : {"A_shreg", "B_shreg", "C_shreg"}) {
    const Register& r = reg(stt, name);
    EXPECT_EQ(r.kind, Register::kShift) << name;
    EXPECT_EQ(r.depth, 1) << name;
    EXPECT_EQ(r.shape, (std::vector<int64_t>{4, 4})) << name;
  }
}

TEST(SttTest, SplitLoopsKeepFuncStorageAndTheirDependencesAreChecked) {
  // A FIR filter over the split loop n = no * 4 + ni: W(t, n - 1) is PE ni - 1 at the same t,
  // or the last PE of the previous no. Its UREs keep their storage (no registers); a schedule
  // that computes W on PE ni - 1 after PE ni reads it is refused.
  auto merged = [](const std::string& vector) {
    SourceManager sources;
    sources.add("", "split.t2s",
                "ImageParam x(Int(32), 1, \"x\");\n"
                "ImageParam w(Int(32), 1, \"w\");\n"
                "Var t, n, no, ni;\n"
                "Func W(Int(32), {t, n}), Y(Int(32), {t, n}), out(Int(32), {n});\n"
                "W(t, n) = select(n == 0, w(t), W(t, n - 1));\n"
                "Y(t, n) = select(t == 0, 0, Y(t - 1, n)) + W(t, n) * x(n + t);\n"
                "out(n) = select(t == 2, Y(t, n));\n"
                "W.merge_ures(Y, out).set_bounds(t, 0, 3, n, 0, 8).split(n, no, ni, 4)\n"
                "    .reorder(ni, t, no).space_time_transform({ni}, {" +
                    vector +
                    "});\n"
                    "out.realize({8});\n");
    return merge_pass(parse_spec(sources, FrontendOptions{}));
  };
  for (const char* vector : {"0", "1", "2"}) {
    SCOPED_TRACE(vector);
    Program m = merged(vector);
    Program stt = checked_stt_pass(m, "split.t2s");
    EXPECT_TRUE(stt.registers.empty());
    auto inputs = complete_inputs(m, {}, FillKind::kRandom, 3);
    EXPECT_FALSE(compare_arrays(run_program(m, inputs), run_program(stt, inputs)).has_value());
  }
  try {
    stt_pass(merged("-1"));
    ADD_FAILURE() << "no diagnostic";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "stt-dependence");
    EXPECT_NE(d.message().find("(no = 0, t = 0, ni = 1) reads 'W(t, no * 4 + ni - 1)', the value "
                               "of iteration (no = 0, t = 0, ni = 0)"),
              std::string::npos)
        << d.message();
  }
}

// A spec given as text, merged.
Program merged_text(const std::string& spec) {
  SourceManager sources;
  sources.add("", "test.t2s", spec);
  return merge_pass(parse_spec(sources, FrontendOptions{}));
}

const Channel& channel(const Program& p, const std::string& name) {
  for (const Channel& c : p.channels)
    if (c.name == name) return c;
  throw std::runtime_error("no channel " + name);
}

// The write_channel indices and read_channel calls of `ch` in kernel `k`, as text.
std::vector<std::string> channel_uses(const Program& p, const std::string& k,
                                      const std::string& ch) {
  std::vector<std::string> out;
  for (const Kernel& kernel : p.kernels) {
    if (kernel.name != k) continue;
    for_each_stmt(kernel.body, [&](const Stmt& s) {
      if (const WriteChannel* w = s.as<WriteChannel>(); w && w->channel == ch) {
        std::string text = "write(";
        for (size_t i = 0; i < w->index.size(); ++i)
          text += (i ? ", " : "") + print_expr(w->index[i]);
        out.push_back(text + ")");
      }
    });
    for_each_stmt_expr(kernel.body, [&](const Expr& e) {
      if (e->kind == ExprKind::kCall && e->call_kind == CallKind::kChannel &&
          e->operands[0]->name == ch)
        out.push_back(print_expr(e));
    });
  }
  return out;
}

// isolate_consumer copies the producer's transform (docs/ir.md, "Isolation"): the drainer has
// the array's PEs, and the channel out of the array is an array of channels over them.
TEST(SttTest, ChannelArraysOverTheProducersPes) {
  Program stt = checked_stt_pass(merged_of({"testdata/specs/gemm_inherit_drainer.t2s", {}}),
                                 "gemm_inherit_drainer");
  using L = std::tuple<std::string, int64_t, LoopKind>;
  ASSERT_EQ(stt.kernels.size(), 2u);
  EXPECT_EQ(loops_of(stt.kernels[1]),
            (std::vector<L>{L{"ii", 2, LoopKind::kSerial}, L{"jj", 2, LoopKind::kSerial},
                            L{"iii", 3, LoopKind::kUnrolled}, L{"jjj", 4, LoopKind::kUnrolled}}));
  EXPECT_TRUE(stt.kernels[1].inherited_transforms.empty());  // applied: merged stage only
  EXPECT_EQ(channel(stt, "c_to_drainer").dims, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(channel_uses(stt, "A", "c_to_drainer"), std::vector<std::string>{"write(iii, jjj)"});
  EXPECT_EQ(channel_uses(stt, "drainer", "c_to_drainer"),
            std::vector<std::string>{"read_channel(c_to_drainer, iii, jjj)"});
  const std::string report = stt_report(stt);
  EXPECT_NE(report.find("kernel drainer: PE array iii 3 x jjj 4 (12 PEs), 4 time steps (ii 2 x "
                        "jj 2)\n  no registers\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("  channel c_to_drainer to drainer: array 3 x 4 (12 channels, one per PE "
                        "that writes it)\n"),
            std::string::npos)
      << report;

  // The reduction's last PE writes: kkk, a space loop of the array, is no dimension.
  stt = checked_stt_pass(merged_of({"testdata/specs/gemm_tiled.t2s", {}}), "gemm_tiled");
  EXPECT_EQ(channel(stt, "c_to_drainer").dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(channel_uses(stt, "drainer", "c_to_drainer"),
            std::vector<std::string>{"read_channel(c_to_drainer, ii, jj)"});
  // A loader that is not transformed keeps one channel.
  stt = checked_stt_pass(merged_of({"testdata/specs/isolate_consumer.t2s", {}}), "isolate");
  EXPECT_TRUE(channel(stt, "feederA_to_A").dims.empty());
  EXPECT_EQ(channel(stt, "drainer_to_collector").dims, (std::vector<int64_t>{4, 4}));
  // A consumer with a schedule of its own reads the element of the same loop variables.
  stt = checked_stt_pass(merged_of({"testdata/specs/gemm_inherit_collector.t2s", {}}),
                         "gemm_inherit_collector");
  EXPECT_EQ(channel_uses(stt, "collector", "drainer_to_collector"),
            std::vector<std::string>{"read_channel(drainer_to_collector, iii, jjj)"});
  EXPECT_EQ(std::get<2>(loops_of(stt.kernels[2])[2]), LoopKind::kSerial);  // iii: time
}

// A general transform whose time runs k before j within each PE (t = 3 * k + j): the consumer
// inherits it, so both ends change the order of a channel's values alike, which t2s-stt tells
// by matching the values of both ends; a consumer that keeps the order is refused.
std::string same_schedule_spec(const std::string& consumer_directives) {
  return "ImageParam a(Int(32), 3, \"a\");\n"
         "Var k, j, i, s, t;\n"
         "Func A(Int(32), {k, j, i}, Place::Device), out(Place::Device), D(Place::Device);\n"
         "A(k, j, i) = select(j == 0, a(k, j, i), A(k, j - 1, i) + a(k, j, i));\n"
         "out(k, j, i) = A(k, j, i) * 2;\n"
         "A.merge_ures(out).set_bounds(k, 0, 2, j, 0, 3, i, 0, 4)\n"
         " .space_time_transform({k, j, i}, {s, t}, {{0, 0, 1}, {3, 1, 0}},\n"
         "                       {{i, s}, {k, t / 3}, {j, t % 3}});\n"
         "out.isolate_consumer(D);\n" +
         consumer_directives + "D.realize({2, 3, 4});\n";
}

TEST(SttTest, BothEndsWithTheSameScheduleMayReorderAChannel) {
  Program merged = merged_text(same_schedule_spec(""));
  ASSERT_EQ(merged.kernels.size(), 2u);
  ASSERT_EQ(merged.kernels[1].inherited_transforms.size(), 1u);
  Program stt = checked_stt_pass(merged, "same schedule");
  EXPECT_EQ(channel(stt, "out_to_D").dims, (std::vector<int64_t>{4}));
  EXPECT_EQ(channel_uses(stt, "D", "out_to_D"),
            std::vector<std::string>{"read_channel(out_to_D, i)"});
  auto inputs = complete_inputs(merged, {}, FillKind::kRandom, 3);
  EXPECT_FALSE(compare_arrays(run_program(merged, inputs), run_program(stt, inputs)));

  try {
    stt_pass(merged_text(same_schedule_spec("D.space_time_transform(k);\n")));
    ADD_FAILURE() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "stt-channel-order");
    EXPECT_NE(d.message().find("space_time_transform of 'D': channel 'out_to_D' would hand its "
                               "values over in another order: 'A' writes the value of"),
              std::string::npos)
        << d.message();
  }
}

TEST(SttTest, RefusesAStageOtherThanMerged) {
  Program merged = merged_of({"testdata/specs/gemm.t2s", {}});
  Program stt = stt_pass(merged);
  EXPECT_THROW(stt_pass(stt), Diagnostic);
}

TEST(SttTest, RefusesADirectiveOutOfItsNormalForm) {
  // Hand-written IR: t2s-stt trusted these forms and stopped with an internal error (stoll) or
  // read past a matrix row.
  auto refusal = [](const std::function<void(Directive&)>& edit,
                    const char* spec = "testdata/specs/gemm_projection.t2s") {
    Program merged = merged_of({spec, {}});
    for (Directive& d : merged.directives)
      if (d.name == "space_time_transform") edit(d);
    try {
      stt_pass(merged);
    } catch (const Diagnostic& d) {
      return d.rule() + ": " + d.message();
    }
    return std::string("accepted");
  };
  const std::string prefix =
      "directive-args: space_time_transform of 'A': the directive is not in its normal form "
      "(docs/ir.md): ";
  EXPECT_EQ(refusal([](Directive& d) { d.args[2].items[1].items[1].text = "zz"; }),
            prefix + "each row of the matrix must hold integer constants");
  EXPECT_EQ(refusal([](Directive& d) { d.args[2].items[1].items.pop_back(); }),
            prefix + "each row of the matrix must be a list of 3 integers");
  EXPECT_EQ(refusal([](Directive& d) { d.args.back().text = "X"; }),
            prefix + "the last argument must be SpaceTimeTransform::CheckTime or ::NoCheckTime");
  EXPECT_EQ(refusal([](Directive& d) { d.args[3].items[0].items.pop_back(); }),
            prefix + "the reverse mapping must be a list of {var, expression} pairs");
  // A loop named twice (the simple form on an isolated consumer that inherits it wrote past
  // the kernel's loops: ASan, found by ir_mutation_fuzzer).
  EXPECT_EQ(refusal([](Directive& d) { d.args[0].items[1] = d.args[0].items[0]; }),
            prefix + "the source loops must name distinct loops ('i' twice)");
  EXPECT_EQ(refusal([](Directive& d) { d.args[1].items[1] = d.args[1].items[0]; }),
            prefix + "the destination loops must name distinct loops ('s' twice)");
  EXPECT_EQ(
      refusal(
          [](Directive& d) { d.args[0].items.insert(d.args[0].items.begin(), d.args[0].items[0]); },
          "testdata/specs/gemm_inherit_collector.t2s"),
      prefix + "the space loops must name distinct loops ('jjj' twice)");
}

TEST(SttTest, RefusesPositionsPastSixtyFourBits) {
  // Hand-edited merged IR: a loader's outer loop starting near 2^31 above 2^35 inner
  // iterations; its positions' constant (-stride x min) overflowed (UBSan, found by
  // ir_mutation_fuzzer). Now a located loop-too-large at the kernel.
  Program merged = merged_of({"testdata/specs/gemm_isolate_inputs.t2s", {}});
  Kernel* loader = nullptr;
  for (Kernel& k : merged.kernels)
    if (k.name != "A" && !loader) loader = &k;
  ASSERT_NE(loader, nullptr);
  StmtList* body = &loader->body;
  while (body->size() == 1 && (*body)[0]->as<Realize>())
    body = &testing::edit_as<Realize>((*body)[0])->body;
  ASSERT_EQ(body->size(), 1u);
  For* outer = testing::edit_as<For>((*body)[0]);
  ASSERT_NE(outer, nullptr);
  ASSERT_EQ(outer->body.size(), 1u);
  For* inner = testing::edit_as<For>(outer->body[0]);
  ASSERT_NE(inner, nullptr);
  outer->min = make_int(Type::Int(32), 2147483000);
  inner->extent = make_int(Type::Int(32), int64_t{1} << 35);
  try {
    stt_pass(merged);
    ADD_FAILURE() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "loop-too-large");
    EXPECT_EQ(d.message(), "kernel '" + loader->name +
                               "': the execution-order positions of its iterations overflow 64 "
                               "bits (loop bounds or dependence distances too large; "
                               "docs/limits.md)");
  }
}

// gemm_tiled with a III x JJJ = 200 x 200 tile per PE, and a second accumulator D like C: each
// of C's and D's two large windows has 79,601 offsets for t2s-stt to enumerate (40,000 live
// values each, below the 100,000 of one register), over 250,000 in all.
TEST(SttTest, RefusesToEnumerateMoreThanItsLimitOfWindowOffsets) {
  std::string spec = read("testdata/specs/gemm_tiled.t2s");
  const auto edit = [&](const std::string& from, const std::string& to) {
    const size_t at = spec.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    spec.replace(at, from.size(), to);
  };
  edit("#define JJJ 2", "#define JJJ 200");
  edit("#define III 2", "#define III 200");
  edit("C(compute),", "C(compute), D(compute),");
  edit("       + A(P) * B(P);\n",
       "       + A(P) * B(P);\n"
       "D(P) = select(k == 0, 0, select(kkk == 0, select(kk == 0, D(P_ok_minus_1), "
       "D(P_kk_minus_1)), D(P_kkk_minus_1))) + A(P);\n");
  edit("select(k == K - 1, C(P))", "select(k == K - 1, C(P) + D(P))");
  edit("A.merge_ures(B, C, c)", "A.merge_ures(B, C, D, c)");
  SourceManager sources;
  sources.add("", "gemm_tiled_d.t2s", spec);
  const Program merged = merge_pass(parse_spec(sources, FrontendOptions{}));
  try {
    stt_pass(merged);
    ADD_FAILURE() << "accepted";
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.rule(), "stt-storage");
    EXPECT_EQ(d.message(),
              "space_time_transform of 'A': sizing the storage of the kernel (up to the one for D "
              "at distance (0, 0, 0, 1, 0, 0, 0, 0, -1) (outermost loop first)) enumerates more "
              "than 250000 window "
              "offsets (t2s-stt's limit on its work)");
  }
}

TEST(SttTest, ReportListsTheArrayAndEveryRegister) {
  std::string report = stt_report(stt_pass(merged_of({"testdata/specs/seed000_abc.t2s", {}})));
  EXPECT_NE(report.find("kernel A: PE array i 10 (10 PEs), 1540 time steps (t1 55 x t2 28)"),
            std::string::npos)
      << report;
  for (const char* name : {"A_fifo", "B_fifo", "C_fifo", "total: 1740 values naive"})
    EXPECT_NE(report.find(name), std::string::npos) << name << "\n" << report;
  // Distances outermost loop first, named (A reads A(i - 1, j, k): 1 along i, the innermost).
  EXPECT_NE(report.find("A_fifo   A    fifo k 0, j 0, i 1"), std::string::npos) << report;
}

// Vectorized loops are the lanes of each PE, not time steps.
TEST(SttTest, ReportCountsVectorLanesApartFromTimeSteps) {
  std::string report = stt_report(stt_pass(merged_of({"testdata/specs/gemm_vec_a10.t2s", {}})));
  EXPECT_NE(report.find("kernel A: PE array iii 10 x jjj 8 (80 PEs), 8 time steps (kk 2 x ii 2 x "
                        "jj 2), 16 vector lanes per PE (kkk 16)"),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace t2s
