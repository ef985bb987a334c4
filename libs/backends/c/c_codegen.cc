#include "libs/backends/c/c_codegen.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_set>

#include "libs/backends/c/c_internal.h"
#include "libs/ir/linear.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"

namespace t2s {

using c_internal::AccessScope;
using c_internal::binary_precedence;
using c_internal::kPrecedenceAtom;
using c_internal::kPrecedenceTernary;
using c_internal::kPrecedenceUnary;
using c_internal::parenthesize_above;
using c_internal::type_suffix;

namespace {

// C++ and OpenCL C keywords and built-in names a spec name must not shadow in generated code.
const std::unordered_set<std::string>& reserved_words() {
  static const std::unordered_set<std::string> words = {
      // C++17 keywords and alternative tokens.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "const", "constexpr",
      "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "restrict",
      // OpenCL C qualifiers, types and built-ins the generated code uses.
      "kernel", "__kernel", "global", "__global", "local", "__local", "constant", "__constant",
      "private", "__private", "generic", "read_only", "write_only", "read_write", "uniform", "pipe",
      "channel", "uchar", "ushort", "uint", "ulong", "half", "size_t", "ptrdiff_t", "intptr_t",
      "uintptr_t", "event_t", "sampler_t", "image1d_t", "image2d_t", "image3d_t",
      "read_channel_intel", "write_channel_intel", "select", "min", "max", "abs", "fabs", "sqrt",
      "exp", "log", "pow", "floor", "ceil", "rint", "round", "main", "NAN", "INFINITY",
      // C++ library names the emulation uses unqualified.
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "std", "assert"};
  return words;
}

}  // namespace

namespace c_internal {

std::string type_suffix(Type t) {
  std::string lanes;  // x4, or x4x4 for a tensor
  for (int d : t.shape()) lanes += "x" + std::to_string(d);
  if (t.is_bool()) return "b" + lanes;
  return std::string(t.is_float() ? "f" : t.is_int() ? "i" : "u") + std::to_string(t.bits) + lanes;
}

int binary_precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
      return 5;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return 6;
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return 9;
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
      return 10;
    case BinaryOp::kAnd:
      return 14;
    case BinaryOp::kOr:
      return 15;
  }
  return kPrecedenceTernary;
}

std::string parenthesize_above(const std::string& text, int precedence, int limit) {
  return precedence > limit ? "(" + text + ")" : text;
}

}  // namespace c_internal

std::string c_type_name(Type type, CDialect dialect, const SourceLoc& loc) {
  if (type.lanes != 1) {
    throw Diagnostic(loc, "vector type " + type.name() + " is not supported by this target yet",
                     "emit-type");
  }
  if (type.is_bool()) return "bool";
  if (type.is_float()) {
    if (type.bits == 32) return "float";
    if (type.bits == 64) return "double";
  } else if (type.bits == 8 || type.bits == 16 || type.bits == 32 || type.bits == 64) {
    if (dialect == CDialect::kCpp) {
      return std::string(type.is_int() ? "int" : "uint") + std::to_string(type.bits) + "_t";
    }
    static const char* const kSigned[] = {"char", "short", "int", "long"};
    const int which = type.bits == 8 ? 0 : type.bits == 16 ? 1 : type.bits == 32 ? 2 : 3;
    return std::string(type.is_int() ? "" : "u") + kSigned[which];
  }
  throw Diagnostic(loc, "type " + type.name() + " has no C equivalent", "emit-type");
}

namespace {

// OpenCL's vector type names (float4, uchar16) and the struct names of the other widths
// (float_vec5), its vector loads and stores (vload4, vstore16) and conversions (convert_int4).
bool opencl_vector_name(const std::string& name) {
  if (name.rfind("convert_", 0) == 0) return true;
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == name.size() || digits == 0) return false;
  std::string base = name.substr(0, digits);
  const std::string lanes = name.substr(digits);
  const bool struct_type = base.size() > 4 && base.compare(base.size() - 4, 4, "_vec") == 0;
  if (struct_type) {
    base.resize(base.size() - 4);
  } else if (lanes != "2" && lanes != "3" && lanes != "4" && lanes != "8" && lanes != "16") {
    return false;
  }
  static const std::unordered_set<std::string> kElements = {"char",  "uchar",  "short", "ushort",
                                                            "int",   "uint",   "long",  "ulong",
                                                            "float", "double", "half"};
  return kElements.count(base) > 0 || (!struct_type && (base == "vload" || base == "vstore"));
}

}  // namespace

std::string c_identifier(const std::string& name) {
  if (reserved_words().count(name) || name.rfind("t2s_", 0) == 0 || opencl_vector_name(name))
    return name + "_";
  return name;
}

bool constant_int(const Expr& e, int64_t* value) {
  if (e && e->kind == ExprKind::kIntImm && !e->type.is_bool()) {
    *value = e->int_value;
    return true;
  }
  return false;
}

std::string brace_list(const std::vector<std::string>& items) {
  return "{" + join(items, ", ") + "}";
}

std::string brace_list(const std::vector<int64_t>& values) {
  return "{" + join_ints(values, ", ") + "}";
}

CCodegen::CCodegen(const Program& program, CDialect dialect, CStorage& storage)
    : program_(program), dialect_(dialect), storage_(storage) {
  scopes_.emplace_back();
}

std::string CCodegen::use(const std::string& helper) {
  used_helpers_.insert(helper);
  return helper;
}

std::string CCodegen::expr(const Expr& e) { return print(e).text; }

CCodegen::Printed CCodegen::print(const Expr& e) {
  if (!e) throw InternalError("emit: missing expression");
  if (e->type.lanes != 1) {
    // A vector computed here (c_vector.cc); variables, whole values read from channels or
    // registers and selects with a scalar condition print as scalars do.
    const bool whole = e->kind == ExprKind::kVar ||
                       (e->kind == ExprKind::kCall &&
                        (e->call_kind == CallKind::kChannel ||
                         e->call_kind == CallKind::kRegister || e->call_kind == CallKind::kFifo));
    const bool lazy = e->kind == ExprKind::kSelect && e->operands.at(0)->type.lanes == 1;
    if (!whole && !lazy) return vector(e);
  }
  switch (e->kind) {
    case ExprKind::kIntImm: {
      const Type t = e->type;
      if (t.is_bool()) return {e->int_value ? "true" : "false", kPrecedenceAtom};
      const std::string type = c_type_name(t, dialect_, e->loc);
      if (t.is_int()) {
        const int64_t v = e->int_value;
        if (t.bits == 64) {
          // The most negative value has no literal: spell it as an expression.
          if (v == INT64_MIN) {
            return {dialect_ == CDialect::kCpp ? "INT64_MIN" : "LONG_MIN", kPrecedenceAtom};
          }
          const std::string digits = std::to_string(v);
          return {dialect_ == CDialect::kCpp ? "INT64_C(" + digits + ")" : digits + "L",
                  v < 0 ? kPrecedenceUnary : kPrecedenceAtom};
        }
        if (t.bits == 32) {
          if (v == INT32_MIN) return {"(-2147483647 - 1)", kPrecedenceAtom};
          return {std::to_string(v), v < 0 ? kPrecedenceUnary : kPrecedenceAtom};
        }
        return {"(" + type + ")" + std::to_string(v), kPrecedenceUnary};
      }
      const uint64_t u = static_cast<uint64_t>(e->int_value);
      if (t.bits == 64) {
        return {dialect_ == CDialect::kCpp ? "UINT64_C(" + std::to_string(u) + ")"
                                           : std::to_string(u) + "UL",
                kPrecedenceAtom};
      }
      if (t.bits == 32) return {std::to_string(u) + "u", kPrecedenceAtom};
      return {"(" + type + ")" + std::to_string(u) + "u", kPrecedenceUnary};
    }
    case ExprKind::kFloatImm: {
      const bool f32 = e->type.bits == 32;
      if (e->type.bits != 32 && e->type.bits != 64) c_type_name(e->type, dialect_, e->loc);
      const double v = e->float_value;
      if (std::isnan(v)) return {f32 ? "NAN" : "(double)NAN", kPrecedenceUnary};
      if (std::isinf(v)) {
        const std::string inf = f32 ? "INFINITY" : "(double)INFINITY";
        return {v < 0 ? "(-" + inf + ")" : inf, kPrecedenceAtom};
      }
      char buffer[64];
      if (f32) {
        std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<float>(v));
      } else {
        std::snprintf(buffer, sizeof buffer, "%.17g", v);
      }
      std::string text = buffer;
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      if (f32) text += "f";
      return {text, text[0] == '-' ? kPrecedenceUnary : kPrecedenceAtom};
    }
    case ExprKind::kVar:
      if (e->name[0] == '$') {  // a lane of an operand (CCodegen::elementwise)
        const size_t k = std::stoul(e->name.substr(1));
        if (k >= lane_operands_.size()) throw InternalError("emit: lane operand out of range");
        return {lane_operands_[k], kPrecedenceAtom};
      }
      return {c_identifier(e->name), kPrecedenceAtom};
    case ExprKind::kCall:
      return {call(e), kPrecedenceAtom};
    case ExprKind::kBinary: {
      int precedence = kPrecedenceAtom;
      std::string text = binary(e, &precedence);
      return {text, precedence};
    }
    case ExprKind::kUnary: {
      const Printed operand = print(e->operands.at(0));
      // Unary operands are parenthesized too: `-(-k)`, never `--k`.
      const std::string inner = parenthesize_above(operand.text, operand.precedence, 2);
      if (e->unary_op == UnaryOp::kNot) return {"!" + inner, kPrecedenceUnary};
      const Type t = e->type;
      if (t.is_float()) return {"-" + inner, kPrecedenceUnary};
      if (dialect_ == CDialect::kCpp && (t.bits == 32 || t.bits == 64)) {
        return {use("t2s_neg_" + type_suffix(t)) + "(" + operand.text + ")", kPrecedenceAtom};
      }
      if (t.bits == 32 || t.bits == 64) return {"-" + inner, kPrecedenceUnary};
      return {"(" + c_type_name(t, dialect_, e->loc) + ")(-" + inner + ")", kPrecedenceUnary};
    }
    case ExprKind::kSelect: {
      if (e->operands.size() != 3 || !e->operands[2]) {
        throw InternalError("emit: select without a false value reached code generation");
      }
      const Printed c = print(e->operands[0]);
      const Printed a = print(e->operands[1]);
      const Printed b = print(e->operands[2]);
      // The condition binds tighter than ?:, the branches are parenthesized unless atoms.
      return {parenthesize_above(c.text, c.precedence, 15) + " ? " +
                  parenthesize_above(a.text, a.precedence, 15) + " : " +
                  parenthesize_above(b.text, b.precedence, 15),
              kPrecedenceTernary};
    }
    case ExprKind::kCast:
      return {cast(e->type, e->operands.at(0)), kPrecedenceUnary};
  }
  throw InternalError("emit: unknown expression kind");
}

std::string CCodegen::binary(const Expr& e, int* precedence) {
  const Expr& x = e->operands.at(0);
  const Expr& y = e->operands.at(1);
  const Type t = x->type;
  const BinaryOp op = e->binary_op;
  const Printed a = print(x);
  const Printed b = print(y);
  const std::string suffix = type_suffix(t);
  // Division and modulo: Halide's, through helpers for every type.
  if (op == BinaryOp::kDiv || op == BinaryOp::kMod) {
    const bool div = op == BinaryOp::kDiv;
    if (t.is_float() && div) {
      *precedence = 5;
      return parenthesize_above(a.text, a.precedence, 5) + " / " +
             parenthesize_above(b.text, b.precedence, 4);
    }
    *precedence = kPrecedenceAtom;
    return use(std::string(div ? "t2s_div_" : "t2s_mod_") + suffix) + "(" + a.text + ", " + b.text +
           ")";
  }
  const int p = binary_precedence(op);
  const bool arithmetic = op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul;
  if (arithmetic && t.is_integer()) {
    if (dialect_ == CDialect::kCpp && (t.bits == 32 || t.bits == 64)) {
      if (t.is_int()) {
        static const std::map<BinaryOp, std::string> kNames = {
            {BinaryOp::kAdd, "add"}, {BinaryOp::kSub, "sub"}, {BinaryOp::kMul, "mul"}};
        *precedence = kPrecedenceAtom;
        return use("t2s_" + kNames.at(op) + "_" + suffix) + "(" + a.text + ", " + b.text + ")";
      }
    } else if (t.bits < 32) {
      // Narrow integers are promoted to int (uint16 products through unsigned so that they
      // cannot overflow int); the result is cast back, which wraps.
      const std::string type = c_type_name(t, dialect_, e->loc);
      std::string left = parenthesize_above(a.text, a.precedence, p);
      std::string right = parenthesize_above(b.text, b.precedence, p - 1);
      if (t.is_uint() && t.bits == 16 && op == BinaryOp::kMul) {
        const std::string wide = dialect_ == CDialect::kCpp ? "uint32_t" : "uint";
        left = "(" + wide + ")" + parenthesize_above(a.text, a.precedence, 3);
        right = "(" + wide + ")" + parenthesize_above(b.text, b.precedence, 3);
      }
      *precedence = kPrecedenceUnary;
      return "(" + type + ")(" + left + " " + binary_op_spelling(op) + " " + right + ")";
    }
  }
  *precedence = p;
  // Left-associative: the right operand needs parentheses at equal precedence.
  return parenthesize_above(a.text, a.precedence, p) + " " + binary_op_spelling(op) + " " +
         parenthesize_above(b.text, b.precedence, p - 1);
}

std::string CCodegen::cast(Type to, const Expr& value) {
  const Type from = value->type;
  const Printed v = print(value);
  if (from == to) return v.text;
  const std::string inner = parenthesize_above(v.text, v.precedence, 3);
  if (to.is_bool()) return "(" + parenthesize_above(v.text, v.precedence, 9) + " != 0)";
  const std::string type = c_type_name(to, dialect_, value->loc);
  if (from.is_float() && !to.is_float()) {
    return use("t2s_cvt_" + type_suffix(to) + "_" + type_suffix(from)) + "(" + v.text + ")";
  }
  return "(" + type + ")" + inner;
}

std::string CCodegen::call(const Expr& e) {
  auto print_all = [&](size_t first) {
    std::vector<std::string> out;
    for (size_t i = first; i < e->operands.size(); ++i) out.push_back(print(e->operands[i]).text);
    return out;
  };
  auto operand_name = [&]() -> const std::string& {
    if (e->operands.empty() || e->operands[0]->kind != ExprKind::kVar) {
      throw InternalError("emit: '" + e->name + "' without a name operand");
    }
    return e->operands[0]->name;
  };
  switch (e->call_kind) {
    case CallKind::kImage: {
      const Input* input = program_.find_input(e->name);
      if (!input) throw InternalError("emit: unknown input '" + e->name + "'");
      const std::vector<std::string> index = print_all(0);
      const AccessScope scope(storage_, e.get());
      return storage_.read_input(*input, index);
    }
    case CallKind::kFunc: {
      const std::vector<std::string> index = print_all(0);
      const AccessScope scope(storage_, e.get());
      return storage_.read_func(e->name, index, e->loc);
    }
    case CallKind::kChannel: {
      const Channel* channel = program_.find_channel(operand_name());
      if (!channel) throw InternalError("emit: unknown channel '" + operand_name() + "'");
      const std::vector<std::string> index = print_all(1);
      const AccessScope scope(storage_, e.get());
      return storage_.read_channel(*channel, index, e->loc);
    }
    case CallKind::kRegister: {
      const Register* reg = program_.find_register(e->name);
      if (!reg || e->operands.empty()) {
        throw InternalError("emit: bad read of register '" + e->name + "'");
      }
      std::vector<std::string> args = print_all(0);
      const std::string slot = args.back();
      args.pop_back();
      const AccessScope scope(storage_, e.get());
      return storage_.read_register(*reg, args, slot, e->loc);
    }
    case CallKind::kFifo: {
      const Register* reg = program_.find_register(operand_name());
      if (!reg) throw InternalError("emit: unknown FIFO '" + operand_name() + "'");
      const std::vector<std::string> pe = print_all(1);
      const AccessScope scope(storage_, e.get());
      return storage_.pop_fifo(*reg, pe, e->loc);
    }
    case CallKind::kIntrinsic: {
      const std::string& name = e->name;
      if (e->operands.empty()) throw InternalError("emit: intrinsic without operands");
      const Type t = e->operands[0]->type;
      if (name == "slice") {  // one lane of a vector: a scalar
        return lane(print(e->operands[0]), t, static_cast<int>(e->operands.at(1)->int_value));
      }
      const std::vector<std::string> args = print_all(0);
      if (name == "min" || name == "max" || name == "abs") {
        if (name == "abs" && t.is_uint()) return args[0];
        std::string text = use("t2s_" + name + "_" + type_suffix(t)) + "(" + args[0];
        if (args.size() > 1) text += ", " + args[1];
        return text + ")";
      }
      if (!t.is_float()) throw InternalError("emit: '" + name + "' of " + t.name());
      // C++: the float overloads of <cmath> (std::sqrt(float) is sqrtf); OpenCL: the built-ins,
      // which are overloaded; round is Halide's round-half-to-even, rint in both.
      const std::string function = name == "round" ? "rint" : name;
      std::string text =
          (dialect_ == CDialect::kCpp ? "std::" + function : function) + "(" + args[0];
      for (size_t i = 1; i < args.size(); ++i) text += ", " + args[i];
      return text + ")";
    }
    case CallKind::kUnresolved:
      break;
  }
  throw InternalError("emit: unresolved call of '" + e->name + "'");
}

void CCodegen::lines(const std::vector<std::string>& text, int indent, std::string* out) {
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  for (const std::string& line : text) {
    // Preprocessor lines start in column 0 only when the backend wants that; indent all.
    *out += pad + line + "\n";
  }
}

void CCodegen::stmts(const StmtList& list, int indent, std::string* out) {
  for (const StmtPtr& s : list) stmt(*s, indent, out);
}

void CCodegen::stmt(const Stmt& s, int indent, std::string* out) {
  const SourceLoc outer = loc_;
  if (s.loc.valid()) loc_ = s.loc;
  // The declarations this statement's own expressions need go before it (those of an
  // enclosing statement stay with it).
  std::vector<std::string> enclosing;
  enclosing.swap(pending_declarations_);
  const size_t at = out->size();
  stmt_at(s, indent, out);
  if (!pending_declarations_.empty()) {
    std::string declarations;
    lines(pending_declarations_, indent, &declarations);
    out->insert(at, declarations);
  }
  pending_declarations_.swap(enclosing);
  loc_ = outer;
}

namespace {

// Gives a variable a known range (or none) for a scope, and restores the outer one after it.
class ScopedRange {
 public:
  using Ranges = std::map<std::string, std::pair<int64_t, int64_t>>;
  ScopedRange(Ranges* ranges, const std::string& var, bool known, std::pair<int64_t, int64_t> range)
      : ranges_(ranges), var_(var) {
    auto it = ranges->find(var);
    if (it != ranges->end()) outer_ = it->second;
    if (known)
      (*ranges)[var] = range;
    else
      ranges->erase(var);
  }
  ~ScopedRange() {
    if (outer_)
      (*ranges_)[var_] = *outer_;
    else
      ranges_->erase(var_);
  }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  Ranges* ranges_;
  std::string var_;
  std::optional<std::pair<int64_t, int64_t>> outer_;
};

}  // namespace

// The range of an affine expression of variables with known ranges (interval arithmetic, exact
// for each term); false when a term is not affine, a variable's range is unknown, or a bound
// leaves 62 bits.
bool CCodegen::range_of(const Expr& e, int64_t* lo, int64_t* hi) const {
  std::map<std::string, int64_t> coeffs;
  int64_t constant = 0;
  if (!linear_form(e, &coeffs, &constant)) return false;
  __int128 low = constant, high = constant;
  for (const auto& [var, coeff] : coeffs) {
    auto it = ranges_.find(var);
    if (it == ranges_.end()) return false;
    const __int128 a = static_cast<__int128>(coeff) * it->second.first;
    const __int128 b = static_cast<__int128>(coeff) * it->second.second;
    low += std::min(a, b);
    high += std::max(a, b);
  }
  const __int128 limit = static_cast<__int128>(1) << 62;
  if (low < -limit || high > limit) return false;
  *lo = static_cast<int64_t>(low);
  *hi = static_cast<int64_t>(high);
  return true;
}

void CCodegen::stmt_at(const Stmt& s, int indent, std::string* out) {
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  auto block = [&](const StmtList& body, int body_indent) {
    scopes_.emplace_back();
    stmts(body, body_indent, out);
    scopes_.pop_back();
  };
  auto print_args = [&](const std::vector<Expr>& args) {
    std::vector<std::string> out_args;
    for (const Expr& a : args) out_args.push_back(expr(a));
    return out_args;
  };
  match_stmt(
      s,
      [&](const For& loop) {
        if (loop.loop_kind == LoopKind::kUnrolled)
          lines(storage_.before_unrolled_loop(), indent, out);
        const std::string var = c_identifier(loop.var);
        const Printed min_printed = print(loop.min);
        const std::string& min = min_printed.text;
        int64_t min_value = 0, extent_value = 0;
        const bool const_min = constant_int(loop.min, &min_value);
        const bool const_extent = constant_int(loop.extent, &extent_value);
        const bool zero_min = const_min && min_value == 0;
        const Printed extent = print(loop.extent);
        const std::string type = c_type_name(Type::Int(32), dialect_);
        // The loop variable's range for the loops inside, and whether the end fits in 32 bits.
        int64_t min_lo = 0, min_hi = 0, extent_lo = 0, extent_hi = 0;
        const bool known =
            range_of(loop.min, &min_lo, &min_hi) && range_of(loop.extent, &extent_lo, &extent_hi);
        const bool end_fits = known && min_lo >= INT32_MIN && min_hi + extent_hi <= INT32_MAX;
        const ScopedRange loop_range(&ranges_, loop.var, known && extent_hi > 0,
                                     {min_lo, min_hi + extent_hi - 1});
        if (end_fits && !(const_min && const_extent)) {
          // Computed bounds whose end is known to fit: a 32-bit counter (C evaluates `min + extent`
          // in int, which cannot overflow here).
          const std::string end = zero_min
                                      ? extent.text
                                      : parenthesize_above(min, min_printed.precedence, 5) + " + " +
                                            parenthesize_above(extent.text, extent.precedence, 5);
          *out += pad + "for (" + type + " " + var + " = " + min + "; " + var + " < " + end + "; " +
                  var + "++) {\n";
          block(loop.body, indent + 1);
          *out += pad + "}\n";
          return;
        }
        if (const_min && const_extent && min_value + extent_value <= INT32_MAX) {
          const std::string end =
              zero_min ? extent.text
                       : min + " + " + parenthesize_above(extent.text, extent.precedence, 5);
          *out += pad + "for (" + type + " " + var + " = " + min + "; " + var + " < " + end + "; " +
                  var + "++) {\n";
          block(loop.body, indent + 1);
          *out += pad + "}\n";
          return;
        }
        // The end does not fit in 32 bits (a loop up to 2^31 - 1), or is computed: a 64-bit
        // counter, so neither `min + extent` nor the last increment overflows where the IR's
        // arithmetic (64-bit loop bounds) does not; the body sees the 32-bit loop variable.
        const std::string wide = c_type_name(Type::Int(64), dialect_);
        const std::string counter = var + "_t2s_i64";
        const std::string end = const_min && const_extent ? std::to_string(min_value + extent_value)
                                                          : "(" + wide + ")(" + min + ") + (" +
                                                                wide + ")(" + extent.text + ")";
        *out += pad + "for (" + wide + " " + counter + " = " + min + "; " + counter + " < " + end +
                "; " + counter + "++) {\n";
        *out += pad + "  const " + type + " " + var + " = (" + type + ")" + counter + ";\n";
        block(loop.body, indent + 1);
        *out += pad + "}\n";
      },
      [&](const LetStmt& let) {
        const std::string name = c_identifier(let.var);
        // The let's range, where known, for the loops inside (Down's `let i = I - 1 - i_pe`).
        int64_t let_lo = 0, let_hi = 0;
        const bool let_known = let.value->type.is_int() && let.value->type.lanes == 1 &&
                               range_of(let.value, &let_lo, &let_hi);
        const ScopedRange let_range(&ranges_, let.var, let_known, {let_lo, let_hi});
        const std::string declaration = "const " +
                                        c_value_type_name(let.value->type, dialect_, loc_) + " " +
                                        name + " = " + expr(let.value) + ";";
        if (scopes_.back().count(name)) {
          // The name is taken in this C block: the let gets a block of its own.
          *out += pad + "{\n";
          scopes_.emplace_back();
          scopes_.back().insert(name);
          *out += pad + "  " + declaration + "\n";
          stmts(let.body, indent + 1, out);
          scopes_.pop_back();
          *out += pad + "}\n";
          return;
        }
        scopes_.back().insert(name);
        *out += pad + declaration + "\n";
        stmts(let.body, indent, out);
      },
      [&](const IfThenElse& branch) {
        const std::string condition = expr(branch.condition);
        *out += pad + "if (" + condition + ") {\n";
        block(branch.then_body, indent + 1);
        if (!branch.else_body.empty()) {
          *out += pad + "} else {\n";
          block(branch.else_body, indent + 1);
        }
        *out += pad + "}\n";
      },
      [&](const Provide& provide) {
        for (const Expr& arg : provide.args)
          if (arg->type.lanes != 1) return scatter(provide, loc_, indent, out);
        const std::string value = expr(provide.value);
        std::vector<std::string> args = print_args(provide.args);
        if (const Register* reg = program_.find_register(provide.func)) {
          if (args.empty()) throw InternalError("emit: register write without a slot");
          const std::string slot = args.back();
          args.pop_back();
          const AccessScope scope(storage_, &s);
          lines(storage_.write_register(*reg, args, slot, value, s.loc), indent, out);
        } else {
          const AccessScope scope(storage_, &s);
          lines(storage_.write_func(provide.func, args, value, s.loc), indent, out);
        }
      },
      [&](const Alloc&) {
        throw Diagnostic(s.loc, "alloc statements are not supported by code generation yet",
                         "emit-unsupported");
      },
      [&](const WriteChannel& write) {
        const Channel* channel = program_.find_channel(write.channel);
        if (!channel) throw InternalError("emit: unknown channel '" + write.channel + "'");
        const std::string value = expr(write.value);
        const std::vector<std::string> index = print_args(write.index);
        const AccessScope scope(storage_, &s);
        lines(storage_.write_channel(*channel, index, value, s.loc), indent, out);
      },
      [&](const Realize& realize) {
        *out += pad + "{\n";
        scopes_.emplace_back();
        lines(storage_.declare_realize(realize, s.loc, print_args(realize.mins),
                                       print_args(realize.extents)),
              indent + 1, out);
        stmts(realize.body, indent + 1, out);
        scopes_.pop_back();
        *out += pad + "}\n";
      },
      [&](const Shift& shift) {
        const Register* reg = program_.find_register(shift.reg);
        if (!reg) throw InternalError("emit: unknown register '" + shift.reg + "'");
        const std::vector<std::string> pe = print_args(shift.pe);
        const AccessScope scope(storage_, &s);
        lines(storage_.shift_register(*reg, pe, s.loc), indent, out);
      },
      [&](const Push& push) {
        const Register* reg = program_.find_register(push.fifo);
        if (!reg) throw InternalError("emit: unknown register '" + push.fifo + "'");
        const std::vector<std::string> pe = print_args(push.pe);
        const std::string value = expr(push.value);
        const AccessScope scope(storage_, &s);
        lines(storage_.push_fifo(*reg, pe, value, s.loc), indent, out);
      });
}

namespace {

// The definition of one helper, by name (t2s_div_i32, ...).
std::string helper_definition(const std::string& name, CDialect dialect) {
  const bool cpp = dialect == CDialect::kCpp;
  // name = t2s_<op>_<suffix>[_<suffix>]
  const size_t first = name.find('_', 4);
  const std::string op = name.substr(4, first - 4);
  const std::string rest = name.substr(first + 1);
  auto type_of = [&](const std::string& suffix) {
    const char code = suffix[0];
    int64_t bits = 1;
    if (suffix != "b" && !parse_int64(suffix.substr(1), &bits))
      throw InternalError("no runtime helper '" + name + "'");
    const Type t = code == 'b'   ? Type::Bool()
                   : code == 'f' ? Type::Float(static_cast<int>(bits))
                   : code == 'i' ? Type::Int(static_cast<int>(bits))
                                 : Type::UInt(static_cast<int>(bits));
    return t;
  };
  const std::string inl = "static inline ";
  if (op == "cvt") {
    const size_t sep = rest.find('_');
    const Type to = type_of(rest.substr(0, sep));
    const Type from = type_of(rest.substr(sep + 1));
    const std::string to_name = c_type_name(to, dialect);
    const std::string from_name = c_type_name(from, dialect);
    // Truncation toward zero; NaN gives 0; out-of-range values saturate (the interpreter's
    // float_to_int). The limits are powers of two, exact in float and double.
    if (to.is_bool()) throw InternalError("emit: float to bool is not a conversion helper");
    const std::string pow_hi =
        "(" + from_name + ")0x1p" + std::to_string(to.is_int() ? to.bits - 1 : to.bits);
    std::string text = inl + to_name + " " + name + "(" + from_name + " x) {\n";
    text += "  if (x != x) return 0;\n";
    if (to.is_int()) {
      const std::string hi = cpp ? "INT" + std::to_string(to.bits) + "_MAX"
                                 : std::string(to.bits == 8    ? "CHAR_MAX"
                                               : to.bits == 16 ? "SHRT_MAX"
                                               : to.bits == 32 ? "INT_MAX"
                                                               : "LONG_MAX");
      const std::string lo = cpp ? "INT" + std::to_string(to.bits) + "_MIN"
                                 : std::string(to.bits == 8    ? "CHAR_MIN"
                                               : to.bits == 16 ? "SHRT_MIN"
                                               : to.bits == 32 ? "INT_MIN"
                                                               : "LONG_MIN");
      text += "  if (x >= " + pow_hi + ") return " + hi + ";\n";
      text += "  if (x <= -" + pow_hi + ") return " + lo + ";\n";
      text += "  return (" + to_name + ")x;\n}\n";
    } else {
      const std::string hi = cpp ? "UINT" + std::to_string(to.bits) + "_MAX"
                                 : std::string(to.bits == 8    ? "UCHAR_MAX"
                                               : to.bits == 16 ? "USHRT_MAX"
                                               : to.bits == 32 ? "UINT_MAX"
                                                               : "ULONG_MAX");
      text += "  if (x >= " + pow_hi + ") return " + hi + ";\n";
      text += "  if (x <= -1) return 0;\n";
      text += "  return (" + to_name + ")x;\n}\n";
    }
    return text;
  }
  const Type t = type_of(rest);
  const std::string tn = c_type_name(t, dialect);
  if (op == "add" || op == "sub" || op == "mul" || op == "neg") {
    // Signed wrap-around through the unsigned type (C++ only; see c_codegen.h).
    const std::string un = c_type_name(Type::UInt(t.bits), dialect);
    if (op == "neg") {
      return inl + tn + " " + name + "(" + tn + " a) { return (" + tn + ")((" + un + ")0 - (" + un +
             ")a); }\n";
    }
    const char* sign = op == "add" ? "+" : op == "sub" ? "-" : "*";
    return inl + tn + " " + name + "(" + tn + " a, " + tn + " b) { return (" + tn + ")((" + un +
           ")a " + sign + " (" + un + ")b); }\n";
  }
  if (op == "min" || op == "max") {
    const char* cmp = op == "min" ? "<" : ">";
    return inl + tn + " " + name + "(" + tn + " a, " + tn + " b) { return a " + cmp +
           " b ? a : b; }\n";
  }
  if (op == "abs") {
    if (t.is_float()) {
      return inl + tn + " " + name + "(" + tn + " a) { return " +
             (cpp ? std::string("std::fabs") : std::string("fabs")) + "(a); }\n";
    }
    // Halide: the result is unsigned, so abs of the most negative value is representable.
    const std::string un = c_type_name(Type::UInt(t.bits), dialect);
    return inl + un + " " + name + "(" + tn + " a) { return a < 0 ? (" + un + ")0 - (" + un +
           ")a : (" + un + ")a; }\n";
  }
  if (op == "div" || op == "mod") {
    const bool div = op == "div";
    if (t.is_float()) {  // modulo only: Halide's, in the operand type
      return inl + tn + " " + name + "(" + tn + " a, " + tn + " b) { return a - b * " +
             (cpp ? "std::floor" : "floor") + "(a / b); }\n";
    }
    if (t.is_uint()) {
      return inl + tn + " " + name + "(" + tn + " a, " + tn + " b) { return b == 0 ? 0 : (" + tn +
             ")(a " + (div ? "/" : "%") + " b); }\n";
    }
    // Signed: Euclidean (halide_div / halide_mod in libs/ir/expr.cc), computed in 64 bits so
    // that the most negative value divided by -1 wraps as the interpreter's result does.
    const std::string wide = cpp ? "int64_t" : "long";
    std::string text = inl + tn + " " + name + "(" + tn + " a, " + tn + " b) {\n";
    text += "  " + wide + " x = a, y = b;\n";
    text += "  if (y == 0) return 0;\n";
    if (div) {
      text += "  if (y == -1) return (" + tn + ")(" + (cpp ? "uint64_t" : "ulong") +
              ")(x == " + (cpp ? "INT64_MIN" : "LONG_MIN") + " ? x : -x);\n";
      text += "  " + wide + " q = x / y, r = x % y;\n";
      text += "  if (r < 0) q = y > 0 ? q - 1 : q + 1;\n";
      text += "  return (" + tn + ")q;\n}\n";
    } else {
      text += "  if (y == -1) return 0;\n";
      text += "  " + wide + " r = x % y;\n";
      text += "  if (r < 0) r += y > 0 ? y : -y;\n";
      text += "  return (" + tn + ")r;\n}\n";
    }
    return text;
  }
  throw InternalError("emit: unknown helper '" + name + "'");
}

}  // namespace

std::string CCodegen::helper_definitions() const {
  std::string out;
  for (const std::string& name : used_helpers_) out += helper_definition(name, dialect_);
  for (const auto& [name, definition] : vector_helpers_) out += definition;
  return out;
}

}  // namespace t2s
