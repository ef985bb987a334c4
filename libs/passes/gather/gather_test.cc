// //libs/passes/gather:gather_test: t2s-gather on the hand-written documents of testdata/ir
// (gather_*.json: vectorized-stage IR in the channel-array form, testdata/ir/BUILD says where
// each comes from).
//
// Each gathered program must compute what the document computed and what its merged reference
// (its funcs and directives merged again, as `t2s-run --check` does) computes, bit for bit, on
// random inputs; its drainer kernel and channels must be the ones stated here (seed 003, Codes 2
// and 4); and every rule of the pass gives its exact diagnostic at the gather directive.
#include "libs/passes/gather/gather.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "libs/backends/text/text.h"
#include "libs/exec/compare.h"
#include "libs/exec/interpreter.h"
#include "libs/ir/ir_json.h"
#include "libs/ir/verify.h"
#include "libs/passes/lower/lower.h"
#include "libs/passes/merge/merge.h"
#include "libs/testing/golden.h"
#include "libs/testing/ir_edit.h"

namespace t2s {
namespace {

std::string document_text(const std::string& name) {
  const std::string path = testing::runfile("testdata/ir/" + name + ".json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Program document(const std::string& text, const std::string& name = "doc.json") {
  Program p = read_program(text, name);
  verify_program(p, name);
  return p;
}

struct Gathered {
  Program in, out;
  GatherReport report;
};

Gathered gather(const Program& in) {
  Gathered g;
  g.in = in;
  g.out = gather_pass(in, &g.report);
  verify_program(g.out, "gathered");
  return g;
}

Gathered gather(const std::string& name) { return gather(document(document_text(name), name)); }

// The listing of `kernel` by the text target, up to the next blank line.
std::string kernel_text(const Program& p, const std::string& kernel) {
  const std::string text = emit_text(p);
  const size_t begin = text.find("kernel " + kernel + " (");
  if (begin == std::string::npos) return "no kernel " + kernel;
  return text.substr(begin, text.find("\n\n", begin) - begin + 1);
}

const Channel& channel(const Program& p, const std::string& name) {
  const Channel* c = p.find_channel(name);
  if (!c) throw std::runtime_error("no channel " + name);
  return *c;
}

// The gathered program computes what the document and its merged reference compute, and reads
// back to the same bytes.
void expect_equivalent(const Gathered& g) {
  const Program reference = lower_to(as_parsed(g.in), Stage::kMerged);
  for (uint64_t seed : {1, 2}) {
    auto inputs = complete_inputs(g.in, {}, FillKind::kRandom, seed);
    const NdArray expected = run_program(reference, inputs);
    EXPECT_FALSE(compare_arrays(expected, run_program(g.in, inputs)).has_value()) << seed;
    EXPECT_FALSE(compare_arrays(expected, run_program(g.out, inputs)).has_value()) << seed;
  }
  const std::string text = write_program(g.out);
  EXPECT_EQ(write_program(read_program(text, "gathered.json")), text);
}

TEST(Gather, EveryDocumentKeepsItsResults) {
  for (const char* name :
       {"gather_2d_i_down", "gather_2d_i_up", "gather_2d_j_down", "gather_2d_j_up", "gather_3d",
        "gather_provide", "gather_vec", "gather_vec_lanes", "gather_vec_serialised"}) {
    SCOPED_TRACE(name);
    Gathered g = gather(name);
    EXPECT_EQ(g.out.stage, Stage::kGathered);
    expect_equivalent(g);
    ASSERT_EQ(g.report.items.size(), 1u);
    const Channel& fifo = channel(g.out, "drainer_gather_fifo");
    EXPECT_EQ(fifo.producer, "drainer");
    EXPECT_EQ(fifo.consumer, "drainer");
    EXPECT_FALSE(fifo.depth_reason.empty());
  }
}

// Seed 003, Code 2, Down along the inner space loop: the PEs run from the highest i down, PE i
// works at t = i .. 2 (its own value first), PE 0 writes every value. t goes around the PE
// loops (nothing else runs in them), so the PEs work at once: one value a step leaves PE 0.
TEST(Gather, UnrolledDownAlongTheInnerLoop) {
  Gathered g = gather("gather_2d_i_down");
  EXPECT_EQ(kernel_text(g.out, "drainer"),
            "kernel drainer (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for t in [0, 3) serial:\n"
            "      for j in [0, 4) unrolled:\n"
            "        for i_pe in [0, 3) unrolled:\n"
            "          let i = 2 - i_pe\n"
            "          if (t >= i):\n"
            "            let c_gathered = select(t == i, read_channel(c_to_drainer, i, j), "
            "read_channel(drainer_gather_fifo, j, i + 1))\n"
            "            if (i > 0):\n"
            "              write_channel drainer_gather_fifo(j, i) <- c_gathered\n"
            "            else:\n"
            "              write_channel drainer_to_collector(j) <- c_gathered\n");
  // The consumer reads each element's values in the order PE 0 writes them.
  EXPECT_EQ(kernel_text(g.out, "collector"),
            "kernel collector (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for j in [0, 4) unrolled:\n"
            "      for i in [0, 3) unrolled:\n"
            "        collector(i, j, b) = read_channel(drainer_to_collector, j)\n");
  const Channel& fifo = channel(g.out, "drainer_gather_fifo");
  EXPECT_EQ(fifo.dims, (std::vector<int64_t>{4, 3}));  // as c_to_drainer: j, then i
  EXPECT_EQ(fifo.depth, 1);
  const Channel& out = channel(g.out, "drainer_to_collector");
  EXPECT_EQ(out.dims, (std::vector<int64_t>{4}));
  EXPECT_EQ(out.depth, 3);
  EXPECT_EQ(
      gather_report_text(g.report),
      "gather drainer: c along i, Down, unrolled: 3 PEs, channel c_to_drainer, exit PE i = 0\n"
      "  FIFO drainer_gather_fifo: float32, dims [4, 3], depth 1 (t runs around the PEs, "
      "which run at once, from the highest i down: PE i + 1 writes one value a step, which "
      "PE i reads in the same step)\n"
      "  channel drainer_to_collector: depth 0 -> 3 (t2s-gather: the exit PE of drainer "
      "writes one value of each element a step, 3 steps (along i), and collector may read an "
      "element's 3 values in a row: room for 3 values per element (was 0, the default))\n"
      "  the exit PE writes every value to channel drainer_to_collector, dims [3, 4] -> [4] "
      "(without i); its reads in collector lose that index\n");
}

// Up is the mirror: PE i works at t = 0 .. i (the values of lower PEs first, its own last), the
// PE at i's maximum writes them, in ascending order of i.
TEST(Gather, UnrolledUpAlongTheInnerLoop) {
  Gathered g = gather("gather_2d_i_up");
  EXPECT_EQ(kernel_text(g.out, "drainer"),
            "kernel drainer (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for t in [0, 3) serial:\n"
            "      for j in [0, 4) unrolled:\n"
            "        for i in [0, 3) unrolled:\n"
            "          if (t <= i):\n"
            "            let c_gathered = select(t == i, read_channel(c_to_drainer, i, j), "
            "read_channel(drainer_gather_fifo, j, i - 1))\n"
            "            if (i < 2):\n"
            "              write_channel drainer_gather_fifo(j, i) <- c_gathered\n"
            "            else:\n"
            "              write_channel drainer_to_collector(j) <- c_gathered\n");
}

// Seed 003's Code 2 as written, t inside each PE, when the PE loops hold more than the
// statement that passes the value on (here a statement beside it): t cannot go around them
// without running that statement once a step. The PEs then run one after another, and the
// FIFO holds what a PE writes before the next one reads.
TEST(Gather, UnrolledInPlaceWhenThePesDoMore) {
  Program in = document(document_text("gather_2d_i_up"));
  for (Kernel& k : in.kernels) {
    if (k.name != "drainer") continue;
    For* b = testing::edit_as<For>(k.body[0]);
    For* j = testing::edit_as<For>(b->body[0]);
    For* i = testing::edit_as<For>(j->body[0]);
    // A statement that does nothing, beside the write: an if on a false condition.
    i->body.push_back(
        make_if(make_binary(BinaryOp::kLT, make_var("b"), make_int(Type::Int(32), 0), Type::Bool()),
                {}, {}));
  }
  Gathered g = gather(in);
  expect_equivalent(g);
  EXPECT_EQ(kernel_text(g.out, "drainer"),
            "kernel drainer (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for j in [0, 4) unrolled:\n"
            "      for i in [0, 3) unrolled:\n"
            "        for t in [0, i + 1) serial:\n"
            "          let c_gathered = select(t == i, read_channel(c_to_drainer, i, j), "
            "read_channel(drainer_gather_fifo, j, i - 1))\n"
            "          if (i < 2):\n"
            "            write_channel drainer_gather_fifo(j, i) <- c_gathered\n"
            "          else:\n"
            "            write_channel drainer_to_collector(j) <- c_gathered\n"
            "        if (b < 0):\n");
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").depth, 2);
}

// With t around the PEs the collector takes one PE's value a step, while T2SP's GEMM array
// writes all its PEs' values each step of ii, jj at the last kk and k, then computes KK * K - 1
// times as long without writing: its channel gets room for that burst of II * JJ values, so the
// array does not wait while the collector drains a tile under the next one. A source that
// writes each step it runs (gather_2d_i_up's c) gets no room: there is no idle time to drain in.
TEST(Gather, RoomForTheSourcesBurst) {
  Gathered g = gather(testing::load_golden_ir("gemm_a10_stensor", "vectorized"));
  expect_equivalent(g);
  const Channel& out = channel(g.out, "Out_to_collector");
  EXPECT_EQ(out.depth, 9);
  EXPECT_EQ(out.depth_reason,
            "t2s-gather: X writes every element each step of ii, jj (9 steps), and collector "
            "takes one PE's value a step: room for the burst (was 0, the default)");
  EXPECT_EQ(channel(gather("gather_2d_i_up").out, "c_to_drainer").depth, 0);
}

// Along the outer space loop j: the FIFO runs along the channel's second dimension, the output
// keeps i's; the collector reads each element i in the order of j.
TEST(Gather, UnrolledAlongTheOuterLoop) {
  Gathered down = gather("gather_2d_j_down");
  EXPECT_EQ(kernel_text(down.out, "drainer"),
            "kernel drainer (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for t in [0, 4) serial:\n"
            "      for j_pe in [0, 4) unrolled:\n"
            "        let j = 3 - j_pe\n"
            "        for i in [0, 3) unrolled:\n"
            "          if (t >= j):\n"
            "            let c_gathered = select(t == j, read_channel(c_to_drainer, i, j), "
            "read_channel(drainer_gather_fifo, j + 1, i))\n"
            "            if (j > 0):\n"
            "              write_channel drainer_gather_fifo(j, i) <- c_gathered\n"
            "            else:\n"
            "              write_channel drainer_to_collector(i) <- c_gathered\n");
  EXPECT_EQ(channel(down.out, "drainer_to_collector").dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(channel(down.out, "drainer_gather_fifo").depth, 1);
  Gathered up = gather("gather_2d_j_up");
  EXPECT_EQ(kernel_text(up.out, "collector"),
            "kernel collector (device):\n"
            "  for b in [0, 2) serial:\n"
            "    for j in [0, 4) unrolled:\n"
            "      for i in [0, 3) unrolled:\n"
            "        collector(i, j, b) = read_channel(drainer_to_collector, i)\n");
}

// A 3-D PE array gathered along its middle loop: the FIFOs span every PE, the output channel
// keeps the other two dimensions.
TEST(Gather, ThreeDimensionalArray) {
  Gathered g = gather("gather_3d");
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").dims, (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").type, Type::Int(32));
  EXPECT_EQ(channel(g.out, "drainer_to_collector").dims, (std::vector<int64_t>{2, 2}));
  EXPECT_NE(
      kernel_text(g.out, "drainer").find("write_channel drainer_to_collector(i, l) <- p_gathered"),
      std::string::npos);
}

// F realized: the exit PE stores every value itself, at t in place of j.
TEST(Gather, ProvideTakesTheCountLoop) {
  Gathered g = gather("gather_provide");
  EXPECT_NE(kernel_text(g.out, "drainer")
                .find("            else:\n              drainer(i, t, b) = "
                      "c_gathered\n"),
            std::string::npos);
  EXPECT_EQ(gather_report_text(g.report).substr(gather_report_text(g.report).rfind("  the")),
            "  the exit PE stores every value to drainer (j replaced by the count loop)\n");
}

// Seed 003, Code 4: the lanes come back as PEs (from the highest down), each puts its lane into
// the vector from its neighbour, PE 0 writes whole vectors; the collector is unchanged.
TEST(Gather, VectorizedDown) {
  Gathered g = gather("gather_vec");
  EXPECT_EQ(kernel_text(g.out, "drainer"),
            "kernel drainer (device, vector lanes 3):\n"
            "  for b in [0, 2) serial:\n"
            "    for j in [0, 4) unrolled:\n"
            "      for i_pe in [0, 3) unrolled:\n"
            "        let i = 2 - i_pe\n"
            "        let c_own = read_channel(c_to_drainer, i, j)\n"
            "        let c_gathered = select(i < 2, select(ramp(0, 1, 3) == broadcast(i, 3), "
            "broadcast(c_own, 3), read_channel(drainer_gather_fifo, j, i + 1)), "
            "broadcast(c_own, 3))\n"
            "        if (i > 0):\n"
            "          write_channel drainer_gather_fifo(j, i) <- c_gathered\n"
            "        else:\n"
            "          write_channel drainer_to_collector(j) <- c_gathered\n");
  EXPECT_EQ(kernel_text(g.out, "collector"), kernel_text(g.in, "collector"));
  const Channel& fifo = channel(g.out, "drainer_gather_fifo");
  EXPECT_EQ(fifo.type, Type::Float(32, 3));
  EXPECT_EQ(fifo.dims, (std::vector<int64_t>{4, 3}));  // j, then the new PE loop i
  EXPECT_EQ(fifo.depth, 1);
  EXPECT_EQ(channel(g.out, "drainer_to_collector").depth, 0);
}

TEST(Gather, VectorizedUp) {
  Program in = document(document_text("gather_vec"));
  for (Directive& d : in.directives)
    if (d.name == "gather") d.args[2] = DirectiveArg::enumerator("GatherStrategy::Up");
  Gathered g = gather(in);
  expect_equivalent(g);
  EXPECT_NE(kernel_text(g.out, "drainer")
                .find("      for i in [0, 3) unrolled:\n"
                      "        let c_own = read_channel(c_to_drainer, i, j)\n"
                      "        let c_gathered = select(i > 0, select(ramp(0, 1, 3) == "
                      "broadcast(i, 3), broadcast(c_own, 3), read_channel(drainer_gather_fifo, "
                      "j, i - 1)), broadcast(c_own, 3))\n"
                      "        if (i < 2):\n"),
            std::string::npos);
}

// Along the unrolled j while i is vectorized (seed 003: "gathering is orthogonal to
// vectorization"): Code 2 with vectors of i's lanes passed along; the output channel, indexed
// by j only, becomes a single channel.
TEST(Gather, UnrolledWithVectorValues) {
  Gathered g = gather("gather_vec_lanes");
  EXPECT_EQ(kernel_text(g.out, "drainer"),
            "kernel drainer (device, vector lanes 3):\n"
            "  for b in [0, 2) serial:\n"
            "    for t in [0, 4) serial:\n"
            "      for j_pe in [0, 4) unrolled:\n"
            "        let j = 3 - j_pe\n"
            "        if (t >= j):\n"
            "          let c_gathered = select(t == j, concat(read_channel(c_to_drainer, 0, j), "
            "read_channel(c_to_drainer, 1, j), read_channel(c_to_drainer, 2, j)), "
            "read_channel(drainer_gather_fifo, j + 1))\n"
            "          if (j > 0):\n"
            "            write_channel drainer_gather_fifo(j) <- c_gathered\n"
            "          else:\n"
            "            write_channel drainer_to_collector <- c_gathered\n");
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").type, Type::Float(32, 3));
  EXPECT_EQ(channel(g.out, "drainer_to_collector").dims, std::vector<int64_t>{});
  EXPECT_EQ(g.report.items[0].form, "unrolled");
}

// What t2s-vec gives today for a vectorized loop whose lanes read a channel array: the loop
// serialised (unrolled), the output channel not indexed by it. Gathered as unrolled; the values
// keep their order, so the collector (which concatenates them) is unchanged.
TEST(Gather, SerialisedVectorizeIsGatheredUnrolled) {
  Gathered g = gather("gather_vec_serialised");
  EXPECT_EQ(g.report.items[0].form, "unrolled (vectorize(i) was serialised by t2s-vec)");
  EXPECT_EQ(kernel_text(g.out, "collector"), kernel_text(g.in, "collector"));
  EXPECT_EQ(channel(g.out, "drainer_to_collector").dims, (std::vector<int64_t>{4}));
}

// Two-level gathering as T2SP writes it (testdata/specs/gemm_gather_a10.t2s): the drainer
// gathers along iii, so its channel to the collector loses iii; the collector, which inherits
// the drainer's PEs (jjj, iii), reads channel jjj in each of its III PEs of column jjj (iii
// indexes nothing: PE iii takes the iii-th value), and gathers along jjj vectorized: its read
// is the vector of the JJJ channels' values (lanes along jjj, not along the drainer's iii).
TEST(Gather, SpaceLoopThatIndexesNothing) {
  Gathered g = gather(testing::load_golden_ir("gemm_gather_a10", "vectorized"));
  expect_equivalent(g);
  ASSERT_EQ(g.report.items.size(), 2u);
  EXPECT_EQ(kernel_text(g.out, "collector"),
            "kernel collector (device, vector lanes 8):\n"
            "  for ii in [0, 2) serial:\n"
            "    for jj in [0, 2) serial:\n"
            "      for iii in [0, 10) unrolled:\n"
            "        for jjj in [0, 8) unrolled:\n"
            "          let drainer_own = read_channel(drainer_to_collector, jjj)\n"
            "          let drainer_gathered = select(jjj > 0, select(ramp(0, 1, 8) == "
            "broadcast(jjj, 8), broadcast(drainer_own, 8), read_channel(collector_gather_fifo, "
            "iii, jjj - 1)), broadcast(drainer_own, 8))\n"
            "          if (jjj < 7):\n"
            "            write_channel collector_gather_fifo(iii, jjj) <- drainer_gathered\n"
            "          else:\n"
            "            collector(ramp(0, 1, 8), iii, jj, ii) = drainer_gathered\n");
  // One chain of FIFOs along jjj per row iii, indexed outermost first.
  EXPECT_EQ(channel(g.out, "collector_gather_fifo").dims, (std::vector<int64_t>{10, 8}));
  EXPECT_EQ(channel(g.out, "drainer_to_collector").dims, (std::vector<int64_t>{8}));
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").dims, (std::vector<int64_t>{10, 8}));
}

// Gathering along an unrolled loop carries whatever vector F reads, also a tensor of two
// vectorized loops' lanes (testdata/specs/gather_3d.t2s with -D VEC_I -D VEC_L).
TEST(Gather, UnrolledWithATensorOfLanes) {
  Gathered g = gather(testing::load_golden_ir("gather_3d_vec_il", "vectorized"));
  expect_equivalent(g);
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").type, Type::Int(32).with_shape({2, 4}));
  EXPECT_EQ(channel(g.out, "drainer_gather_fifo").dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(channel(g.out, "drainer_to_collector").dims, std::vector<int64_t>{});
}

TEST(Gather, NoGatherDirectivePassesThrough) {
  Program vectorized = testing::load_golden_ir("gemm", "vectorized");
  GatherReport report;
  Program out = gather_pass(vectorized, &report);
  EXPECT_EQ(write_program(out), testing::read_golden_text("gemm", "gathered"));
  EXPECT_EQ(gather_report_text(report), "no gather directives\n");
}

// ---- errors ----

std::string error_of(const Program& p) {
  try {
    gather_pass(p);
  } catch (const Diagnostic& d) {
    return d.loc().str() + ": " + d.message() + " [" + d.rule() + "]";
  }
  return "no error";
}

// The document gather_2d_i_down with `from` replaced by `to` in its text.
Program edited(const std::string& from, const std::string& to,
               const std::string& name = "gather_2d_i_down") {
  std::string text = document_text(name);
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in " + name);
  return document(text.replace(at, from.size(), to));
}

Directive& gather_directive(Program& p) {
  for (Directive& d : p.directives)
    if (d.name == "gather") return d;
  throw std::runtime_error("no gather directive");
}

// The nest of kernel `kernel`: its loops (outermost first, each with one statement in its body)
// and the statement inside them.
struct Nest {
  std::vector<For> loops;
  StmtPtr stmt;
};

Nest nest_of(const Program& p, const std::string& kernel) {
  Nest n;
  for (const Kernel& k : p.kernels) {
    if (k.name != kernel) continue;
    StmtPtr s = k.body.at(0);
    while (const For* f = s->as<For>()) {
      n.loops.push_back(*f);
      s = f->body.at(0);
    }
    n.stmt = s;
  }
  return n;
}

// Kernel `kernel` of `p` with its loops in `order` (outermost first, indices into its loops)
// around `body`.
void rebuild(Program& p, const std::string& kernel, const std::vector<size_t>& order,
             const StmtList& body) {
  Nest n = nest_of(p, kernel);
  StmtList inner = body;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const For& f = n.loops.at(*it);
    inner = {make_for(f.var, f.min, f.extent, f.loop_kind, inner)};
  }
  for (Kernel& k : p.kernels)
    if (k.name == kernel) k.body = inner;
}

const char* const kRead = "read_channel(c_to_drainer, i, j)";

TEST(GatherErrors, Func) {
  Program p = document(document_text("gather_2d_i_down"));
  gather_directive(p).func = "c";
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'c' is merged into 'C' (merge_ures); gather needs a Func with a kernel "
            "of its own, such as an isolated consumer [gather-func]");
  gather_directive(p).func = "C";
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'C' computes the merged UREs C, c in one kernel; gather needs a Func "
            "whose kernel computes it alone, such as an isolated consumer [gather-func]");
}

TEST(GatherErrors, Twice) {
  Program p = document(document_text("gather_2d_i_down"));
  Directive again = gather_directive(p);
  again.loc = SourceLoc{"", 17, 9};
  p.directives.push_back(again);
  EXPECT_EQ(error_of(p), "17:9: Func 'drainer' gathers twice [gather-twice]");
}

TEST(GatherErrors, Channel) {
  Program p = document(document_text("gather_2d_i_down"));
  gather_directive(p).func = "collector";
  EXPECT_EQ(error_of(p),
            "16:9: gather: no channel carries the values of 'c' (kernel 'C') to 'collector'; "
            "gather needs F to read A's values over a channel, as an isolated consumer on the "
            "device does [gather-channel]");
}

TEST(GatherErrors, Read) {
  EXPECT_EQ(error_of(edited(kRead, std::string(kRead) + " + " + kRead)),
            "16:9: gather: 'drainer' reads channel 'c_to_drainer' 2 times; gather needs exactly "
            "one read [gather-read]");
  EXPECT_EQ(error_of(edited(kRead, "select(b == 0, " + std::string(kRead) + ", 0.0f)")),
            "16:9: gather: 'drainer' reads channel 'c_to_drainer' in a branch of a select (or the "
            "right operand of && or ||), under a condition; gather needs an unconditional read "
            "[gather-read]");
  Program p = document(document_text("gather_2d_i_down"));
  Nest n = nest_of(p, "drainer");
  Expr b = make_var("b");
  rebuild(p, "drainer", {0, 1, 2},
          {make_if(make_binary(BinaryOp::kEQ, b, make_int(Type::Int(32), 0), Type::Bool()),
                   {n.stmt}, {})});
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'drainer' reads channel 'c_to_drainer' under a condition (if b == 0); "
            "gather needs an unconditional read [gather-read]");
  const WriteChannel* w = n.stmt->as<WriteChannel>();
  rebuild(p, "drainer", {0, 1, 2},
          {make_let("x", w->value,
                    {make_write_channel(w->channel, w->index,
                                        make_var("x", Type::Float(32), SourceLoc{}))})});
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'drainer' reads channel 'c_to_drainer' in a let; gather needs the value "
            "read to be what F writes to its consumer's channel or stores to its own storage "
            "[gather-read]");
  EXPECT_EQ(error_of(edited("concat(", "broadcast(2.0f, 3) * concat(", "gather_vec")),
            "15:22: gather: 'drainer' computes with the vector read from channel 'c_to_drainer'; "
            "gathering a vectorized loop needs the vector itself written on [gather-read]");
}

TEST(GatherErrors, Loop) {
  Program p = document(document_text("gather_2d_i_down"));
  gather_directive(p).args[1] = DirectiveArg::expr("b");
  EXPECT_EQ(error_of(p),
            "16:9: gather: loop 'b' of 'drainer' is serial; gather needs a space loop (unrolled, "
            "or vectorized) [gather-loop]");
  gather_directive(p).args[1] = DirectiveArg::expr("k");
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'drainer' has no loop 'k' around its read of channel 'c_to_drainer'; "
            "its loops there are b, j, i [gather-loop]");
  EXPECT_EQ(error_of(edited(kRead, "read_channel(c_to_drainer, i, 0)")),
            "16:9: gather: index 1 of the read of channel 'c_to_drainer' in 'drainer' is '0', not "
            "a space loop of 'drainer' over the channel's dimension (extent 4) [gather-loop]");
  Program serial_inside = document(document_text("gather_2d_i_down"));
  rebuild(serial_inside, "drainer", {1, 0, 2}, {nest_of(serial_inside, "drainer").stmt});
  EXPECT_EQ(error_of(serial_inside),
            "16:9: gather: serial loop 'b' of 'drainer' is inside its space loop 'j'; the space "
            "loops must be the innermost loops around the read of channel 'c_to_drainer' "
            "[gather-loop]");
  Program out_index = document(document_text("gather_2d_i_down"));
  const WriteChannel* w = nest_of(out_index, "drainer").stmt->as<WriteChannel>();
  rebuild(out_index, "drainer", {0, 1, 2},
          {make_write_channel(w->channel, {make_var("i"), make_var("i")}, w->value)});
  EXPECT_EQ(error_of(out_index),
            "16:9: gather: 'drainer' writes channel 'drainer_to_collector' at (i, i); gathering "
            "needs it indexed by F's space loops (i, j), or by all of them but 'i' (j) "
            "[gather-loop]");
  EXPECT_EQ(error_of(edited("read_channel(c_to_drainer, 0, j), read_channel(c_to_drainer, 1, j)",
                            "read_channel(c_to_drainer, 1, j), read_channel(c_to_drainer, 0, j)",
                            "gather_vec")),
            "15:22: gather: the lanes of the vector read of channel 'c_to_drainer' in 'drainer' do "
            "not read its elements 0, 1, ... along one dimension (of extent 3) [gather-loop]");
  // The collector of gemm_gather_a10 gathering along iii, which the drainer's gather took out
  // of their channel.
  Program twice = testing::load_golden_ir("gemm_gather_a10", "vectorized");
  for (Directive& d : twice.directives)
    if (d.name == "gather" && d.func == "collector") d.args[1] = DirectiveArg::expr("iii");
  EXPECT_EQ(error_of(twice),
            "76:11: gather: space loop 'iii' of 'collector' does not index channel "
            "'drainer_to_collector'; gathering along 'iii' needs its PEs to read the elements "
            "along one dimension of the channel [gather-loop]");
  // Along the vectorized l when i is vectorized too: the lanes run along two dimensions, and
  // PE l owns the lanes that read at l (seed 003, Code 3 with j vectorized too).
  Program tensor = testing::load_golden_ir("gather_3d_vec_il", "vectorized");
  gather_directive(tensor).args[1] = DirectiveArg::expr("l");
  EXPECT_EQ(error_of(tensor), "no error");
  // vectorize_gather's drainer inherits A's PEs and reads the channel array: it gathers.
  EXPECT_EQ(error_of(testing::load_golden_ir("vectorize_gather", "vectorized")), "no error");
}

TEST(GatherErrors, Order) {
  Program p = document(document_text("gather_2d_i_down"));
  rebuild(p, "collector", {1, 2, 0}, {nest_of(p, "collector").stmt});
  EXPECT_EQ(error_of(p),
            "16:9: gather: 'collector' reads channel 'drainer_to_collector' with loop 'b' inside "
            "its loop 'i' along 'i', but the exit PE of 'drainer' writes each element's values in "
            "the order of its outer loops, then 'i' ascending: 'i' must be the innermost of them "
            "[gather-order]");
  // Down runs the PEs from the highest index down: nothing else in them may use a channel.
  Program other = document(document_text("gather_2d_i_down"));
  const StmtPtr stmt = nest_of(other, "drainer").stmt;
  const WriteChannel* w = stmt->as<WriteChannel>();
  rebuild(other, "drainer", {0, 1, 2},
          {stmt, make_write_channel(w->channel, w->index, make_float(Type::Float(32), 0.0))});
  EXPECT_EQ(error_of(other),
            "16:9: gather: GatherStrategy::Down runs the PEs of 'drainer' along 'i' from the "
            "highest index down, which would change the order of its accesses to channel "
            "'drainer_to_collector'; gathering Down needs F's PEs along 'i' to use no other "
            "channel or register [gather-order]");
  // Along j, the collector's loop i chooses the element: j outside it is fine.
  Program along_j = document(document_text("gather_2d_j_down"));
  rebuild(along_j, "collector", {0, 2, 1}, {nest_of(along_j, "collector").stmt});
  EXPECT_EQ(error_of(along_j), "no error");
  EXPECT_EQ(error_of(edited("read_channel(drainer_to_collector, i, j)",
                            "read_channel(drainer_to_collector, 2 - i, j)")),
            "16:9: gather: 'collector' reads channel 'drainer_to_collector' at '2 - i' along 'i'; "
            "gathering needs a loop of 'collector' over the 3 values there; the exit PE of "
            "'drainer' writes each element's values in the order of its outer loops, then 'i' "
            "ascending [gather-order]");
}

}  // namespace
}  // namespace t2s
