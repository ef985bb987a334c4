// //libs/passes/common:remove_loops_test: apply_removes on hand-built producer kernels, for the
// forms the specs of testdata/ do not reach (other conjuncts kept, an else branch, sends at two
// values, a value outside the range, bounds and lets over the removed loop). Cost: under a
// second.
#include "libs/passes/common/remove_loops.h"

#include <gtest/gtest.h>

#include <functional>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"

namespace t2s {
namespace {

Expr e(const std::string& text) { return parse_expr_text(text, {}); }

StmtPtr loop(const std::string& v, int extent, StmtList body, LoopKind kind = LoopKind::kSerial) {
  return make_for(v, e("0"), e(std::to_string(extent)), kind, std::move(body));
}
StmtPtr let_of(const std::string& var, const std::string& value, StmtList body) {
  return make_let(var, e(value), std::move(body));
}
StmtPtr send(const std::string& value) { return make_write_channel("ch", {}, e(value)); }
StmtPtr when(const std::string& condition, StmtList then_body, StmtList else_body = {}) {
  return make_if(e(condition), std::move(then_body), std::move(else_body));
}

// The body of kernel P, one statement a line, nested statements indented.
void print(const StmtList& list, int depth, std::string* out) {
  const std::string pad(2 * depth, ' ');
  for (const StmtPtr& s : list) {
    if (const For* f = s->as<For>()) {
      *out += pad + "for " + f->var + " < " + print_expr(f->extent) + "\n";
      print(f->body, depth + 1, out);
    } else if (const LetStmt* l = s->as<LetStmt>()) {
      *out += pad + "let " + l->var + " = " + print_expr(l->value) + "\n";
      print(l->body, depth + 1, out);
    } else if (const IfThenElse* i = s->as<IfThenElse>()) {
      *out += pad + "if " + print_expr(i->condition) + "\n";
      print(i->then_body, depth + 1, out);
      if (!i->else_body.empty()) {
        *out += pad + "else\n";
        print(i->else_body, depth + 1, out);
      }
    } else if (const WriteChannel* w = s->as<WriteChannel>()) {
      *out += pad + "send " + print_expr(w->value) + "\n";
    } else {
      *out += pad + "?\n";
    }
  }
}

Program producer(StmtList body, const std::vector<std::vector<std::string>>& removes) {
  Program p;
  p.kernels.push_back({"P", Place::kDevice, std::move(body), {}, {}, {}});
  for (const std::vector<std::string>& vars : removes) {
    std::vector<DirectiveArg> args;
    for (const std::string& v : vars) args.push_back(DirectiveArg::expr(v));
    p.directives.push_back(Directive::make("P", DirectiveKind::kRemove, args, {"", 9, 3}));
  }
  return p;
}

std::string removed(StmtList body, const std::vector<std::vector<std::string>>& removes) {
  Program p = producer(std::move(body), removes);
  apply_removes(
      p, [](const Kernel&) { return true; }, [](const Kernel&) { return true; });
  std::string out;
  print(p.kernels[0].body, 0, &out);
  return out;
}

// The rule and message of the Diagnostic apply_removes throws.
std::string refusal(StmtList body, const std::vector<std::vector<std::string>>& removes) {
  Program p = producer(std::move(body), removes);
  try {
    apply_removes(
        p, [](const Kernel&) { return true; }, [](const Kernel&) { return true; });
  } catch (const Diagnostic& d) {
    EXPECT_EQ(d.loc().line, 9);
    return d.rule() + ": " + d.message();
  }
  return "accepted";
}

TEST(RemoveLoops, OtherConjunctsAndTheirElseBranchStay) {
  StmtList body = {loop(
      "k", 4,
      {loop("j", 3, {when("j == 1 && k < 2", {send("a(k)")}, {when("j == 1", {send("b(k)")})})})})};
  EXPECT_EQ(removed(body, {{"j"}}),
            "for k < 4\n"
            "  if k < 2\n"
            "    send a(k)\n"
            "  else\n"
            "    send b(k)\n");
}

TEST(RemoveLoops, LetsOverTheLoopTakeItsValue) {
  StmtList body = {loop("j", 4, {let_of("q", "j * 2", {when("2 == j", {send("a")})})})};
  EXPECT_EQ(removed(body, {{"j"}}),
            "let q = 2 * 2\n"
            "  send a\n");
}

TEST(RemoveLoops, ALoopThatSendsNothingRunsOnce) {
  StmtList body = {loop("j", 4, {loop("t", 2, {})}), loop("k", 2, {send("c")})};
  EXPECT_EQ(removed(body, {{"j"}}),
            "for t < 2\n"
            "for k < 2\n"
            "  send c\n");
}

TEST(RemoveLoops, Refusals) {
  EXPECT_EQ(
      refusal({loop("j", 4, {when("j == 0", {send("a")}), when("j == 1", {send("b")})})}, {{"j"}}),
      "remove-depends: remove(j) on 'P': 'P' sends at j == 0 and at j == 1; without the "
      "loop it can send at one only");
  EXPECT_EQ(refusal({loop("j", 4, {when("j == 7", {send("a")})})}, {{"j"}}),
            "remove-depends: remove(j) on 'P': 'P' sends only at j == 7, outside the loop's range "
            "[0, 4): it never sends");
  EXPECT_EQ(
      refusal(
          {loop("j", 4,
                {make_for("t", e("0"), e("j"), LoopKind::kSerial, {when("j == 0", {send("a")})})})},
          {{"j"}}),
      "remove-depends: remove(j) on 'P': the bounds of loop 't' depend on 'j'");
  EXPECT_EQ(refusal({loop("j", 4, {let_of("q", "j + 1", {when("q == 1", {send("a")})})})}, {{"j"}}),
            "remove-depends: remove(j) on 'P': 'P' sends under the condition `q == 1`, which "
            "depends on 'j' (through `let q = j + 1`) other than as `j == constant`; a removed "
            "loop may only fix the iteration that sends");
  EXPECT_EQ(refusal({loop("j", 4, {when("j == 0", {}, {send("a")})})}, {{"j"}}),
            "remove-depends: remove(j) on 'P': 'P' sends over 'ch' at every j but under a "
            "condition on j elsewhere: without the loop it would send only what one iteration "
            "sends");
  EXPECT_EQ(refusal({loop("j", 4, {when("j == 0", {send("a")})}, LoopKind::kVectorized)}, {{"j"}}),
            "remove-loop: remove(j) on 'P': loop 'j' of 'P' is vectorized (its lanes are one "
            "value); only a serial or unrolled loop is removed");
  EXPECT_EQ(refusal({loop("k", 2, {loop("j", 4, {when("j == 0", {send("a")})})})}, {{"j"}, {"j"}}),
            "remove-loop: loop 'j' of 'P' is removed twice");
  EXPECT_EQ(refusal({loop("k", 2, {send("a")})}, {{"z"}}),
            "remove-loop: remove(z) on 'P': 'P' has no loop 'z' (its loops: k)");
}

// A producer P sending a(i) at every j to a consumer C that forwards each value (`stmt` builds
// C's statement from the read).
Program reuse_program(const std::function<StmtPtr(Expr)>& stmt) {
  Program p;
  const Expr read = make_call("read_channel", CallKind::kChannel, Type::Float(32), {e("ch")});
  p.kernels.push_back(
      {"P", Place::kDevice, {loop("j", 2, {loop("i", 3, {send("a(i)")})})}, {}, {}, {}});
  p.kernels.push_back(
      {"C", Place::kDevice, {loop("j", 2, {loop("i", 3, {stmt(read)})})}, {}, {}, {}});
  p.channels.push_back({"ch", Type::Float(32), {}, 0, "P", "C", {}});
  p.directives.push_back(
      Directive::make("P", DirectiveKind::kRemove, {DirectiveArg::expr("j")}, {"", 9, 3}));
  return p;
}

std::string keep_result(const std::function<StmtPtr(Expr)>& stmt) {
  Program p = reuse_program(stmt);
  try {
    apply_removes(
        p, [](const Kernel& k) { return k.name == "P"; }, [](const Kernel&) { return true; });
  } catch (const Diagnostic& d) {
    return d.rule() + ": " + d.message();
  }
  std::string out;
  print(p.kernels[0].body, 0, &out);
  out += "--\n";
  print(p.kernels[1].body, 0, &out);
  return out;
}

TEST(RemoveLoops, TheConsumerKeepsWhatTheProducerSendsOnce) {
  EXPECT_EQ(keep_result([](Expr read) { return make_write_channel("out", {}, read); }),
            "for i < 3\n"
            "  send a(i)\n"
            "--\n"
            "?\n");
  // The consumer's realize of P, printed as `?` above, holds the loop j: the read at j == 0.
  Program p = reuse_program([](Expr read) { return make_write_channel("out", {}, read); });
  apply_removes(
      p, [](const Kernel& k) { return k.name == "P"; }, [](const Kernel&) { return true; });
  const Realize* r = p.kernels[1].body[0]->as<Realize>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->func, "P");
  ASSERT_EQ(r->extents.size(), 1u);
  EXPECT_EQ(print_expr(r->extents[0]), "3");
  std::string body;
  print(r->body, 0, &body);
  EXPECT_EQ(body,
            "for j < 2\n"
            "  for i < 3\n"
            "    if j == 0\n"
            "      ?\n"
            "    send P(i)\n");
}

TEST(RemoveLoops, TheConsumerRefusesWhatItCannotKeep) {
  EXPECT_EQ(keep_result([](Expr read) {
              return make_write_channel("out", {},
                                        make_select(e("i == 0"), read, e("1.0f"), Type::Float(32)));
            }),
            "remove-reuse: remove on 'P': it sends over 'ch' once what it sent at every "
            "iteration of the removed loops, so its consumer keeps the values; 'C' reads it "
            "inside a select, which reads on one branch only");
  EXPECT_EQ(
      keep_result([](Expr read) { return when("j < 1", {make_write_channel("out", {}, read)}); }),
      "remove-reuse: remove on 'P': it sends over 'ch' once what it sent at every "
      "iteration of the removed loops, so its consumer keeps the values; 'C' reads it "
      "under the condition `j < 1`, which depends on a removed loop");
  Program p = reuse_program([](Expr read) { return make_write_channel("out", {}, read); });
  EXPECT_THROW(
      apply_removes(
          p, [](const Kernel& k) { return k.name == "P"; }, [](const Kernel&) { return false; }),
      Diagnostic);
}

}  // namespace
}  // namespace t2s
