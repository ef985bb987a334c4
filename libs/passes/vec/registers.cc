// Step 3 of t2s-vec: the registers whose lane dimensions the nests' rewrite made vectors. Those
// nothing reads any more are removed; the others change type and shape.
#include <algorithm>
#include <map>
#include <set>

#include "libs/ir/stmt_visitor.h"
#include "libs/ir/visitor.h"
#include "libs/passes/vec/vec_internal.h"

namespace t2s::vec_internal {
namespace {

// The writes (stores, shifts and pushes) of the registers in `regs`, which go.
class DropRegisterWrites : public StmtMutator {
 public:
  explicit DropRegisterWrites(const std::set<std::string>& regs) : regs_(regs) {}

 protected:
  StmtPtr mutate_provide(const Provide& p, const StmtPtr& s) override { return drop(p.func, s); }
  StmtPtr mutate_shift(const Shift& sh, const StmtPtr& s) override { return drop(sh.reg, s); }
  StmtPtr mutate_push(const Push& pu, const StmtPtr& s) override { return drop(pu.fifo, s); }

 private:
  StmtPtr drop(const std::string& reg, const StmtPtr& s) {
    return regs_.count(reg) ? nullptr : mutate_children(s);
  }
  const std::set<std::string>& regs_;
};

}  // namespace

// A vector register loses its lanes' dimensions; an access left with all of them cannot stay.
// t2s-stt never makes one.
void check_vector_register_accesses(const Program& program, const VectorRegisters& registers) {
  std::map<std::string, size_t> full;  // PE indices of an access the rewrite did not reach
  for (const Register& r : program.registers)
    if (registers.count(r.name)) full[r.name] = r.shape.size();
  if (full.empty()) return;
  for (const Kernel& k : program.kernels) {
    auto refuse = [&](const std::string& reg, size_t pe_indices) {
      auto it = full.find(reg);
      if (it == full.end() || pe_indices != it->second) return;
      throw Diagnostic(vectorize_directive_loc(program, k.name, "", k.loc),
                       "vectorize: register '" + reg +
                           "' is a vector register of a vectorized nest of kernel '" + k.name +
                           "', but is also accessed lane by lane outside it (or in a nest with "
                           "other lanes)",
                       "vec-lanes");
    };
    for_each_stmt(k.body, [&](const Stmt& s) {
      match_stmt(
          s, [&](const Provide& p) { refuse(p.func, p.args.size() - 1); },
          [&](const Shift& sh) { refuse(sh.reg, sh.pe.size()); },
          [&](const Push& pu) { refuse(pu.fifo, pu.pe.size()); },
          // The other kinds access no register themselves.
          [](const For&) {}, [](const LetStmt&) {}, [](const IfThenElse&) {}, [](const Alloc&) {},
          [](const WriteChannel&) {}, [](const Realize&) {});
    });
    for_each_stmt_expr(k.body, [&](const Expr& x) {
      if (x->kind != ExprKind::kCall || x->operands.empty()) return;
      if (x->call_kind == CallKind::kRegister) refuse(x->name, x->operands.size() - 1);
      if (x->call_kind == CallKind::kFifo) refuse(x->operands[0]->name, x->operands.size() - 1);
    });
  }
}

std::set<std::string> unread_registers(const Program& program, const VectorRegisters& registers) {
  std::set<std::string> read;
  for (const Kernel& k : program.kernels)
    for_each_stmt_expr(k.body, [&](const Expr& x) {
      if (x->kind != ExprKind::kCall) return;
      if (x->call_kind == CallKind::kRegister) read.insert(x->name);
      if (x->call_kind == CallKind::kFifo) read.insert(x->operands[0]->name);
    });
  std::set<std::string> unread;
  for (const auto& [name, reg] : registers)
    if (!read.count(name)) unread.insert(name);
  return unread;
}

Program drop_registers(const Program& program, const std::set<std::string>& unread) {
  if (unread.empty()) return program;
  Program out = program;
  DropRegisterWrites drop(unread);
  for (Kernel& k : out.kernels) k.body = drop.mutate_stmts(k.body);
  out.registers.erase(std::remove_if(out.registers.begin(), out.registers.end(),
                                     [&](const Register& r) { return unread.count(r.name); }),
                      out.registers.end());
  return out;
}

Program reshape_vector_registers(const Program& program, const VectorRegisters& registers) {
  Program out = program;
  for (Register& r : out.registers) {
    auto it = registers.find(r.name);
    if (it == registers.end()) continue;
    const VectorRegister& v = it->second;
    r.shape.erase(r.shape.begin(), r.shape.begin() + static_cast<long>(v.lane_dims));
    r.pe_offset.erase(r.pe_offset.begin(), r.pe_offset.begin() + static_cast<long>(v.lane_dims));
    r.type = v.lane_type.with_element(r.type);
  }
  return out;
}

}  // namespace t2s::vec_internal
