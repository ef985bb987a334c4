// The interpreter's channels: concurrent device kernels, deadlock, leftovers, errors.
#include <gtest/gtest.h>

#include "libs/exec/interpreter_testing.h"

namespace t2s {
namespace exec_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Channels and concurrency

// Producer P writes `@W` values a(i) * 2 to channel ch (dims @DIMS, depth @DEPTH; @WIDX the
// write index); consumer C computes c(i) = read_channel(ch@RIDX) + 1 for `@R` values of i.
const char kPipeKernels[] = R"j([
  {"name": "P", "place": "device", "loc": "5:1", "body": [
    {"for": "i", "min": "0", "extent": "@W", "kind": "serial", "loc": "5:1", "body": [
      {"write_channel": "ch", "index": [@WIDX], "value": "a(i) * 2", "loc": "5:3"}]}]},
  {"name": "C", "place": "device", "loc": "6:1", "body": [
    {"for": "i", "min": "0", "extent": "@R", "kind": "serial", "loc": "6:1", "body": [
      {"provide": "c", "args": ["i"], "value": "read_channel(ch@RIDX) + 1", "loc": "6:3"}]}]}])j";
const char kPipeChannel[] = R"j([{"name": "ch", "type": "int32", "dims": [@DIMS],
  "depth": @DEPTH, "producer": "P", "consumer": "C", "loc": "7:1"}])j";

Program pipe(int writes, int reads, int depth, bool array = false, int n = 8) {
  std::vector<std::pair<std::string, std::string>> vs = {
      {"@W", std::to_string(writes)},      {"@R", std::to_string(reads)},
      {"@DEPTH", std::to_string(depth)},   {"@DIMS", array ? "2" : ""},
      {"@WIDX", array ? "\"i % 2\"" : ""}, {"@RIDX", array ? ", i % 2" : ""}};
  return parse(document(kInputA, kFuncC, output_c(n), buffer_c(n), subst(kPipeKernels, vs),
                        subst(kPipeChannel, vs)));
}

TEST(Channels, TwoKernelsMatchOne) {
  Program one = one_kernel(R"j([{"for": "i", "min": "0", "extent": "8", "kind": "serial",
    "body": [{"provide": "c", "args": ["i"], "value": "a(i) * 2 + 1"}]}])j");
  const NdArray expected = run_program(one, {{"a", sequence(8)}});
  for (int depth : {0, 1, 3, 100}) {
    for (bool array : {false, true}) {
      NdArray c = run_program(pipe(8, 8, depth, array), {{"a", sequence(8)}});
      EXPECT_EQ(compare_arrays(expected, c), std::nullopt) << depth << " " << array;
    }
  }
}

TEST(Channels, ReadingMoreThanWrittenIsADeadlock) {
  expect_diagnostic(
      [&] {
        run_program(pipe(4, 8, 2), {{"a", sequence(8)}});
      },
      "6:3",
      "deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from "
      "channel 'ch' (empty)",
      "run-deadlock");
  expect_diagnostic(
      [&] {
        run_program(pipe(6, 8, 2, true), {{"a", sequence(8)}});
      },
      "6:3",
      "deadlock: every unfinished kernel is blocked: kernel 'C' waits to read from "
      "channel 'ch' at (0) (empty)",
      "run-deadlock");
}

TEST(Channels, BothKernelsBlocked) {
  // P fills ch (depth 1) before writing ch2; C reads ch2 first.
  Program p =
      parse(document(kInputA, kFuncC, output_c(8), buffer_c(8),
                     R"j([{"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch", "index": [], "value": "a(i)", "loc": "5:1"}]},
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"write_channel": "ch2", "index": [], "value": "i", "loc": "5:2"}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "8", "kind": "serial", "body": [
              {"provide": "c", "args": ["i"], "value": "read_channel(ch2) + read_channel(ch)",
               "loc": "6:1"}]}]}])j",
                     R"j([{"name": "ch", "type": "int32", "dims": [], "depth": 1, "producer": "P",
           "consumer": "C", "loc": null},
          {"name": "ch2", "type": "int32", "dims": [], "depth": 1, "producer": "P",
           "consumer": "C", "loc": null}])j"));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "5:1",
      "deadlock: every unfinished kernel is blocked: kernel 'P' waits to write to "
      "channel 'ch' (full); kernel 'C' waits to read from channel 'ch2' (empty)",
      "run-deadlock");
}

TEST(Channels, ElementsVisitedInAnotherOrderNeedDepth) {
  // P writes element i / 4 (0, 0, 0, 0, 1, ...); C reads element i % 2 (0, 1, 0, 1, ...): with
  // depth 1, P fills element 0 while C waits on element 1, and the message says how to deepen
  // the channel; with depth 4 both run.
  std::vector<std::pair<std::string, std::string>> vs = {
      {"@W", "8"},         {"@R", "8"}, {"@DEPTH", "1"}, {"@DIMS", "2"}, {"@WIDX", "\"i / 4\""},
      {"@RIDX", ", i % 2"}};
  auto program = [&](const std::string& depth) {
    vs[2].second = depth;
    return parse(document(kInputA, kFuncC, output_c(8), buffer_c(8), subst(kPipeKernels, vs),
                          subst(kPipeChannel, vs)));
  };
  expect_diagnostic(
      [&] {
        run_program(program("1"), {{"a", sequence(8)}});
      },
      "5:3",
      "deadlock: every unfinished kernel is blocked: kernel 'P' waits to write to channel 'ch' "
      "at (0) (full); kernel 'C' waits to read from channel 'ch' at (1) (empty). Channel 'ch' "
      "is full at one element while 'C' waits to read another: its ends visit the elements in "
      "different orders, further apart than the channel's depth; a deeper channel lets both "
      "run (P.min_depth(N), N the values one element must hold)",
      "run-deadlock");
  EXPECT_NO_THROW(run_program(program("4"), {{"a", sequence(8)}}));
}

TEST(Channels, Leftover) {
  // C reads 5 of 8 values and stops; the deep channel lets P finish.
  expect_diagnostic(
      [&] {
        run_program(pipe(8, 5, 8), {{"a", sequence(8)}});
      },
      "7:1", "channel 'ch' still holds 3 unread values after its kernels finished",
      "run-channel-leftover");
  expect_diagnostic(
      [&] {
        run_program(pipe(8, 7, 8, true), {{"a", sequence(8)}});
      },
      "7:1",
      "channel 'ch' still holds 1 unread value after its kernels finished, the "
      "first at (1)",
      "run-channel-leftover");
}

TEST(Channels, AnErrorStopsBlockedKernels) {
  // P fails (reads a(8)) while C waits for its ninth value.
  expect_diagnostic(
      [&] {
        run_program(pipe(9, 9, 4, false, 9), {{"a", sequence(8)}});
      },
      "5:3", "read of input 'a' at (8) is outside its extents (8)", "run-input-bounds");
  // C fails (writes c(8) of 8) while P waits for room in the channel.
  expect_diagnostic(
      [&] {
        run_program(pipe(100, 100, 1), {{"a", sequence(100)}});
      },
      "6:3", "write of 'c' at (8) is outside its bounds [0, 8)", "run-func-bounds");
}

TEST(Channels, AnErrorStopsRunningKernels) {
  // P would loop for about 10^18 steps; C fails at once and P must stop promptly.
  Program p = parse(document(kInputA, kFuncC, output_c(8), buffer_c(8),
                             R"j([{"name": "P", "place": "device", "loc": null, "body": [
            {"for": "i", "min": "0", "extent": "1000000000", "kind": "serial", "body": [
              {"for": "j", "min": "0", "extent": "1000000000", "kind": "serial", "body": []}]}]},
          {"name": "C", "place": "device", "loc": null, "body": [
            {"provide": "c", "args": ["0"], "value": "a(9)", "loc": "6:1"}]}])j"));
  expect_diagnostic(
      [&] {
        run_program(p, {{"a", sequence(8)}});
      },
      "6:1", "read of input 'a' at (9) is outside its extents (8)", "run-input-bounds");
}

}  // namespace
}  // namespace exec_test
}  // namespace t2s
