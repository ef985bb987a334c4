// Compilation: a kernel's IR to the compiled form (Node, SNode) that execution runs, with the
// operation of every expression chosen by type and every name resolved to a slot.
//
// The IR is verified (libs/ir/verify.h): names resolve, variables are bound, accesses have the
// right arity and operands the right types. Those rules are not checked again here; what is
// checked is what verified IR may hold that the interpreter does not run (vector types, alloc,
// read_channel in a buffer bound, ...). A lookup that finds nothing (unverified IR) is an
// InternalError rather than undefined behaviour.
#include <algorithm>

#include "libs/exec/interpreter_internal.h"
#include "libs/ir/stmt_visitor.h"

namespace t2s {
namespace interp {

bool supported_scalar(Type t) {
  if (!t.known() || t.lanes != 1) return false;
  if (t.is_bool()) return true;
  if (t.is_float()) return t.bits == 32 || t.bits == 64;
  return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
}

namespace {

class Compiler {
 public:
  Compiler(const Program& program, CompiledKernel& out, const std::string& context,
           bool allow_channels)
      : program_(program), out_(out), context_(context), allow_channels_(allow_channels) {}

  void set_loc(const SourceLoc* loc) { loc_ = loc; }

  std::vector<const SNode*> stmts(const StmtList& list) {
    std::vector<const SNode*> out;
    for (const StmtPtr& s : list) out.push_back(stmt(*s));
    return out;
  }

  const Node* expr(const Expr& e) {
    if (!e) fail("a missing expression");
    check_type(e->type);
    if (e->type.lanes != 1) return vector_expr(e);
    Node& n = node();
    const Type t = e->type;
    set_int_result(n, t);
    switch (e->kind) {
      case ExprKind::kIntImm:
        n.op = Op::kConst;
        if (t.is_float()) fail("an integer literal of type " + t.name());
        n.imm.i = t.is_bool()  ? e->int_value != 0
                  : t.is_int() ? wrap_to_type(e->int_value, t)
                               : static_cast<int64_t>(static_cast<uint64_t>(e->int_value) & n.mask);
        break;
      case ExprKind::kFloatImm:
        n.op = Op::kConst;
        if (!t.is_float()) fail("a float literal of type " + t.name());
        n.imm.d = 0;
        if (t.bits == 32)
          n.imm.f = static_cast<float>(e->float_value);
        else
          n.imm.d = e->float_value;
        break;
      case ExprKind::kVar: {
        n.op = Op::kVar;
        n.slot = lookup_var(e->name);
        break;
      }
      case ExprKind::kCall:
        call(n, e);
        break;
      case ExprKind::kBinary:
        binary(n, e);
        break;
      case ExprKind::kUnary:
        n.a = expr(e->operands.at(0));
        if (e->unary_op == UnaryOp::kNot) {
          expect_type(e->operands[0], Type::Bool());
          n.op = Op::kNot;
        } else {
          expect_type(e->operands[0], t);
          n.op = t.is_float() ? (t.bits == 32 ? Op::kNegF32 : Op::kNegF64)
                 : t.is_int() ? Op::kNegS
                              : Op::kNegU;
        }
        break;
      case ExprKind::kSelect:
        n.op = Op::kSelect;
        n.a = expr(e->operands[0]);
        n.b = expr(e->operands[1]);
        n.c = expr(e->operands[2]);
        break;
      case ExprKind::kCast:
        return cast(n, e);
    }
    return &n;
  }

  const std::string& context() const { return context_; }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw InternalError("interpreter: " + context_ + ": " + what);
  }

  // A lookup that found nothing: verified IR never gets here. Kept (not undefined behaviour)
  // because callers may skip verification, as libs/passes/stt/stt_test.cc does on pass output.
  [[noreturn]] void dangling(const std::string& what) {
    fail(what + " is not defined here (run verify_program on the IR first)");
  }

  void check_type(Type t) {
    if (!supported_scalar(t.element_of()) || t.lanes < 1 || t.lanes > kMaxLanes)
      fail("unsupported type " + (t.known() ? t.name() : "<unknown>"));
  }

  // ---- vector expressions (libs/exec/interpreter_vector.cc evaluates them) ----

  const Node* vector_expr(const Expr& e) {
    Node& n = node();
    n.lanes = e->type.lanes;
    switch (e->kind) {
      case ExprKind::kVar:
        n.op = Op::kVVar;
        n.slot = lookup_var(e->name);
        return &n;
      case ExprKind::kCall:
        if (e->call_kind == CallKind::kIntrinsic && is_vector_op(e->name)) {
          vector_op(n, e);
          return &n;
        }
        if (e->call_kind == CallKind::kIntrinsic) break;  // elementwise: a map
        call(n, e);  // the scalar access, then made a vector one
        switch (n.op) {
          case Op::kLoadFunc:
          case Op::kLoadImage:
            for (const Node* a : n.args)
              if (a->lanes != 1 && a->lanes != n.lanes) fail("a gather with mismatched lanes");
            if (e->operands.empty() || std::all_of(n.args.begin(), n.args.end(),
                                                   [](const Node* a) { return a->lanes == 1; }))
              fail("storage of vector type " + e->type.name() + " is not supported yet");
            n.op = n.op == Op::kLoadFunc ? Op::kVLoadFunc : Op::kVLoadImage;
            return &n;
          case Op::kReadChannel:
            n.op = Op::kVReadChannel;
            return &n;
          case Op::kLoadRegister:
            n.op = Op::kVLoadRegister;
            return &n;
          case Op::kPop:
            n.op = Op::kVPop;
            return &n;
          default:
            fail("a vector call of '" + e->name + "'");
        }
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
        fail("a literal of vector type " + e->type.name());
      default:
        break;
    }
    if (e->kind == ExprKind::kSelect && e->operands[0]->type.lanes == 1) {
      // A scalar condition: only the branch it picks is evaluated, as for scalars.
      if (e->operands.size() != 3) fail("a vector select without a false value");
      n.op = Op::kVSelect;
      n.a = expr(e->operands[0]);
      n.args = {expr(e->operands[1]), expr(e->operands[2])};
      return &n;
    }
    // An elementwise operation: the scalar operation on one lane, whose operands are variables
    // set to lane l of each operand.
    n.op = Op::kVMap;
    if (e->operands.size() > 3) fail("an elementwise operation of more than 3 operands");
    for (const Expr& o : e->operands) {
      if (o->type.lanes != n.lanes) fail("an elementwise operand of type " + o->type.name());
      n.args.push_back(expr(o));
    }
    auto lane = std::make_shared<ExprNode>(*e);
    lane->type = e->type.element_of();
    n.slot = out_.num_vars;
    for (size_t k = 0; k < e->operands.size(); ++k) {
      const std::string name = "$lane" + std::to_string(k);
      lane->operands[k] = make_var(name, e->operands[k]->type.element_of(), e->loc);
      bind(name);
    }
    n.lane = expr(lane);
    for (size_t k = 0; k < e->operands.size(); ++k) vars_.pop_back();
    return &n;
  }

  void vector_op(Node& n, const Expr& e) {
    const std::string& name = e->name;
    const std::vector<Expr>& o = e->operands;
    if (name == "ramp") {
      n.op = Op::kVRamp;
      n.a = expr(o.at(0));
      n.b = expr(o.at(1));
    } else if (name == "broadcast") {
      n.op = Op::kVBroadcast;
      n.a = expr(o.at(0));
    } else if (name == "reshape") {  // the same flat lanes
      n.op = Op::kVSlice;
      n.a = expr(o.at(0));
      n.slot = 0;
    } else if (name == "slice") {
      n.op = Op::kVSlice;
      n.a = expr(o.at(0));
      n.slot = static_cast<int>(o.at(1)->int_value);
    } else {
      n.op = Op::kVConcat;
      for (const Expr& part : o) n.args.push_back(expr(part));
    }
  }

  void expect_type(const Expr& e, Type t) {
    if (!e || e->type != t)
      fail("an operand of type " + (e ? e->type.name() : "<none>") + " where " + t.name() +
           " is expected");
  }

  Node& node() {
    out_.nodes.emplace_back();
    Node& n = out_.nodes.back();
    n.loc = loc_;
    return n;
  }

  static void set_int_result(Node& n, Type t) {
    if (t.is_float()) return;
    n.shift = 64 - t.bits;
    n.mask = t.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
  }

  // The slot of the innermost variable `name` in scope.
  int lookup_var(const std::string& name) {
    for (size_t i = vars_.size(); i-- > 0;)
      if (vars_[i].first == name) return vars_[i].second;
    dangling("variable '" + name + "'");
  }

  // The kernel's register `name` (its index in CompiledKernel::registers).
  int register_slot(const std::string& name) {
    for (size_t i = 0; i < out_.registers.size(); ++i)
      if (out_.registers[i]->name == name) return static_cast<int>(i);
    dangling("register '" + name + "' of this kernel");
  }

  // The storage a Func name refers to here: the innermost enclosing realize, else its buffer.
  int lookup_storage(const std::string& name) {
    for (size_t i = realizes_.size(); i-- > 0;)
      if (realizes_[i].first == name) return realizes_[i].second;
    for (size_t i = 0; i < program_.buffers.size(); ++i) {
      if (program_.buffers[i].name == name) return static_cast<int>(i);
    }
    dangling("the storage of Func '" + name + "'");
  }

  std::vector<const Node*> index_args(const std::vector<Expr>& args, size_t first,
                                      const std::string& what) {
    if (args.size() - first > kMaxDims) fail(what + " has more than 64 dimensions");
    std::vector<const Node*> out;
    for (size_t i = first; i < args.size(); ++i) out.push_back(expr(args[i]));
    return out;
  }

  void call(Node& n, const Expr& e) {
    switch (e->call_kind) {
      case CallKind::kFunc: {
        n.op = Op::kLoadFunc;
        n.slot = lookup_storage(e->name);
        n.args = index_args(e->operands, 0, "Func '" + e->name + "'");
        return;
      }
      case CallKind::kImage: {
        n.op = Op::kLoadImage;
        n.slot = input_slot(e->name);
        n.args = index_args(e->operands, 0, "input '" + e->name + "'");
        return;
      }
      case CallKind::kChannel: {
        if (!allow_channels_) fail("read_channel outside a kernel");
        const std::string& name = e->operands[0]->name;
        n.op = Op::kReadChannel;
        n.slot = channel_slot(name);
        n.args.push_back(nullptr);  // operands[0], the channel name: keeps indices aligned
        for (const Node* a : index_args(e->operands, 1, "channel '" + name + "'"))
          n.args.push_back(a);
        return;
      }
      case CallKind::kRegister: {
        n.op = Op::kLoadRegister;
        n.slot = register_slot(e->name);
        n.args = index_args(e->operands, 0, "register '" + e->name + "'");
        return;
      }
      case CallKind::kFifo: {
        const std::string& name = e->operands[0]->name;
        n.op = Op::kPop;
        n.slot = register_slot(name);
        n.args = index_args(e->operands, 1, "register '" + name + "'");
        return;
      }
      case CallKind::kIntrinsic:
        intrinsic(n, e);
        return;
      case CallKind::kUnresolved:
        break;
    }
    dangling("the callee of '" + e->name + "'");  // unresolved
  }

  void intrinsic(Node& n, const Expr& e) {
    const std::string& name = e->name;
    if (name == "slice") {  // one lane of a vector: a scalar
      n.op = Op::kExtract;
      n.a = expr(e->operands.at(0));
      n.slot = static_cast<int>(e->operands.at(1)->int_value);
      return;
    }
    const size_t arity = static_cast<size_t>(intrinsic_arity(name));
    if (arity == 0) fail("unknown intrinsic '" + name + "'");
    const Type at = e->operands[0]->type;
    for (const Expr& o : e->operands) expect_type(o, at);
    n.a = expr(e->operands[0]);
    if (arity == 2) n.b = expr(e->operands[1]);
    const bool f32 = at.is_float() && at.bits == 32;
    const bool f64 = at.is_float() && at.bits == 64;
    if (name == "min" || name == "max") {
      expect_type(e, at);
      const bool mn = name == "min";
      n.op = f32           ? (mn ? Op::kMinF32 : Op::kMaxF32)
             : f64         ? (mn ? Op::kMinF64 : Op::kMaxF64)
             : at.is_int() ? (mn ? Op::kMinS : Op::kMaxS)
                           : (mn ? Op::kMinU : Op::kMaxU);
      return;
    }
    if (name == "abs") {
      if (at.is_int()) {
        if (e->type != Type::UInt(at.bits)) fail("abs of " + at.name() + " as " + e->type.name());
        n.op = Op::kAbsS;
        return;
      }
      expect_type(e, at);
      if (at.is_float()) {
        n.op = f32 ? Op::kAbsF32 : Op::kAbsF64;
      } else {  // unsigned: abs is the identity
        n.op = Op::kCastToU;
      }
      return;
    }
    if (!at.is_float()) fail("'" + name + "' of " + at.name());
    expect_type(e, at);
    struct Entry {
      const char* name;
      Op f32, f64;
    };
    static const Entry kFloatOps[] = {
        {"sqrt", Op::kSqrtF32, Op::kSqrtF64},    {"exp", Op::kExpF32, Op::kExpF64},
        {"log", Op::kLogF32, Op::kLogF64},       {"pow", Op::kPowF32, Op::kPowF64},
        {"floor", Op::kFloorF32, Op::kFloorF64}, {"ceil", Op::kCeilF32, Op::kCeilF64},
        {"round", Op::kRoundF32, Op::kRoundF64}};
    for (const Entry& entry : kFloatOps) {
      if (name == entry.name) {
        n.op = f32 ? entry.f32 : entry.f64;
        return;
      }
    }
    fail("unknown intrinsic '" + name + "'");
  }

  void binary(Node& n, const Expr& e) {
    const Expr& x = e->operands.at(0);
    const Expr& y = e->operands.at(1);
    const BinaryOp op = e->binary_op;
    n.a = expr(x);
    n.b = expr(y);
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
      n.op = op == BinaryOp::kAnd ? Op::kAnd : Op::kOr;
      return;
    }
    const Type t = x->type;
    if (!is_comparison(op)) set_int_result(n, t);
    const int kind = t.is_float() ? (t.bits == 32 ? 2 : 3) : t.is_int() ? 0 : 1;
    // Per operator: signed, unsigned, float32, float64.
    auto pick = [&](Op s, Op u, Op f32, Op f64) {
      const Op ops[] = {s, u, f32, f64};
      n.op = ops[kind];
    };
    switch (op) {
      case BinaryOp::kAdd:
        return pick(Op::kAddS, Op::kAddU, Op::kAddF32, Op::kAddF64);
      case BinaryOp::kSub:
        return pick(Op::kSubS, Op::kSubU, Op::kSubF32, Op::kSubF64);
      case BinaryOp::kMul:
        return pick(Op::kMulS, Op::kMulU, Op::kMulF32, Op::kMulF64);
      case BinaryOp::kDiv:
        return pick(Op::kDivS, Op::kDivU, Op::kDivF32, Op::kDivF64);
      case BinaryOp::kMod:
        return pick(Op::kModS, Op::kModU, Op::kModF32, Op::kModF64);
      case BinaryOp::kEQ:
        return pick(Op::kEqI, Op::kEqI, Op::kEqF32, Op::kEqF64);
      case BinaryOp::kNE:
        return pick(Op::kNeI, Op::kNeI, Op::kNeF32, Op::kNeF64);
      case BinaryOp::kLT:
        return pick(Op::kLtS, Op::kLtU, Op::kLtF32, Op::kLtF64);
      case BinaryOp::kLE:
        return pick(Op::kLeS, Op::kLeU, Op::kLeF32, Op::kLeF64);
      case BinaryOp::kGT:
        return pick(Op::kGtS, Op::kGtU, Op::kGtF32, Op::kGtF64);
      case BinaryOp::kGE:
        return pick(Op::kGeS, Op::kGeU, Op::kGeF32, Op::kGeF64);
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        break;
    }
    fail("bad binary operator");
  }

  const Node* cast(Node& n, const Expr& e) {
    const Type to = e->type;
    const Type from = e->operands.at(0)->type;
    n.a = expr(e->operands[0]);
    if (from == to) {
      n.op = to.is_float() ? (to.bits == 32 ? Op::kAddF32 : Op::kAddF64) : Op::kCastToU;
      return n.a;  // the node stays unused: a redundant cast is its operand
    }
    if (to.is_bool()) {
      n.op = from.is_float() ? (from.bits == 32 ? Op::kF32ToBool : Op::kF64ToBool) : Op::kIntToBool;
    } else if (to.is_float()) {
      if (from.is_float())
        n.op = to.bits == 32 ? Op::kF64ToF32 : Op::kF32ToF64;
      else if (from.is_int())
        n.op = to.bits == 32 ? Op::kSToF32 : Op::kSToF64;
      else
        n.op = to.bits == 32 ? Op::kUToF32 : Op::kUToF64;
    } else if (from.is_float()) {
      n.op = from.bits == 32 ? Op::kF32ToInt : Op::kF64ToInt;
      n.bits = to.bits;
      n.is_signed = to.is_int();
    } else {  // integer to integer wraps
      n.op = to.is_int() ? Op::kCastToS : Op::kCastToU;
    }
    return &n;
  }

  int input_slot(const std::string& name) {
    for (size_t i = 0; i < program_.inputs.size(); ++i)
      if (program_.inputs[i].name == name) return static_cast<int>(i);
    dangling("input '" + name + "'");
  }

  int channel_slot(const std::string& name) {
    for (size_t i = 0; i < program_.channels.size(); ++i) {
      if (program_.channels[i].name == name) return static_cast<int>(i);
    }
    dangling("channel '" + name + "'");
  }

  const SNode* stmt(const Stmt& s) {
    // Diagnostics point at the statement, or at the nearest enclosing one (or kernel) with a
    // location when it has none.
    const SourceLoc* saved = loc_;
    if (s.loc.valid()) loc_ = &s.loc;
    out_.stmts.emplace_back();
    SNode& n = out_.stmts.back();
    n.kind = s.kind();
    n.loc = loc_;
    // The kinds the chain did not name.
    const auto otherwise = [&] {
      throw InternalError("interpreter: alloc statements are not supported yet");
    };
    match_stmt(
        s,
        [&](const For& loop) {
          n.a = expr(loop.min);
          n.b = expr(loop.extent);
          n.slot = bind(loop.var);
          n.body = stmts(loop.body);
          vars_.pop_back();
        },
        [&](const LetStmt& let) {
          n.a = expr(let.value);  // checks that its type is supported
          n.lanes = n.a->lanes;
          n.slot = bind(let.var);
          out_.num_vars += n.lanes - 1;  // a vector: slots slot .. slot + lanes - 1
          n.body = stmts(let.body);
          vars_.pop_back();
        },
        [&](const IfThenElse& branch) {
          n.a = expr(branch.condition);
          n.body = stmts(branch.then_body);
          n.else_body = stmts(branch.else_body);
        },
        [&](const Provide& provide) { compile_provide(provide, n); },
        [&](const Alloc&) { otherwise(); },
        [&](const WriteChannel& write) {
          if (!allow_channels_) fail("write_channel outside a kernel");
          n.slot = channel_slot(write.channel);
          n.args = index_args(write.index, 0, "channel '" + write.channel + "'");
          n.a = expr(write.value);
        },
        [&](const Realize& realize) { compile_realize(realize, n); },
        [&](const Shift& shift) {
          n.slot = register_slot(shift.reg);
          n.args = index_args(shift.pe, 0, "register '" + shift.reg + "'");
        },
        [&](const Push& push) {
          n.slot = register_slot(push.fifo);
          n.args = index_args(push.pe, 0, "register '" + push.fifo + "'");
          n.a = expr(push.value);
        });
    loc_ = saved;
    return &n;
  }

  void compile_provide(const Provide& s, SNode& n) {
    if (program_.find_register(s.func)) {
      n.to_register = true;
      n.slot = register_slot(s.func);
      n.args = index_args(s.args, 0, "register '" + s.func + "'");
      n.a = expr(s.value);
      return;
    }
    n.slot = lookup_storage(s.func);
    n.args = index_args(s.args, 0, "Func '" + s.func + "'");
    n.a = expr(s.value);
    for (const Node* a : n.args) n.lanes = std::max(n.lanes, a->lanes);  // a scatter
    if (n.lanes != n.a->lanes) fail("a provide to '" + s.func + "' with mismatched lanes");
  }

  void compile_realize(const Realize& s, SNode& n) {
    check_type(s.type);
    if (s.type.lanes != 1)
      fail("storage of vector type " + s.type.name() +
           " is not supported yet (Func storage holds scalars; vectors live in lets, registers "
           "and channels)");
    if (s.mins.size() > kMaxDims) fail("realize of '" + s.func + "' with bad bounds");
    for (size_t d = 0; d < s.mins.size(); ++d) {
      n.args.push_back(expr(s.mins[d]));
      n.extents.push_back(expr(s.extents[d]));
    }
    out_.locals.push_back(Storage::unallocated(s.func, s.type, s.mins.size()));
    n.slot = static_cast<int>(program_.buffers.size() + out_.locals.size() - 1);
    realizes_.emplace_back(s.func, n.slot);
    n.body = stmts(s.body);
    realizes_.pop_back();
  }

  int bind(const std::string& name) {
    const int slot = out_.num_vars++;
    vars_.emplace_back(name, slot);
    return slot;
  }

  const Program& program_;
  CompiledKernel& out_;
  std::string context_;
  bool allow_channels_;
  const SourceLoc* loc_ = &kNoLoc;
  std::vector<std::pair<std::string, int>> vars_;      // scope: variable name, slot
  std::vector<std::pair<std::string, int>> realizes_;  // scope: Func name, storage slot
};
}  // namespace

const Node* compile_constant(const Program& program, CompiledKernel& out,
                             const std::string& context, const SourceLoc* loc, const Expr& e) {
  Compiler compiler(program, out, context, false);
  compiler.set_loc(loc);
  return compiler.expr(e);
}

void compile_kernel(const Program& program, CompiledKernel& out) {
  const Kernel& kernel = *out.kernel;
  Compiler compiler(program, out, "kernel '" + kernel.name + "'", true);
  compiler.set_loc(&kernel.loc);
  out.body = compiler.stmts(kernel.body);
}

void check_registers(const Program& program) {
  for (const Register& r : program.registers) {
    const std::string what = "interpreter: register '" + r.name + "'";
    if (!supported_scalar(r.type.element_of()) || r.type.lanes > kMaxLanes)
      throw InternalError(what + " has unsupported type " +
                          (r.type.known() ? r.type.name() : "<unknown>"));
    if (r.shape.size() + 1 > kMaxDims) throw InternalError(what + " has too many dimensions");
    int64_t pes = 1;
    for (int64_t d : r.shape) {
      if (pes > kMaxFifos / d)  // d >= 1: verified
        throw InternalError(what + " has too many PEs " + format_index(r.shape));
      pes *= d;
    }
  }
}
}  // namespace interp
}  // namespace t2s
