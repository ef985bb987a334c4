#include "libs/ir/program_facts.h"

#include <algorithm>
#include <map>
#include <string>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"

namespace t2s {

std::vector<KernelRun> kernel_runs(const Program& program) {
  std::vector<KernelRun> runs;
  const std::vector<Kernel>& ks = program.kernels;
  for (size_t first = 0; first < ks.size();) {
    size_t last = first + 1;
    if (ks[first].place == Place::kDevice)
      while (last < ks.size() && ks[last].place == Place::kDevice) ++last;
    runs.push_back({first, last});
    first = last;
  }
  return runs;
}

LoopNest loop_nest(const StmtList& list) {
  LoopNest nest;
  const StmtList* body = &list;
  while (body->size() == 1 && (*body)[0]->kind() == Stmt::kRealize) {
    nest.realizes.push_back((*body)[0]);
    body = &std::get<Realize>((*body)[0]->node).body;
  }
  while (body->size() == 1 && (*body)[0]->kind() == Stmt::kFor) {
    nest.loops.push_back(&std::get<For>((*body)[0]->node));
    body = &nest.loops.back()->body;
  }
  nest.body = body;
  return nest;
}

const Directive* first_unimplemented_directive(const Program& program, DirectiveStage stage) {
  for (const Directive& d : program.directives)
    if (const DirectiveDecl* decl = d.decl(); decl && decl->stage == stage && !decl->implemented)
      return &d;
  return nullptr;
}

const std::string* stored_name(const Stmt& s) {
  return match_stmt(
      s, [](const For&) -> const std::string* { return nullptr; },
      [](const LetStmt&) -> const std::string* { return nullptr; },
      [](const IfThenElse&) -> const std::string* { return nullptr; },
      [](const Provide& n) -> const std::string* { return &n.func; },
      [](const Alloc&) -> const std::string* { return nullptr; },
      [](const WriteChannel&) -> const std::string* { return nullptr; },
      [](const Realize&) -> const std::string* { return nullptr; },
      [](const Shift& n) -> const std::string* { return &n.reg; },
      [](const Push& n) -> const std::string* { return &n.fifo; });
}

namespace {

class AccessCollector : public StmtVisitor {
 public:
  explicit AccessCollector(const Program& program) : program_(program) {
    for (size_t i = 0; i < program.inputs.size(); ++i) inputs_[program.inputs[i].name] = i;
    for (size_t i = 0; i < program.buffers.size(); ++i) buffers_[program.buffers[i].name] = i;
    for (size_t i = 0; i < program.channels.size(); ++i) channels_[program.channels[i].name] = i;
  }

  KernelAccesses run(const Kernel& kernel) {
    visit_stmts(kernel.body);
    return std::move(out_);
  }

  // A statement's own operands are read before its kind's hook runs.
  void visit_stmt(const Stmt& s) override {
    for (const Expr* e : s.exprs()) expr(*e);
    StmtVisitor::visit_stmt(s);
  }

 protected:
  void visit_provide(const Provide& provide, const Stmt&) override {
    if (!program_.find_register(provide.func)) func(provide.func, true);
  }
  void visit_write_channel(const WriteChannel& write, const Stmt&) override {
    channel(write.channel, true);
  }
  void visit_realize(const Realize& realize, const Stmt&) override {
    realizes_.push_back(realize.func);
    visit_stmts(realize.body);
    realizes_.pop_back();
  }

 private:
  void func(const std::string& name, bool write) {
    if (std::find(realizes_.begin(), realizes_.end(), name) != realizes_.end()) return;
    auto it = buffers_.find(name);
    if (it != buffers_.end()) (write ? out_.buffers_written : out_.buffers_read).insert(it->second);
  }

  void channel(const std::string& name, bool write) {
    auto it = channels_.find(name);
    if (it != channels_.end())
      (write ? out_.channels_written : out_.channels_read).insert(it->second);
  }

  void expr(const Expr& e) {
    for_each_expr(e, [&](const Expr& n) {
      if (n->kind != ExprKind::kCall) return;
      if (n->call_kind == CallKind::kFunc) func(n->name, false);
      if (n->call_kind == CallKind::kImage) {
        auto it = inputs_.find(n->name);
        if (it != inputs_.end()) out_.inputs_read.insert(it->second);
      }
      if (n->call_kind == CallKind::kChannel && !n->operands.empty() && n->operands[0])
        channel(n->operands[0]->name, false);
    });
  }

  const Program& program_;
  std::map<std::string, size_t> inputs_, buffers_, channels_;
  std::vector<std::string> realizes_;  // the enclosing realizes, outermost first
  KernelAccesses out_;
};

}  // namespace

KernelAccesses kernel_accesses(const Program& program, const Kernel& kernel) {
  return AccessCollector(program).run(kernel);
}

NameSupply::NameSupply(const Program& program) {
  taken_.insert(program.vars.begin(), program.vars.end());
  for (const Func& f : program.funcs) taken_.insert(f.name);
  for (const Input& i : program.inputs) taken_.insert(i.name);
  for (const Buffer& b : program.buffers) taken_.insert(b.name);
  for (const Channel& c : program.channels) taken_.insert(c.name);
  for (const Register& r : program.registers) taken_.insert(r.name);
  for (const Kernel& k : program.kernels) {
    taken_.insert(k.name);
    // The names the statements bind: loop and let variables, realized Funcs.
    for_each_stmt(k.body, [&](const Stmt& s) {
      match_stmt(
          s, [&](const For& f) { taken_.insert(f.var); },
          [&](const LetStmt& l) { taken_.insert(l.var); }, [](const IfThenElse&) {},
          [](const Provide&) {}, [](const Alloc&) {}, [](const WriteChannel&) {},
          [&](const Realize& r) { taken_.insert(r.func); }, [](const Shift&) {},
          [](const Push&) {});
    });
  }
}

std::string NameSupply::fresh(const std::string& base, Suffix suffix) {
  std::string name = base;
  for (int i = 1; taken_.count(name); ++i)
    name = suffix == Suffix::kNumbered ? base + "_" + std::to_string(i) : name + "_";
  taken_.insert(name);
  return name;
}

}  // namespace t2s
