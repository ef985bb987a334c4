// //libs/passes/common:double_buffer_test: apply_buffers on hand-built consumer kernels, for the
// forms the specs of testdata/ do not reach (a loop with a non-zero min, a channel index over an
// outer loop, READS == WRITES, a cycle nest with a statement beside it, a read through a let).
// Cost: under a second.
#include "libs/passes/common/double_buffer.h"

#include <gtest/gtest.h>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"

namespace t2s {
namespace {

Expr e(const std::string& text) { return parse_expr_text(text, {}); }

StmtPtr loop(const std::string& v, int min, int extent, StmtList body,
             LoopKind kind = LoopKind::kSerial) {
  return make_for(v, e(std::to_string(min)), e(std::to_string(extent)), kind, std::move(body));
}

// One statement a line, nested statements indented.
void print(const StmtList& list, int depth, std::string* out) {
  const std::string pad(2 * depth, ' ');
  for (const StmtPtr& s : list) {
    if (const For* f = s->as<For>()) {
      *out += pad + "for " + f->var + " in [" + print_expr(f->min) + ", +" + print_expr(f->extent) +
              ")\n";
      print(f->body, depth + 1, out);
    } else if (const LetStmt* l = s->as<LetStmt>()) {
      *out += pad + "let " + l->var + " = " + print_expr(l->value) + "\n";
      print(l->body, depth + 1, out);
    } else if (const IfThenElse* i = s->as<IfThenElse>()) {
      *out += pad + "if " + print_expr(i->condition) + "\n";
      print(i->then_body, depth + 1, out);
    } else if (const WriteChannel* w = s->as<WriteChannel>()) {
      *out += pad + "send " + print_expr(w->value) + "\n";
    } else if (const Provide* p = s->as<Provide>()) {
      std::string args;
      for (const Expr& a : p->args) args += (args.empty() ? "" : ", ") + print_expr(a);
      *out += pad + p->func + "(" + args + ") = " + print_expr(p->value) + "\n";
    } else if (const Realize* r = s->as<Realize>()) {
      std::string extents;
      for (const Expr& x : r->extents) extents += (extents.empty() ? "" : " x ") + print_expr(x);
      *out += pad + "realize " + r->func + " " + extents;
      if (r->double_buffer)
        *out += " (" + std::to_string(r->double_buffer->reads) + " reads, " +
                std::to_string(r->double_buffer->writes) + " writes)";
      *out += "\n";
      print(r->body, depth + 1, out);
    } else {
      *out += pad + "?\n";
    }
  }
}

const Expr& read_of(int dims_index) {
  static const Expr plain =
      make_call("read_channel", CallKind::kChannel, Type::Float(32), {e("ch")});
  static const Expr indexed =
      make_call("read_channel", CallKind::kChannel, Type::Float(32), {e("ch"), e("o")});
  return dims_index ? indexed : plain;
}

// A consumer C of producer P's channel `ch` with body `body`, and C.buffer(P, v).
Program consumer(StmtList body, std::vector<int64_t> channel_dims = {}) {
  Program p;
  p.kernels.push_back({"P", Place::kDevice, {}, {}, {}, {}});
  p.kernels.push_back({"C", Place::kDevice, std::move(body), {}, {}, {}});
  p.channels.push_back({"ch", Type::Float(32), std::move(channel_dims), 0, "P", "C", {}, ""});
  p.directives.push_back(Directive::make(
      "C", DirectiveKind::kBuffer, {DirectiveArg::expr("P"), DirectiveArg::expr("v")}, {"", 9, 3}));
  return p;
}

std::string buffered(Program p) {
  try {
    apply_buffers(p, [](const Kernel&) { return true; });
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.loc().line, 9);
    return d.rule() + ": " + d.message();
  }
  std::string out;
  print(p.kernels[1].body, 0, &out);
  return out;
}

TEST(DoubleBuffer, OuterLoopsWithAMinAndAChannelIndexOverThem) {
  // for o in [1, 3): for v < 2: for s < 3: send read_channel(ch, o) (ch has 4 elements)
  Program p = consumer(
      {loop("o", 1, 2,
            {loop("v", 0, 2, {loop("s", 0, 3, {make_write_channel("out", {}, read_of(1))})})})},
      {4});
  EXPECT_EQ(buffered(p),
            "realize P 3 x 2 (3 reads, 3 writes)\n"
            "  for period in [0, +5)\n"
            "    for cycle in [0, +3)\n"
            "      if period < 4\n"
            "        let o = 1 + period / 2\n"
            "          let v = period % 2\n"
            "            let s = cycle\n"
            "              P(s, period % 2) = read_channel(ch, o)\n"
            "      if period >= 1\n"
            "        let o = 1 + (period - 1) / 2\n"
            "          let v = (period - 1) % 2\n"
            "            let s = cycle\n"
            "              send P(s, (period - 1) % 2)\n");
}

TEST(DoubleBuffer, AFixedReadWritesFromTheGapOn) {
  // for v < 2: for s in [2, 4): for t < 3: if (t == 1) send read (2 writes, 6 reads)
  Program p = consumer({loop(
      "v", 0, 2,
      {loop("s", 2, 2,
            {loop("t", 0, 3,
                  {make_if(e("t == 1"), {make_write_channel("out", {}, read_of(0))}, {})})})})});
  EXPECT_EQ(buffered(p),
            "realize P 2 x 2 (6 reads, 2 writes)\n"
            "  for period in [0, +3)\n"
            "    for cycle in [0, +6)\n"
            "      if period < 2 && cycle >= 4\n"
            "        let s = 2 + (cycle - 4)\n"
            "          P(s, period % 2) = read_channel(ch)\n"
            "      if period >= 1\n"
            "        let v = period - 1\n"
            "          let s = 2 + cycle / 3\n"
            "            let t = cycle % 3\n"
            "              if t == 1\n"
            "                send P(s, (period - 1) % 2)\n");
}

TEST(DoubleBuffer, Refusals) {
  const StmtPtr send = make_write_channel("out", {}, read_of(0));
  // A statement beside the serial nest inside v: a cycle would not be one iteration.
  EXPECT_EQ(
      buffered(consumer({loop("v", 0, 2,
                              {loop("s", 0, 2, {send}),
                               loop("u", 0, 2, {make_write_channel("out", {}, e("1.0f"))})})})),
      "buffer-loop: buffer of 'C' at 'v': the serial loops inside 'v' in 'C' must be one "
      "nest around the rest of the body (a cycle is one iteration of them all), and loop "
      "'s' is not in it");
  // Two statements beside each other around v.
  EXPECT_EQ(buffered(consumer({loop(
                "o", 0, 2, {loop("v", 0, 2, {send}), make_write_channel("out", {}, e("1.0f"))})})),
            "buffer-loop: buffer of 'C' at 'v': the loops around 'v' in 'C' must be a nest of "
            "serial loops, each the only statement of the one around it (a period is one "
            "iteration of them all)");
  // A read in an else branch: the values a period writes are not the storage's elements.
  EXPECT_EQ(
      buffered(consumer({loop(
          "v", 0, 2,
          {loop("t", 0, 3,
                {make_if(e("t == 1"), {make_write_channel("out", {}, e("1.0f"))}, {send})})})})),
      "buffer-read: buffer of 'C' at 'v': 'C' reads 'ch' under the condition `t == 1` failing (in "
      "its else branch); in a double buffer a read may be fixed to one iteration of loops inside "
      "'v' (`loop == constant`), and no other condition decides how many values a period writes");
  EXPECT_EQ(buffered(consumer({loop("o", 0, 2, {send})})),
            "buffer-loop: buffer of 'C' at 'v': 'C' has no loop 'v' (its loops: o)");
  // A producer the consumer does not read.
  Program other = consumer({loop("v", 0, 2, {send})});
  other.channels[0].producer = "Q";
  EXPECT_EQ(buffered(other),
            "buffer-target: buffer of 'C' at 'v': 'C' does not read a channel from 'P'; "
            "buffer(P, v) takes the producer whose channel the consumer reads, the one before "
            "it in an isolate_producer_chain on the device");
  // A consumer the stage does not select (t2s-merge leaves transformed ones to t2s-stt) is left
  // as it is.
  Program p = consumer({loop("v", 0, 2, {send})});
  const StmtList before = p.kernels[1].body;
  apply_buffers(p, [](const Kernel&) { return false; });
  EXPECT_EQ(p.kernels[1].body, before);
}

}  // namespace
}  // namespace t2s
