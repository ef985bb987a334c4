#include "libs/ir/program.h"

#include <algorithm>
#include <type_traits>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/strings.h"

namespace t2s {

DirectiveArg DirectiveArg::expr(std::string t) {
  Expr e;
  try {
    e = parse_expr_text(t, {});
  } catch (const Diagnostic& d) {
    int64_t integer = 0;
    if (parse_int64(t, &integer)) return decoded(std::move(t), nullptr);
    throw InternalError("a directive argument built from text that is no expression: '" + t +
                        "' (" + d.message() + ")");
  }
  return decoded(std::move(t), std::move(e));
}

DirectiveArg DirectiveArg::expr(Expr e) {
  if (!e) throw InternalError("a directive argument built from a null expression");
  std::string t = print_expr(e);
  return decoded(std::move(t), std::move(e));
}

std::optional<int64_t> DirectiveArg::integer() const {
  int64_t v = 0;
  if (kind != kExpr || !parse_int64(text, &v)) return std::nullopt;
  return v;
}

std::pair<size_t, size_t> Directive::func_args() const {
  const DirectiveDecl* d = decl();
  switch (d ? d->func_args : FuncArgs::kNone) {
    case FuncArgs::kNone:
      return {0, 0};
    case FuncArgs::kAll:
      return {0, args.size()};
    case FuncArgs::kFirst:
      return {0, std::min<size_t>(1, args.size())};
    case FuncArgs::kAllButFirst:
      return {std::min<size_t>(1, args.size()), args.size()};
  }
  return {0, 0};
}

std::vector<std::string> Directive::defined_funcs() const {
  std::vector<std::string> out;
  const DirectiveDecl* d = decl();
  if (!d || !d->defines_funcs) return out;
  auto [first, last] = func_args();
  for (size_t a = first; a < last; ++a)
    if (args[a].kind == DirectiveArg::kExpr) out.push_back(args[a].text);
  return out;
}

namespace {
const char* const kStageNames[] = {"parsed", "merged", "stt", "vectorized", "gathered"};
const char* const kLoopKindNames[] = {"serial", "unrolled", "vectorized"};
}  // namespace

const char* stage_name(Stage s) { return kStageNames[static_cast<int>(s)]; }

void require_kernel_stage(const Program& program, const std::string& who) {
  if (program.stage == Stage::kParsed) {
    throw Diagnostic({},
                     who +
                         " needs a program of the merged stage or later (got stage 'parsed'; "
                         "run t2s-merge first)",
                     "emit-stage");
  }
}

void require_device_kernel(const Program& program, const std::string& who) {
  for (const Kernel& k : program.kernels)
    if (k.place == Place::kDevice) return;
  const std::string& out = program.output.func;
  const Func* f = program.find_func(out);
  throw Diagnostic(f && f->decl_loc.line > 0 ? f->decl_loc : program.output.loc,
                   "no Func of this program runs on the device, so " + who +
                       " has nothing to emit: place the systolic array on the device "
                       "(Place::Device, or PLACE1 as T2SP's tests write it, in the declaration "
                       "of '" +
                       out +
                       "' and of the Funcs merged with it), or emit C++ for the host "
                       "with --target cpp",
                   "emit-no-device");
}

bool stage_from_name(const std::string& name, Stage* out) {
  for (int i = 0; i < 5; ++i) {
    if (name == kStageNames[i]) {
      *out = static_cast<Stage>(i);
      return true;
    }
  }
  return false;
}

const char* loop_kind_name(LoopKind k) { return kLoopKindNames[static_cast<int>(k)]; }

bool loop_kind_from_name(const std::string& name, LoopKind* out) {
  for (int i = 0; i < 3; ++i) {
    if (name == kLoopKindNames[i]) {
      *out = static_cast<LoopKind>(i);
      return true;
    }
  }
  return false;
}

const Func* Program::find_func(const std::string& name) const {
  for (const Func& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

Func* Program::find_func(const std::string& name) {
  for (Func& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

const Input* Program::find_input(const std::string& name) const {
  for (const Input& i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

const Channel* Program::find_channel(const std::string& name) const {
  for (const Channel& c : channels)
    if (c.name == name) return &c;
  return nullptr;
}

const Buffer* Program::find_buffer(const std::string& name) const {
  for (const Buffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

const Register* Program::find_register(const std::string& name) const {
  for (const Register& r : registers)
    if (r.name == name) return &r;
  return nullptr;
}

const char* register_kind_name(Register::Kind k) { return k == Register::kFifo ? "fifo" : "shift"; }

}  // namespace t2s

namespace t2s {

namespace {

// The statement lists of a node, in field order (non-const and const share this).
template <typename StmtT, typename ListPtr>
std::vector<ListPtr> children_of(StmtT& s) {
  std::vector<ListPtr> out;
  std::visit(
      [&](auto& n) {
        using N = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<N, For> || std::is_same_v<N, LetStmt> ||
                      std::is_same_v<N, Realize>) {
          out.push_back(&n.body);
        } else if constexpr (std::is_same_v<N, IfThenElse>) {
          out.push_back(&n.then_body);
          out.push_back(&n.else_body);
        }
      },
      s.node);
  return out;
}

template <typename StmtT, typename ExprPtr>
std::vector<ExprPtr> exprs_of(StmtT& s) {
  std::vector<ExprPtr> out;
  auto all = [&](auto& list) {
    for (auto& e : list) out.push_back(&e);
  };
  std::visit(
      [&](auto& n) {
        using N = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<N, For>) {
          out.push_back(&n.min);
          out.push_back(&n.extent);
        } else if constexpr (std::is_same_v<N, LetStmt>) {
          out.push_back(&n.value);
        } else if constexpr (std::is_same_v<N, IfThenElse>) {
          out.push_back(&n.condition);
        } else if constexpr (std::is_same_v<N, Provide>) {
          all(n.args);
          out.push_back(&n.value);
        } else if constexpr (std::is_same_v<N, Alloc>) {
          all(n.shape);
        } else if constexpr (std::is_same_v<N, WriteChannel>) {
          all(n.index);
          out.push_back(&n.value);
        } else if constexpr (std::is_same_v<N, Realize>) {
          all(n.mins);
          all(n.extents);
        } else if constexpr (std::is_same_v<N, Shift>) {
          all(n.pe);
        } else if constexpr (std::is_same_v<N, Push>) {
          all(n.pe);
          out.push_back(&n.value);
        }
      },
      s.node);
  return out;
}

void require(bool ok, const char* what, const char* message) {
  if (!ok) throw InternalError(std::string("a ") + what + " statement " + message);
}

void require_exprs(const std::vector<Expr>& list, const char* what, const char* field) {
  for (const Expr& e : list)
    require(e != nullptr, what, (std::string("with a null ") + field).c_str());
}

void require_stmts(const StmtList& list, const char* what) {
  for (const StmtPtr& s : list) require(s != nullptr, what, "with a null nested statement");
}

StmtPtr make_stmt(Stmt::Node node, SourceLoc loc) {
  auto s = std::make_shared<Stmt>();
  s->node = std::move(node);
  s->loc = std::move(loc);
  return s;
}

}  // namespace

std::vector<const StmtList*> Stmt::children() const {
  return children_of<const Stmt, const StmtList*>(*this);
}
std::vector<StmtList*> Stmt::children() { return children_of<Stmt, StmtList*>(*this); }
std::vector<const Expr*> Stmt::exprs() const { return exprs_of<const Stmt, const Expr*>(*this); }
std::vector<Expr*> Stmt::exprs() { return exprs_of<Stmt, Expr*>(*this); }

StmtPtr make_for(std::string var, Expr min, Expr extent, LoopKind loop_kind, StmtList body,
                 SourceLoc loc) {
  require(!var.empty(), "for", "without a loop variable");
  require(min && extent, "for", "without a min or an extent");
  require_stmts(body, "for");
  return make_stmt(
      For{std::move(var), std::move(min), std::move(extent), loop_kind, std::move(body)},
      std::move(loc));
}

StmtPtr make_let(std::string var, Expr value, StmtList body, SourceLoc loc) {
  require(!var.empty(), "let", "without a variable");
  require(value != nullptr, "let", "without a value");
  require_stmts(body, "let");
  return make_stmt(LetStmt{std::move(var), std::move(value), std::move(body)}, std::move(loc));
}

StmtPtr make_if(Expr condition, StmtList then_body, StmtList else_body, SourceLoc loc) {
  require(condition != nullptr, "if", "without a condition");
  require_stmts(then_body, "if");
  require_stmts(else_body, "if");
  return make_stmt(IfThenElse{std::move(condition), std::move(then_body), std::move(else_body)},
                   std::move(loc));
}

StmtPtr make_provide(std::string func, std::vector<Expr> args, Expr value, SourceLoc loc) {
  require(!func.empty(), "provide", "without a Func");
  require(value != nullptr, "provide", "without a value");
  require_exprs(args, "provide", "argument");
  return make_stmt(Provide{std::move(func), std::move(args), std::move(value)}, std::move(loc));
}

StmtPtr make_alloc(std::string reg, Type type, std::vector<Expr> shape, SourceLoc loc) {
  require(!reg.empty(), "alloc", "without a register");
  require_exprs(shape, "alloc", "extent");
  return make_stmt(Alloc{std::move(reg), type, std::move(shape)}, std::move(loc));
}

StmtPtr make_write_channel(std::string channel, std::vector<Expr> index, Expr value,
                           SourceLoc loc) {
  require(!channel.empty(), "write_channel", "without a channel");
  require(value != nullptr, "write_channel", "without a value");
  require_exprs(index, "write_channel", "index");
  return make_stmt(WriteChannel{std::move(channel), std::move(index), std::move(value)},
                   std::move(loc));
}

StmtPtr make_realize(std::string func, Type type, std::vector<Expr> mins, std::vector<Expr> extents,
                     StmtList body, SourceLoc loc, std::optional<DoubleBuffer> double_buffer) {
  require(!func.empty(), "realize", "without a Func");
  require(mins.size() == extents.size(), "realize", "whose mins and extents differ in number");
  require_exprs(mins, "realize", "min");
  require_exprs(extents, "realize", "extent");
  require_stmts(body, "realize");
  require(!double_buffer || (!double_buffer->producer.empty() && !double_buffer->loop.empty()),
          "realize", "double buffer without its producer or loop");
  return make_stmt(Realize{std::move(func), type, std::move(mins), std::move(extents),
                           std::move(body), std::move(double_buffer)},
                   std::move(loc));
}

StmtPtr make_shift(std::string reg, std::vector<Expr> pe, SourceLoc loc) {
  require(!reg.empty(), "shift", "without a register");
  require_exprs(pe, "shift", "PE index");
  return make_stmt(Shift{std::move(reg), std::move(pe)}, std::move(loc));
}

StmtPtr make_push(std::string fifo, std::vector<Expr> pe, Expr value, SourceLoc loc) {
  require(!fifo.empty(), "push", "without a FIFO");
  require(value != nullptr, "push", "without a value");
  require_exprs(pe, "push", "PE index");
  return make_stmt(Push{std::move(fifo), std::move(pe), std::move(value)}, std::move(loc));
}

StmtPtr with_node(const Stmt& s, Stmt::Node node) { return make_stmt(std::move(node), s.loc); }

}  // namespace t2s
