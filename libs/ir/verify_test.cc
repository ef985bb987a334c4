// The IR verifier: every golden IR file is well formed, and each rule rejects a golden file
// broken by hand in one place, with a message located in the document.
#include "libs/ir/verify.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "libs/ir/ir_json.h"
#include "libs/testing/golden.h"

namespace t2s {
namespace {

using Json = nlohmann::ordered_json;
using testing::golden_specs;
using testing::read_golden_text;

TEST(Verify, EveryGoldenIsWellFormed) {
  int checked = 0;
  for (const char* stage : {"parsed", "merged", "stt", "vectorized", "gathered"}) {
    for (const std::string& spec : golden_specs(stage)) {
      Program p = testing::load_golden_ir(spec, stage);
      EXPECT_NO_THROW(verify_program(p, spec)) << spec << " " << stage;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

// The diagnostic of verifying golden `spec`/`stage` after `edit` changed its JSON and
// `edit_program` the program read from it (for what the reader itself already refuses).
Diagnostic broken(
    const std::string& spec, const std::string& stage, const std::function<void(Json&)>& edit,
    const std::function<void(Program&)>& edit_program = [](Program&) {}) {
  Json doc = Json::parse(read_golden_text(spec, stage));
  edit(doc);
  Program p = read_program(doc.dump(2), "broken.json");
  edit_program(p);
  try {
    verify_program(p, "broken.json");
  } catch (const Diagnostic& d) {
    return d;
  }
  ADD_FAILURE() << "the verifier accepted the broken " << spec << " " << stage;
  return Diagnostic({}, "", "");
}

void expect(const Diagnostic& d, const std::string& rule, const std::string& message,
            const std::string& note_loc = "") {
  EXPECT_EQ(d.rule(), rule);
  EXPECT_EQ(d.message(), message);
  EXPECT_EQ(d.loc().file, "broken.json");
  if (note_loc.empty()) {
    EXPECT_TRUE(d.notes().empty());
  } else {
    ASSERT_EQ(d.notes().size(), 1u);
    EXPECT_EQ(d.notes()[0].loc.str(), note_loc);
  }
}

// The innermost provide of gemm's stt kernel: for k, for j, for i, let A_val, provide A_shreg.
Json& gemm_stt_provide(Json& doc) {
  return doc["kernels"][0]["body"][0]["body"][0]["body"][0]["body"][0]["body"][0];
}

TEST(Verify, Duplicate) {
  // The output Func c renamed A (no definition calls c).
  expect(broken("gemm", "merged", [](Json& d) { d["funcs"][3]["name"] = "A"; }), "ir-duplicate",
         "funcs[3]: a second Func named 'A' (the first is funcs[0])", "16:1");
  // The reader resolves channel reads, so the name is changed after reading.
  expect(broken(
             "isolate_consumer", "merged", [](Json&) {},
             [](Program& p) { p.channels[1].name = p.channels[0].name; }),
         "ir-duplicate",
         "channels[1]: a second channel named 'c_to_drainer' (the first is channels[0])", "38:3");
  expect(broken(
             "gemm", "merged", [](Json&) {}, [](Program& p) { p.inputs[0].name = "c"; }),
         "ir-duplicate", "inputs[0]: input 'c' has the name of a Func", "7:12");
}

TEST(Verify, UnknownFunc) {
  expect(broken("gemm", "merged", [](Json& d) { d["output"]["func"] = "nothing"; }),
         "ir-unknown-func",
         "output: the output names Func 'nothing', which the program does not have", "22:3");
  expect(broken("gemm", "stt", [](Json& d) { d["registers"][0]["func"] = "Z"; }), "ir-unknown-func",
         "registers[0]: register 'A_shreg' carries Func 'Z', which the program does not have",
         "13:1");
  expect(broken("gemm", "merged", [](Json& d) { d["directives"][0]["func"] = "Z"; }),
         "ir-unknown-func",
         "directives[0]: merge_ures names Func 'Z', which the program does not have", "18:3");
}

TEST(Verify, UnknownKernel) {
  expect(broken("gemm", "stt", [](Json& d) { d["registers"][0]["kernel"] = "X"; }),
         "ir-unknown-kernel",
         "registers[0]: register 'A_shreg' belongs to kernel 'X', which does not exist", "13:1");
  expect(broken("isolate_consumer", "merged", [](Json& d) { d["channels"][0]["consumer"] = "X"; }),
         "ir-unknown-kernel",
         "channels[0]: channel 'c_to_drainer' has consumer 'X', which is not a kernel", "38:3");
}

TEST(Verify, Stage) {
  expect(broken("gemm", "merged", [](Json& d) { d["stage"] = "parsed"; }), "ir-stage",
         "kernels: a parsed-stage program has no kernels (t2s-merge makes them)");
  expect(broken("gemm", "stt", [](Json& d) { d["stage"] = "merged"; }), "ir-stage",
         "registers: a merged-stage program has no registers (t2s-stt makes them)");
}

TEST(Verify, PendingOrder) {
  EXPECT_NO_THROW(verify_program(testing::load_golden_ir("conv1d_reorder_skewed", "merged"), ""));
  expect(broken("gemm", "stt",
                [](Json& d) {
                  d["kernels"][0]["pending_order"] = {"j", "i", "k"};
                }),
         "ir-stage",
         "kernels[0].pending_order: a pending loop order in a stt-stage program (only the merged "
         "stage has one; t2s-stt applies it)",
         "13:1");
  expect(broken("gemm", "merged",
                [](Json& d) {
                  d["kernels"][0]["pending_order"] = {"j", "i", "i"};
                }),
         "ir-pending-order",
         "kernels[0].pending_order: the pending loop order (j, i, i) is not an order of the "
         "kernel's loop nest (i, j, k)",
         "13:1");
}

// An isolated consumer's inherited transforms (merged stage only) name a Func.
TEST(Verify, InheritedTransforms) {
  EXPECT_NO_THROW(verify_program(testing::load_golden_ir("gemm_inherit_drainer", "merged"), ""));
  Json transform;
  expect(broken("gemm_inherit_drainer", "merged",
                [&](Json& d) {
                  transform = d["kernels"][1]["inherited_transforms"][0];
                  d["kernels"][1]["inherited_transforms"][0]["func"] = "nope";
                }),
         "ir-unknown-func",
         "kernels[1].inherited_transforms[0]: space_time_transform names Func 'nope', which the "
         "program does not have",
         "44:3");
  expect(broken("gemm_inherit_drainer", "stt",
                [&](Json& d) { d["kernels"][1]["inherited_transforms"] = {transform}; }),
         "ir-stage",
         "kernels[1].inherited_transforms[0]: an inherited transform in a stt-stage program (only "
         "the merged stage has them; t2s-stt applies them)",
         "44:3");
}

TEST(Verify, Output) {
  expect(broken("gemm", "merged", [](Json& d) { d["buffers"] = Json::array(); }), "ir-output",
         "output: the output Func 'c' has no buffer", "22:3");
  expect(broken("gemm", "merged", [](Json& d) { d["output"]["extents"].push_back("2"); }),
         "ir-output", "output: the output has 3 extents, but Func 'c' has 2 arguments", "22:3");
  // t2s-merge crashed on this (a program that realizes nothing).
  expect(broken("gemm", "parsed", [](Json& d) { d["output"]["func"] = ""; }), "ir-output",
         "output: the output names no Func (every program realizes one)", "22:3");
  // An isolated consumer has its source's dimensions (issue 16: merge, emit and run stopped
  // with internal errors).
  expect(
      broken("isolate_consumer", "parsed", [](Json& d) { d["output"]["extents"].push_back("2"); }),
      "ir-output",
      "output: the output has 3 extents, but Func 'collector' consumes Func 'c', which has 2 "
      "arguments",
      "43:11");
}

TEST(Verify, OutputBufferIsTheRealizeRegion) {
  // t2s-emit stopped with an internal error on this.
  expect(
      broken("gemm", "merged",
             [](Json& d) {
               for (Json& b : d["buffers"])
                 if (b["name"] == "c") b["bounds"][0][0] = "1";
             }),
      "ir-output",
      "output: the buffer of the output Func 'c' is not its realize region ([0, extent) in every "
      "dimension)",
      "22:3");
}

TEST(Verify, NegativeStorageExtent) {
  // t2s-run stopped with an internal error on this.
  expect(broken("seed000_2d", "merged",
                [](Json& d) { d["kernels"][0]["body"][0]["bounds"][0][1] = "-1"; }),
         "ir-storage", "kernels[0].body[0]: the realize of 'A' has the negative extent -1", "13:1");
}

TEST(Verify, StorageHoldsScalars) {
  // t2s-run stopped with an internal error on a vector-typed output buffer (ir_mutation_fuzzer).
  expect(broken("seed000_2d", "merged", [](Json& d) { d["buffers"][0]["type"] = "float32x8"; }),
         "ir-type",
         "buffers[0]: the buffer of 'B' has the vector type float32x8; Func storage holds scalars "
         "(vectors live in lets, registers and channels)",
         "14:1");
  expect(broken("seed000_2d", "merged",
                [](Json& d) { d["kernels"][0]["body"][0]["type"] = "int32x4"; }),
         "ir-type",
         "kernels[0].body[0]: the realize of 'A' has the vector type int32x4; Func storage holds "
         "scalars (vectors live in lets, registers and channels)",
         "13:1");
}

TEST(Verify, DefinitionHasTheDeclaredType) {
  // t2s-merge produced ill-formed IR (an internal error) from this.
  expect(broken("gemm", "parsed",
                [](Json& d) {
                  for (Json& f : d["funcs"])
                    if (f["name"] == "A") f["type"] = "int32";
                }),
         "ir-type",
         "funcs[0]: the definition of 'A' has type float32, but the Func is declared int32",
         "13:1");
}

TEST(Verify, OutputIsDefined) {
  // t2s-merge stopped with an internal error on this (the chain no longer defines unloader).
  expect(broken("gemm_tiled", "parsed",
                [](Json& d) {
                  for (Json& dir : d["directives"])
                    if (dir["name"] == "isolate_consumer_chain") dir["args"].erase(2);
                }),
         "ir-output",
         "output: the output Func 'unloader' is never defined (it has no definition and no "
         "isolation directive defines it)",
         "76:10");
}

TEST(Verify, DirectiveArgumentsNameFuncs) {
  // t2s-merge crashed on an isolation naming no Func.
  expect(
      broken("isolate_consumer", "parsed",
             [](Json& d) {
               for (Json& dir : d["directives"])
                 if (dir["name"] == "isolate_consumer_chain" || dir["name"] == "isolate_consumer")
                   dir["args"][0] = "zz";
             }),
      "ir-unknown-func",
      "directives[4]: isolate_consumer_chain of 'c': argument 1 ('zz') names no Func of the "
      "program",
      "38:3");
  expect(broken("gemm", "parsed", [](Json& d) { d["directives"][0]["args"][0] = "a"; }),
         "ir-unknown-func",
         "directives[0]: merge_ures of 'A': argument 1 ('a') names no Func of the program", "18:3");
}

TEST(Verify, Unbound) {
  expect(broken("gemm", "stt", [](Json& d) { gemm_stt_provide(d)["args"][0] = "q"; }), "ir-unbound",
         "kernels[0].body[0].body[0].body[0].body[0].body[0]: variable 'q' is used outside any "
         "loop or let that binds it",
         "13:1");
}

TEST(Verify, Storage) {
  // The realize of C names A instead: C's provide has no storage.
  expect(broken("gemm", "merged",
                [](Json& d) { d["kernels"][0]["body"][0]["body"][0]["body"][0]["realize"] = "A"; }),
         "ir-storage",
         "kernels[0].body[0].body[0].body[0].body[0].body[0].body[0].body[2]: read of Func 'C', "
         "which has neither an enclosing realize nor a buffer",
         "15:1");
}

TEST(Verify, Input) {
  // The reader checks every call of an input against its dims, so the program is edited after
  // reading: input a gets 3 dimensions, its reads keep 2 indices.
  expect(broken(
             "gemm", "merged", [](Json&) {}, [](Program& p) { p.inputs[0].dims = 3; }),
         "ir-input",
         "kernels[0].body[0].body[0].body[0].body[0].body[0].body[0].body[0]: read of input 'a' "
         "with 2 indices; it takes 3",
         "13:1");
}

TEST(Verify, Channel) {
  // Channel arrays the interpreter cannot hold (issue 16: an internal error).
  expect(broken("isolate_consumer", "merged",
                [](Json& d) {
                  d["channels"][0]["dims"] = Json::array({1 << 13, 1 << 13});
                }),
         "ir-channel", "channels[0]: channel 'c_to_drainer' is an array of more than 2^24 channels",
         "38:3");
  // A depth past an OpenCL int (issue 16: the report's bit counts overflowed).
  expect(broken("isolate_consumer", "merged",
                [](Json& d) { d["channels"][0]["depth"] = int64_t{1} << 31; }),
         "ir-channel", "channels[0]: channel 'c_to_drainer' has depth 2147483648 (0 to 2^31 - 1)",
         "38:3");
  // Producer and consumer swapped (issue 16: t2s-stt stopped with an internal error).
  expect(broken("isolate_consumer", "merged",
                [](Json& d) {
                  Json& c = d["channels"][1];
                  std::swap(c["producer"], c["consumer"]);
                }),
         "ir-channel",
         "kernels[2].body[0].body[0].body[0]: write_channel of 'drainer_to_collector' in kernel "
         "'drainer'; its producer is 'collector'",
         "38:3");
  expect(
      broken("isolate_consumer", "merged", [](Json& d) { d["channels"][0]["dims"].push_back(2); }),
      "ir-channel",
      "kernels[1].body[0].body[0].body[0].body[0].body[0].body[0].body[3].then[0]: "
      "write_channel of 'c_to_drainer' with 0 indices; it takes 1",
      "38:3");
  // The reader resolves channel reads, so the channel is renamed after reading.
  expect(broken(
             "isolate_consumer", "merged", [](Json&) {},
             [](Program& p) { p.channels[0].name = "elsewhere"; }),
         "ir-channel",
         "kernels[1].body[0].body[0].body[0].body[0].body[0].body[0].body[3].then[0]: "
         "write_channel of unknown channel 'c_to_drainer'",
         "38:3");
}

TEST(Verify, RegistersOfOneKernelShareItsPeArray) {
  // vec_tensor3d's C_shreg spans 8 x 2 x 8 PEs, A_shreg 8 x 2 x 2 (issue 16: t2s-vec made
  // ill-formed IR).
  expect(broken("vec_tensor3d", "stt", [](Json& d) { d["registers"][2]["shape"][2] = 8; }),
         "ir-register",
         "registers[2]: register 'C_shreg' has PE shape (8 x 2 x 8), register 'A_shreg' of the "
         "same kernel (8 x 2 x 2) (one PE array per kernel)",
         "32:1");
}

TEST(Verify, ConcurrentKernelsShareNoWrittenBuffer) {
  // vec_width12's device kernel X reads the buffer of 'drain', which the device kernel drain
  // writes, instead of input a (issue 16: an internal error in t2s-run and t2s-emit).
  std::string text = read_golden_text("vec_width12", "gathered");
  const std::string read_a = "a(ramp(12 * io, 1, 12), j)";
  ASSERT_NE(text.find(read_a), std::string::npos);
  text.replace(text.find(read_a), 1, "drain");
  Program p = read_program(text, "broken.json");
  try {
    verify_program(p, "broken.json");
    ADD_FAILURE() << "accepted";
  } catch (const Diagnostic& d) {
    expect(d, "ir-storage",
           "kernels[0]: kernels 'drain' and 'X' run concurrently and share buffer 'drain', which "
           "'drain' writes",
           "25:1");
  }
}

TEST(Verify, Rebound) {
  // gemm's loop j renamed k, inside loop k (issue 16: a loop nest repeated inside itself made
  // t2s-stt produce ill-formed IR).
  expect(broken("gemm", "merged",
                [](Json& d) {
                  d["kernels"][0]["body"][0]["body"][0]["body"][0]["body"][0]["body"][0]["for"] =
                      "k";
                }),
         "ir-rebound",
         "kernels[0].body[0].body[0].body[0].body[0].body[0]: loop 'k' binds a name that an "
         "enclosing loop or let binds",
         "15:1");
}

TEST(Verify, KernelCycle) {
  // An extra back channel from the collector to A (issue 16: it passed every tool with exit 0).
  const auto back_channel = [](Json& d) {
    Json c = d["channels"][1];
    c["name"] = "collector_to_A";
    c["producer"] = "collector";
    c["consumer"] = "A";
    d["channels"].push_back(c);
  };
  for (const char* stage : {"merged", "stt", "vectorized", "gathered"}) {
    expect(broken("isolate_consumer", stage, back_channel), "ir-kernel-cycle",
           "channels[3]: channel 'collector_to_A' from kernel 'collector' to kernel 'A' closes a "
           "cycle of kernels: A -> drainer -> collector -> A (kernels form a DAG; only a kernel's "
           "own FIFOs lead back into it)",
           "38:3");
  }
  // Two kernels feeding each other.
  expect(broken("isolate_consumer", "merged",
                [](Json& d) {
                  Json c = d["channels"][1];
                  c["name"] = "drainer_to_A";
                  c["producer"] = "drainer";
                  c["consumer"] = "A";
                  d["channels"].push_back(c);
                }),
         "ir-kernel-cycle",
         "channels[3]: channel 'drainer_to_A' from kernel 'drainer' to kernel 'A' closes a cycle "
         "of kernels: A -> drainer -> A (kernels form a DAG; only a kernel's own FIFOs lead back "
         "into it)",
         "38:3");
}

TEST(Verify, Isolation) {
  // isolate_consumer_chain(drainer, collector) on collector: collector copies drainer, which
  // copies collector (issue 16: t2s-merge looked for the chain's start forever).
  for (const char* stage : {"parsed", "merged", "gathered"}) {
    expect(broken("isolate_consumer", stage,
                  [](Json& d) { d["directives"][4]["func"] = "collector"; }),
           "ir-isolation",
           "directives[4]: the isolations form a cycle (collector -> drainer -> collector): a "
           "consumer chain starts from a Func with a definition",
           "38:3");
  }
  expect(broken("isolate_consumer", "parsed",
                [](Json& d) {
                  Json again = d["directives"][4];
                  again["args"] = Json::array({"drainer"});
                  d["directives"].push_back(again);
                }),
         "ir-isolation",
         "directives[6]: isolate_consumer_chain of 'c' defines 'drainer', which directives[4] "
         "defines already",
         "38:3");
  expect(broken("isolate_consumer", "parsed", [](Json& d) { d["directives"][4]["args"][0] = "C"; }),
         "ir-isolation",
         "directives[4]: isolate_consumer_chain of 'c' defines 'C', which has a definition",
         "38:3");
}

TEST(Verify, DirectiveShape) {
  // The passes read a directive's arguments by position (issue 16: t2s-merge crashed on an
  // isolate_producer_chain or min_depth without arguments; one with only the value to isolate
  // was an internal error, found by ir_mutation_fuzzer).
  expect(broken("isolate_consumer", "parsed",
                [](Json& d) { d["directives"][3]["args"] = Json::array({"a"}); }),
         "ir-directive",
         "directives[3]: isolate_producer_chain of 'A' has 1 argument; it takes the value to "
         "isolate and at least one producer Func",
         "34:3");
  expect(broken("isolate_consumer", "merged",
                [](Json& d) { d["directives"][5]["args"] = Json::array(); }),
         "ir-directive",
         "directives[5]: min_depth of 'drainer' has 0 arguments; it takes one "
         "channel depth",
         "40:9");
  expect(broken("isolate_consumer", "gathered",
                [](Json& d) { d["directives"][1]["args"].push_back("l"); }),
         "ir-directive",
         "directives[1]: set_bounds of 'A' has 10 arguments; it takes (Var, min, extent) triples",
         "29:6");
  expect(broken("gemm", "parsed",
                [](Json& d) {
                  d["directives"].push_back(
                      {{"func", "A"}, {"name", "unroll"}, {"args", {"i", "2"}}, {"loc", "9:9"}});
                }),
         "ir-directive",
         "directives[3]: unroll of 'A' has 2 arguments; it takes one loop (a factor is a split "
         "before it)",
         "9:9");
}

TEST(Verify, Register) {
  // The reader checks how registers are read, so the kind is changed after reading.
  expect(
      broken(
          "gemm", "stt", [](Json&) {}, [](Program& p) { p.registers[0].kind = Register::kFifo; }),
      "ir-register",
      "kernels[0].body[0].body[0].body[0].body[0]: read of 'A_shreg', which is a FIFO", "13:1");
  // The reader refuses a depth of 0 in a document; a pass could still make one.
  expect(broken(
             "gemm", "stt", [](Json&) {}, [](Program& p) { p.registers[0].depth = 0; }),
         "ir-register", "registers[0]: register 'A_shreg' has a depth or PE extent below 1",
         "13:1");
  // PE arrays the interpreter and the backends cannot index (issue 16: an internal error).
  expect(broken(
             "gemm", "stt", [](Json&) {},
             [](Program& p) {
               p.registers[0].shape = {1 << 13, 1 << 13};
             }),
         "ir-register", "registers[0]: register 'A_shreg' has more than 2^24 PEs", "13:1");
  expect(broken(
             "gemm", "stt", [](Json&) {}, [](Program& p) { p.registers[0].depth = INT64_MAX; }),
         "ir-register",
         "registers[0]: register 'A_shreg' has depth 9223372036854775807 (at most 2^31 - 1)",
         "13:1");
  expect(broken(
             "gemm", "stt", [](Json&) {},
             [](Program& p) { p.registers[0].shape = std::vector<int64_t>(33, 1); }),
         "ir-register", "registers[0]: register 'A_shreg' has 33 PE dimensions (at most 32)",
         "13:1");
  expect(broken("gemm", "stt", [](Json& d) { gemm_stt_provide(d)["args"].erase(0); }),
         "ir-register",
         "kernels[0].body[0].body[0].body[0].body[0].body[0]: write of 'A_shreg' (the PE index, "
         "then the slot) with 2 indices; it takes 3",
         "13:1");
  expect(broken(
             "gemm", "stt", [](Json&) {}, [](Program& p) { p.registers[0].kernel = "B"; }),
         "ir-unknown-kernel",
         "registers[0]: register 'A_shreg' belongs to kernel 'B', which does not exist", "13:1");
}

TEST(Verify, Type) {
  expect(broken("gemm", "merged",
                [](Json& d) {
                  d["kernels"][0]["body"][0]["body"][0]["body"][0]["body"][0]["body"][0]["body"][0]
                   ["body"][3]["if"] = "k";
                }),
         "ir-type",
         "kernels[0].body[0].body[0].body[0].body[0].body[0].body[0].body[3]: an if condition of "
         "type int32",
         "16:1");
  expect(broken("gemm", "stt", [](Json& d) { gemm_stt_provide(d)["value"] = "1"; }), "ir-type",
         "kernels[0].body[0].body[0].body[0].body[0].body[0]: the value written to register "
         "'A_shreg' has type int32, not float32",
         "13:1");
}

// A provide with one index too few of a buffer (a case the cpp backend checked before the
// verifier did).
TEST(Verify, ProvideArity) {
  expect(broken("gemm", "merged",
                [](Json& d) {
                  Json& body = d["kernels"][0]["body"][0]["body"][0]["body"][0]["body"][0]["body"]
                                [0]["body"][0]["body"];
                  body[3]["then"][0]["args"].erase(1);
                }),
         "ir-storage",
         "kernels[0].body[0].body[0].body[0].body[0].body[0].body[0].body[3].then[0]: provide of "
         "'c' with 1 indices; it takes 2",
         "16:1");
}

}  // namespace
}  // namespace t2s
