// The interpreter's storage: buffers and realizes, and registers (shift registers, FIFOs).
#include <gtest/gtest.h>

#include <map>

#include "libs/exec/interpreter_testing.h"

namespace t2s {
namespace exec_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Storage

TEST(Storage, RealizeBoundsAndUncomputedReads) {
  // Realize with a negative min; a read below it.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("T", "int32", 1) + "]", output_c(4),
      buffer_c(4), host_kernel(R"j([{"realize": "T", "type": "int32", "bounds": [["-1", "3"]],
        "loc": "6:1", "body": [
        {"for": "i", "min": "-1", "extent": "3", "kind": "serial", "body": [
          {"provide": "T", "args": ["i"], "value": "a(i + 1)", "loc": "6:1"}]},
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"provide": "c", "args": ["i"], "value": "T(i - 2)", "loc": "7:1"}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "7:1", "read of 'T' at (-2) is outside its bounds [-1, 2)", "run-func-bounds");

  Program q =
      parse(document(kInputA, "[" + func("c", "int32", 1) + ", " + func("A", "int32", 3) + "]",
                     output_c(4), buffer_c(4), host_kernel(R"j([{"realize": "A", "type": "int32",
        "bounds": [["0", "2"], ["-1", "3"], ["0", "3"]], "loc": "6:1", "body": [
        {"for": "k", "min": "0", "extent": "3", "kind": "serial", "body": [
        {"for": "j", "min": "0", "extent": "2", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "2", "kind": "serial", "body": [
          {"provide": "A", "args": ["i", "j", "k"], "value": "select(k < 2, 0, A(i, j - 1, k))",
           "loc": "8:3"}]}]}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(q, {{"a", sequence(8)}});
      },
      "8:3", "read of 'A' at (0, -1, 2) before it was computed", "run-uncomputed");
}

TEST(Storage, WriteOutsideABuffer) {
  Program p = parse(document(
      "[]", "[" + func("c", "int32", 2) + "]",
      R"j({"func": "c", "extents": ["4", "4"], "loc": "20:1"})j",
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "4"], ["0", "4"]], "loc": "9:1"}])j",
      host_kernel(R"j([{"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"provide": "c", "args": ["i + j", "j"], "value": "i", "loc": "5:7"}]}]}])j")));
  expect_diagnostic([&] { run_program(p, {}); }, "5:7",
                    "write of 'c' at (4, 1) is outside its bounds [0, 4) x [0, 4)",
                    "run-func-bounds");
}

TEST(Storage, RealizeStartsEmptyEachTime) {
  // T is realized anew for every k, so T(0) written when k == 0 is gone when k == 1.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("T", "int32", 1) + "]", output_c(2),
      buffer_c(2), host_kernel(R"j([{"for": "k", "min": "0", "extent": "2", "kind": "serial",
        "body": [{"realize": "T", "type": "int32", "bounds": [["0", "1"]], "loc": "6:1", "body": [
          {"if": "k == 0", "then": [{"provide": "T", "args": ["0"], "value": "a(k)"}],
           "else": []},
          {"provide": "c", "args": ["k"], "value": "T(0)", "loc": "7:2"}]}]}])j")));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "7:2", "read of 'T' at (0) before it was computed", "run-uncomputed");
}

TEST(Storage, OutputUnwritten) {
  Program p = parse(document(
      "[]", "[" + func("c", "int32", 2) + "]",
      R"j({"func": "c", "extents": ["4", "4"], "loc": "20:1"})j",
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "4"], ["0", "4"]], "loc": "9:1"}])j",
      host_kernel(R"j([{"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"if": "i != 1", "then": [{"provide": "c", "args": ["i", "j"], "value": "i"}],
           "else": []}]}]}])j")));
  expect_diagnostic([&] { run_program(p, {}); }, "20:1",
                    "4 of the 16 elements of output 'c' were never computed; the first is at "
                    "(1, 0)",
                    "run-output-unwritten");
}

TEST(Storage, BuffersCarryValuesBetweenKernels) {
  // Host kernel T fills buffer t; device kernels P and C pass it over a channel into c.
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("t", "int32", 1) + "]", output_c(8),
      R"j([{"name": "c", "type": "int32", "bounds": [["0", "8"]], "loc": "9:1"},
          {"name": "t", "type": "int32", "bounds": [["1", "8"]], "loc": "8:1"}])j",
      R"j([{"name": "T", "place": "host", "loc": null, "body": [
            {"for": "i", "min": "1", "extent": "8", "kind": "serial", "body": [
              {"provide": "t", "args": ["i"], "value": "a(i - 1) * 3"}]}]},
          {"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "1", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch", "index": [], "value": "t(i)"}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"provide": "c", "args": ["i"], "value": "read_channel(ch) - 1"}]}]}])j",
      R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 0, "producer": "P",
           "consumer": "C", "loc": null}])j"));
  NdArray c = run_program(p, {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{2, 32, 62, 92, 122, 152, 182, 212}));
}
// ---------------------------------------------------------------------------------------------
// Registers (stt stage): shift registers and FIFOs of one kernel

// A register record for kernel `kernel` (`kind` shift or fifo; `shape` a JSON list body).
std::string reg(const std::string& name, const std::string& kind, const std::string& shape,
                int depth, const std::string& kernel = "K", const std::string& type = "int32") {
  return R"j({"name": ")j" + name + R"j(", "func": "R", "kernel": ")j" + kernel +
         R"j(", "type": ")j" + type + R"j(", "kind": ")j" + kind + R"j(", "shape": [)j" + shape +
         R"j(], "depth": )j" + std::to_string(depth) +
         R"j(, "distance": [1], "pe_offset": [0], "time_distance": 1, "period": 1, "naive": 2,
         "loc": "12:1"})j";
}

// Host kernel K (output c of `n` int32, input a) with `registers` (a JSON list body).
Program stt_kernel(const std::string& body, const std::string& registers, int n = 8,
                   const std::string& kernel = "K") {
  // Func R: what the registers of reg() carry.
  return parse(document(kInputA, "[" + func("c", "int32", 1) + ", " + func("R", "int32", 1) + "]",
                        output_c(n), buffer_c(n),
                        R"j([{"name": ")j" + kernel + R"j(", "place": "host", "loc": "4:1",
                          "body": )j" +
                            body + "}]",
                        "[]", "stt", "[" + registers + "]"));
}

// Two PEs p write a(t) + p to slot 0 of R_shreg (depth 3) every step t, after a shift, when
// @COND holds (only shifting otherwise); c(t) reads @READ after the PEs ran.
const char kShiftBody[] = R"j([
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "5:1", "body": [
    {"for": "p", "min": "0", "extent": "2", "kind": "unrolled", "loc": "5:2", "body": [
      {"shift": "R_shreg", "args": ["@SHIFTPE"], "loc": "6:1"},
      {"if": "@COND", "loc": "7:1", "then": [
        {"provide": "R_shreg", "args": ["p", "@WSLOT"], "value": "a(t) + p", "loc": "7:2"}],
       "else": []}]},
    {"provide": "c", "args": ["t"], "value": "@READ", "loc": "8:1"}]}])j";

Program shift_program(const std::string& read, const std::string& cond = "t != 3",
                      const std::string& wslot = "0", const std::string& shift_pe = "p",
                      const std::string& extra_registers = "") {
  return stt_kernel(
      subst(kShiftBody,
            {{"@READ", read}, {"@COND", cond}, {"@WSLOT", wslot}, {"@SHIFTPE", shift_pe}}),
      reg("R_shreg", "shift", "2", 3) + extra_registers);
}

TEST(Registers, ShiftRegisterSlots) {
  // PE 1 writes v_t = a(t) + 1 = 10 t + 2, except at t == 3, where it only shifts (slot 0
  // keeps v_2). Slot 2 after step t: t = 2: v_0; 3: v_1; 4: v_2 (twice: slots 1 and 2 held it
  // after step 3); 5: v_2; 6: v_4; 7: v_5.
  NdArray c = run_program(shift_program("select(t >= 2, R_shreg(1, 2), -1)"), {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{-1, -1, 2, 12, 22, 22, 42, 52}));
  // PE 0's slot 0 and slot 1.
  c = run_program(shift_program("R_shreg(0, 0) * 100 + select(t >= 1, R_shreg(0, 1), 0)"),
                  {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c),
            (std::vector<int32_t>{100, 1101, 2111, 2121, 4121, 5141, 6151, 7161}));
}

TEST(Registers, ShiftRegisterErrors) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  // At t == 1, slot 2 of PE 1 has not received a value yet (the shift moved slot 1's "none").
  expect_diagnostic(
      [&] { run_program(shift_program("select(t >= 1, R_shreg(1, 2), -1)"), inputs); }, "8:1",
      "read of slot 2 of shift register 'R_shreg' of PE (1) before any value reached it",
      "run-register-unwritten");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(2, 0)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (2, 0) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(0, 3)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (0, 3) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("R_shreg(0, -1)"), inputs); }, "8:1",
      "read of shift register 'R_shreg' at (0, -1) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic(
      [&] { run_program(shift_program("0", "true", "t"), inputs); }, "7:2",
      "write of shift register 'R_shreg' at (0, 3) is outside its PE array (2) x 3 slots",
      "run-register-bounds");
  expect_diagnostic([&] { run_program(shift_program("0", "true", "0", "p + 1"), inputs); }, "6:1",
                    "shift of shift register 'R_shreg' at (2) is outside its PE array (2)",
                    "run-register-bounds");
}

// Two PEs: F_fifo(t % 2) receives a(t) for t in [0, 8) (@PUSHPE is the PE); @POPS pops follow,
// c(t) = select(@COND, pop(F_fifo, @POPPE), 0).
const char kFifoBody[] = R"j([
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "5:1", "body": [
    {"push": "F_fifo", "args": ["@PUSHPE"], "value": "a(t)", "loc": "6:1"}]},
  {"for": "t", "min": "0", "extent": "8", "kind": "serial", "loc": "7:1", "body": [
    {"provide": "c", "args": ["t"], "value": "select(@COND, pop(F_fifo, @POPPE), 0)",
     "loc": "8:1"}]}])j";

Program fifo_program(int depth, const std::string& pop_pe = "t / 4",
                     const std::string& cond = "true", const std::string& push_pe = "t % 2") {
  return stt_kernel(subst(kFifoBody, {{"@PUSHPE", push_pe}, {"@COND", cond}, {"@POPPE", pop_pe}}),
                    reg("F_fifo", "fifo", "2", depth));
}

TEST(Registers, FifoOrder) {
  // PE 0 holds a(0), a(2), a(4), a(6) in that order; PE 1 the odd ones.
  NdArray c = run_program(fifo_program(4), {{"a", sequence(8)}});
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1, 21, 41, 61, 11, 31, 51, 71}));
}

TEST(Registers, FifoErrors) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  expect_diagnostic([&] { run_program(fifo_program(3), inputs); }, "6:1",
                    "FIFO 'F_fifo' of PE (0) overflows: it already holds its depth of 3 values",
                    "run-fifo-overflow");
  expect_diagnostic([&] { run_program(fifo_program(1, "t / 4", "true", "0"), inputs); }, "6:1",
                    "FIFO 'F_fifo' of PE (0) overflows: it already holds its depth of 1 value",
                    "run-fifo-overflow");
  expect_diagnostic([&] { run_program(fifo_program(4, "0"), inputs); }, "8:1",
                    "pop from FIFO 'F_fifo' of PE (0), which is empty", "run-fifo-empty");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "t < 7"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (1) still holds 1 value after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "t < 3"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (0) still holds 1 value after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "false"), inputs); }, "12:1",
                    "FIFO 'F_fifo' of PE (0) still holds 4 values after kernel 'K' finished",
                    "run-fifo-leftover");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 2"), inputs); }, "8:1",
                    "pop from FIFO 'F_fifo' at (2) is outside its PE array (2)",
                    "run-register-bounds");
  expect_diagnostic([&] { run_program(fifo_program(4, "t / 4", "true", "t % 3"), inputs); }, "6:1",
                    "push to FIFO 'F_fifo' at (2) is outside its PE array (2)",
                    "run-register-bounds");
}

// Malformed registers are the verifier's to reject; a register option without its map is the
// interpreter's.
TEST(Registers, MalformedRegistersAndOptions) {
  const std::map<std::string, NdArray> inputs = {{"a", sequence(8)}};
  const std::string read = R"j([{"provide": "c", "args": ["0"], "value": "R_shreg(0, 0)"}])j";
  expect_verifier_error(stt_kernel(read, reg("R_shreg", "shift", "2", 3, "Q")),
                        "registers[0]: register 'R_shreg' belongs to kernel 'Q', which does not "
                        "exist",
                        "ir-unknown-kernel");
  expect_verifier_error(stt_kernel(R"j([{"push": "R_shreg", "args": ["0"], "value": "1"}])j",
                                   reg("R_shreg", "shift", "2", 3)),
                        "kernels[0].body[0]: push of 'R_shreg', which is a shift register",
                        "ir-register");
  expect_verifier_error(
      stt_kernel(R"j([{"shift": "R_shreg", "args": []}])j", reg("R_shreg", "shift", "2", 3)),
      "kernels[0].body[0]: shift of 'R_shreg' (the PE index) with 0 indices; it takes 1",
      "ir-register");
  Program p = shift_program("0");
  RunOptions options;
  options.track_registers = true;
  expect_internal_error([&] { run_program(p, inputs, options); },
                        "RunOptions::track_registers needs RunOptions::max_live");
}

TEST(Registers, LetsOfAnyScalarType) {
  // A float32 let, an int64 let and a bool let; an inner let shadows with another type.
  Program p = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"let": "x", "value": "cast(Float(32), a(i)) * 0.5f", "body": [
      {"let": "w", "value": "cast(Int(64), a(i)) * 4294967296l", "body": [
        {"let": "b", "value": "i % 2 == 0", "body": [
          {"let": "x", "value": "x + 0.25f", "body": [
            {"provide": "c", "args": ["i"],
             "value": "select(b, cast(Int(32), x * 4.0f), cast(Int(32), w / 4294967296l))"}]}]}]}]}]}])j");
  NdArray c = run_program(p, {{"a", sequence(8)}});
  // Even i: (a / 2 + 1 / 4) * 4 = 2 a + 1; odd i: a.
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{3, 11, 43, 31, 83, 51, 123, 71}));
}

// Runs `p` with register tracking and returns max_live.
std::map<std::string, int64_t> max_live(const Program& p, NdArray* out = nullptr) {
  std::map<std::string, int64_t> live;
  RunOptions options;
  options.track_registers = true;
  options.max_live = &live;
  NdArray c = run_program(p, {{"a", sequence(8)}}, options);
  if (out) *out = c;
  return live;
}

TEST(Registers, MaxLiveOfAFifo) {
  // Each PE p receives a(t) at t % 2 == p, and the value pushed at t is popped at t + 5 (or
  // after the loop): PE 0 holds a(0), a(2), a(4) when a(4) arrives, a(0) leaves at t = 5. At
  // most 3 values per PE (6 in both PEs together: max_live is per PE).
  Program p = stt_kernel(R"j([
    {"for": "t", "min": "0", "extent": "8", "kind": "serial", "body": [
      {"push": "F_fifo", "args": ["t % 2"], "value": "a(t)"},
      {"if": "t >= 5", "then": [
        {"provide": "c", "args": ["t - 5"], "value": "pop(F_fifo, (t - 5) % 2)"}],
       "else": []}]},
    {"for": "t", "min": "3", "extent": "5", "kind": "serial", "body": [
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, t % 2)"}]}])j",
                         reg("F_fifo", "fifo", "2", 3));
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"F_fifo", 3}}));
  EXPECT_EQ(elements<int32_t>(c), elements<int32_t>(sequence(8)));

  // Push two, pop one, repeatedly: the FIFO of PE (0) holds 5 values after the last push.
  Program q = stt_kernel(R"j([
    {"for": "t", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"push": "F_fifo", "args": ["0"], "value": "a(2 * t)"},
      {"push": "F_fifo", "args": ["0"], "value": "a(2 * t + 1)"},
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, 0)"}]},
    {"for": "t", "min": "4", "extent": "4", "kind": "serial", "body": [
      {"provide": "c", "args": ["t"], "value": "pop(F_fifo, 0)"}]}])j",
                         reg("F_fifo", "fifo", "2", 5));
  EXPECT_EQ(max_live(q, &c), (std::map<std::string, int64_t>{{"F_fifo", 5}}));
  EXPECT_EQ(elements<int32_t>(c), elements<int32_t>(sequence(8)));
}

TEST(Registers, MaxLiveOfAPlainRegister) {
  // GEMM's C: a depth-1 register read and overwritten by the same statement (it reads before
  // it writes, so the old value is dead when the new one arrives).
  Program p = stt_kernel(R"j([
    {"for": "k", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"provide": "C_shreg", "args": ["0", "0"],
       "value": "select(k == 0, 0, C_shreg(0, 0)) + a(k)"}]},
    {"provide": "c", "args": ["0"], "value": "C_shreg(0, 0)"}])j",
                         reg("C_shreg", "shift", "1", 1), 1);
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"C_shreg", 1}}));
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{1 + 11 + 21 + 31}));
}

TEST(Registers, MaxLiveOfAShiftRegister) {
  // Read at slot k right after the write: k + 1 values live (the one read, the ones written
  // since). A register never read counts 0; the PE that is not read counts 0 too.
  const std::string unused = ", " + reg("U_shreg", "shift", "4", 2);
  EXPECT_EQ(max_live(shift_program("select(t >= 2, R_shreg(1, 2), -1)", "true", "0", "p", unused)),
            (std::map<std::string, int64_t>{{"R_shreg", 3}, {"U_shreg", 0}}));
  EXPECT_EQ(max_live(shift_program("select(t >= 1, R_shreg(0, 1), -1)", "true")),
            (std::map<std::string, int64_t>{{"R_shreg", 2}}));
  EXPECT_EQ(max_live(shift_program("R_shreg(1, 0)", "true")),
            (std::map<std::string, int64_t>{{"R_shreg", 1}}));
  // With the write skipped at t == 3, v_2 stays in the register for longer (read at t = 4 and
  // t = 5): at the write of v_5, v_2, v_4 and v_5 are live.
  EXPECT_EQ(max_live(shift_program("select(t >= 2, R_shreg(1, 2), -1)")),
            (std::map<std::string, int64_t>{{"R_shreg", 3}}));
  // Existing entries of other names are kept.
  std::map<std::string, int64_t> live = {{"other", 7}};
  RunOptions options;
  options.track_registers = true;
  options.max_live = &live;
  run_program(shift_program("R_shreg(1, 0)", "true"), {{"a", sequence(8)}}, options);
  EXPECT_EQ(live, (std::map<std::string, int64_t>{{"R_shreg", 1}, {"other", 7}}));
}

TEST(Registers, ConcurrentKernels) {
  // Device kernels P and C, each with its own registers, connected by channel ch: P delays a(i)
  // by two steps in P_shreg; C passes what it receives through C_fifo, one step late.
  const std::string kernels = R"j([
    {"name": "P", "place": "device", "loc": "4:1", "body": [
      {"for": "t", "min": "0", "extent": "10", "kind": "serial", "body": [
        {"shift": "P_shreg", "args": []},
        {"if": "t < 8", "then": [{"provide": "P_shreg", "args": ["0"], "value": "a(t)"}],
         "else": []},
        {"if": "t >= 2", "then": [
          {"write_channel": "ch", "index": [], "value": "P_shreg(2)"}], "else": []}]}]},
    {"name": "C", "place": "device", "loc": "5:1", "body": [
      {"for": "t", "min": "0", "extent": "9", "kind": "serial", "body": [
        {"if": "t < 8", "then": [
          {"push": "C_fifo", "args": [], "value": "read_channel(ch) * 2"}], "else": []},
        {"if": "t >= 1", "then": [
          {"provide": "c", "args": ["t - 1"], "value": "pop(C_fifo)"}], "else": []}]}]}])j";
  const std::string channels = R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 1,
    "producer": "P", "consumer": "C", "loc": "7:1"}])j";
  Program p = parse(document(
      kInputA, "[" + func("c", "int32", 1) + "]", output_c(8), buffer_c(8), kernels, channels,
      "stt",
      R"j([{"name": "P_shreg", "func": "P", "kernel": "P", "type": "int32", "kind": "shift",
              "shape": [], "depth": 3, "distance": [2], "pe_offset": [], "time_distance": 2, "period": 1,
              "naive": 3, "loc": "10:1"},
             {"name": "C_fifo", "func": "C", "kernel": "C", "type": "int32", "kind": "fifo",
              "shape": [], "depth": 2, "distance": [1], "pe_offset": [], "time_distance": 1, "period": 1,
              "naive": 2, "loc": "11:1"}])j"));
  NdArray c;
  EXPECT_EQ(max_live(p, &c), (std::map<std::string, int64_t>{{"C_fifo", 2}, {"P_shreg", 3}}));
  EXPECT_EQ(elements<int32_t>(c), (std::vector<int32_t>{2, 22, 42, 62, 82, 102, 122, 142}));

  // A kernel cannot use another kernel's register (the verifier's rule).
  Program q = parse(document(
      kInputA, "[" + func("c", "int32", 1) + ", " + func("P", "int32", 1) + "]", output_c(8),
      buffer_c(8),
      R"j([{"name": "P", "place": "host", "loc": null, "body": []},
           {"name": "C", "place": "host", "loc": null, "body": [
             {"provide": "c", "args": ["0"], "value": "P_shreg(0)"}]}])j",
      "[]", "stt",
      R"j([{"name": "P_shreg", "func": "P", "kernel": "P", "type": "int32", "kind": "shift",
            "shape": [], "depth": 3, "distance": [2], "pe_offset": [], "time_distance": 2, "period": 1,
            "naive": 3, "loc": "10:1"}])j"));
  expect_verifier_error(
      q, "kernels[1].body[0]: read of register 'P_shreg' in kernel 'C'; it belongs to kernel 'P'",
      "ir-register");
}

// About 1.6 million register events: tracking must stay fast (see Gemm64Completes).
TEST(Registers, MaxLiveOfALongRun) {
  const char body[] = R"j([
    {"for": "t", "min": "0", "extent": "200000", "kind": "serial", "body": [
      {"for": "p", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"shift": "R_shreg", "args": ["p"]},
        {"provide": "R_shreg", "args": ["p", "0"], "value": "t + p"}]},
      {"if": "t >= 5", "then": [
        {"provide": "c", "args": ["t % 8"], "value": "R_shreg(t % 4, 5)"}], "else": []}]},
    {"for": "i", "min": "0", "extent": "@FINAL", "kind": "serial", "body": [
      {"provide": "c", "args": ["i"], "value": "R_shreg(i % 4, 5)"}]}])j";
  // At step t, PE t % 4 reads the value it wrote at step t - 5 (after this step's writes), so
  // only every fourth value of a PE is read: at the write of value s + 4, value s (read at step
  // s + 5) is still live, and nothing else.
  NdArray c;
  EXPECT_EQ(
      max_live(stt_kernel(subst(body, {{"@FINAL", "0"}}), reg("R_shreg", "shift", "4", 6)), &c),
      (std::map<std::string, int64_t>{{"R_shreg", 2}}));
  std::vector<int32_t> expected;
  for (int32_t k = 0; k < 8; ++k) expected.push_back(199992 + k - 5 + k % 4);
  EXPECT_EQ(elements<int32_t>(c), expected);
  // Reading every PE's slot 5 after the loop keeps the values of step 199994 live to the end:
  // PE 2 writes its value of step 199994 while those of steps 199989 (read later in that step)
  // and 199993 (read at step 199998) are live.
  EXPECT_EQ(max_live(stt_kernel(subst(body, {{"@FINAL", "8"}}), reg("R_shreg", "shift", "4", 6))),
            (std::map<std::string, int64_t>{{"R_shreg", 3}}));
}

}  // namespace
}  // namespace exec_test
}  // namespace t2s
