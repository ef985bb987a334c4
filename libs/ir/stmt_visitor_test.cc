#include "libs/ir/stmt_visitor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "libs/ir/expr.h"

namespace t2s {
namespace {

// The name match_stmt's cases give each kind.
std::string kind_name(const Stmt& s) {
  return match_stmt(
      s, [](const For&) { return std::string("for"); },
      [](const LetStmt&) { return std::string("let"); },
      [](const IfThenElse&) { return std::string("if"); },
      [](const Provide&) { return std::string("provide"); },
      [](const Alloc&) { return std::string("alloc"); },
      [](const WriteChannel&) { return std::string("write_channel"); },
      [](const Realize&) { return std::string("realize"); },
      [](const Shift&) { return std::string("shift"); },
      [](const Push&) { return std::string("push"); });
}

Expr one() { return make_int(Type::Int(32), 1); }

TEST(MatchStmt, CallsTheCaseOfEachKind) {
  EXPECT_EQ(kind_name(*make_for("i", make_int(Type::Int(32), 0), make_int(Type::Int(32), 4),
                                LoopKind::kSerial, {})),
            "for");
  EXPECT_EQ(kind_name(*make_let("x", one(), {})), "let");
  EXPECT_EQ(kind_name(*make_if(one(), {}, {})), "if");
  EXPECT_EQ(kind_name(*make_provide("f", {one()}, one())), "provide");
  EXPECT_EQ(kind_name(*make_alloc("r", Type::Int(32), {one()})), "alloc");
  EXPECT_EQ(kind_name(*make_write_channel("c", {}, one())), "write_channel");
  EXPECT_EQ(kind_name(*make_realize("f", Type::Int(32), {one()}, {one()}, {})), "realize");
  EXPECT_EQ(kind_name(*make_shift("r", {one()})), "shift");
  EXPECT_EQ(kind_name(*make_push("q", {one()}, one())), "push");
}

TEST(MatchStmt, ReturnsWhatTheCaseReturnsAndSeesTheNode) {
  StmtPtr loop = make_for("i", make_int(Type::Int(32), 2), make_int(Type::Int(32), 5),
                          LoopKind::kUnrolled, {});
  auto var_of = [](const Stmt& s) {
    return match_stmt(
        s, [](const For& f) { return f.var; }, [](const LetStmt& l) { return l.var; },
        [](const IfThenElse&) { return std::string(); }, [](const Provide& p) { return p.func; },
        [](const Alloc& a) { return a.reg; }, [](const WriteChannel& w) { return w.channel; },
        [](const Realize& r) { return r.func; }, [](const Shift& s) { return s.reg; },
        [](const Push& p) { return p.fifo; });
  };
  EXPECT_EQ(var_of(*loop), "i");
  EXPECT_EQ(var_of(*make_push("fifo0", {one()}, one())), "fifo0");
}

// Records the kinds it meets, in the order it meets them.
class KindRecorder : public StmtVisitor {
 public:
  std::vector<std::string> seen;

 protected:
  void visit_for(const For& n, const Stmt& s) override {
    seen.push_back("for " + n.var);
    StmtVisitor::visit_for(n, s);
  }
  void visit_provide(const Provide& n, const Stmt&) override {
    seen.push_back("provide " + n.func);
  }
  void visit_shift(const Shift& n, const Stmt&) override { seen.push_back("shift " + n.reg); }
};

TEST(StmtVisitor, DefaultsWalkEveryNestedListInProgramOrder) {
  StmtList inner = {make_provide("a", {one()}, one()), make_shift("r", {one()})};
  StmtList body = {make_let("x", one(),
                            {make_if(one(), {make_provide("b", {one()}, one())},
                                     {make_provide("c", {one()}, one())})}),
                   make_realize("t", Type::Int(32), {one()}, {one()},
                                {make_for("j", make_int(Type::Int(32), 0),
                                          make_int(Type::Int(32), 2), LoopKind::kSerial, inner)})};
  StmtList program = {make_for("i", make_int(Type::Int(32), 0), make_int(Type::Int(32), 3),
                               LoopKind::kSerial, body),
                      make_push("q", {one()}, one())};
  KindRecorder recorder;
  recorder.visit_stmts(program);
  EXPECT_EQ(recorder.seen, (std::vector<std::string>{"for i", "provide b", "provide c", "for j",
                                                     "provide a", "shift r"}));
}

}  // namespace
}  // namespace t2s
