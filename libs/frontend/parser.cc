// The statement parser and the checks that need no lowering (LANGUAGE.md sections 3, 5, 6).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "libs/frontend/directives.h"
#include "libs/frontend/expr_tokens.h"
#include "libs/frontend/frontend.h"
#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/typing.h"
#include "libs/ir/visitor.h"

namespace t2s {

namespace {

using frontend_internal::describe_kind;
using frontend_internal::FuncState;
using frontend_internal::kMaxExtent;
using frontend_internal::Symbol;
using frontend_internal::SymbolKind;

class SpecParser : public NameResolver {
 public:
  explicit SpecParser(const std::vector<Token>& tokens) : ts_(to_expr_tokens(tokens)) {}

  Program parse() {
    program_.stage = Stage::kParsed;
    while (ts_.peek().kind != ExprToken::kEnd) statement();
    finish();
    return std::move(program_);
  }

  // NameResolver: what identifiers mean inside expressions.
  Expr identifier(const std::string& name, const SourceLoc& loc) override {
    const Symbol* s = lookup(name);
    if (!s) {
      throw Diagnostic(loc, "unknown identifier '" + name + "'", "unknown-identifier");
    }
    switch (s->kind) {
      case SymbolKind::kVar:
        if (constant_context_)
          throw Diagnostic(loc,
                           std::string("'") + name + "' is a Var; " + constant_context_ +
                               " must be an integer constant",
                           "constant-expected");
        return make_var(name, loc);
      case SymbolKind::kConst:
        return make_int(Type::Int(32), s->value, loc);
      case SymbolKind::kExpr:  // a named Expr stands for its expression, as if written here
        return s->expr;
      default:
        throw Diagnostic(loc,
                         "'" + name + "' is " + describe_kind(s->kind) +
                             " and cannot be used as a value here" +
                             (s->kind == SymbolKind::kFunc || s->kind == SymbolKind::kImage
                                  ? " (call it with arguments)"
                                  : ""),
                         "not-a-value");
    }
  }

  CallTarget call(const std::string& name, size_t nargs, const SourceLoc& loc) override {
    const Symbol* s = lookup(name);
    if (!s)
      throw Diagnostic(loc, "unknown Func or ImageParam '" + name + "'", "unknown-identifier");
    if (constant_context_)
      throw Diagnostic(loc,
                       std::string("call to '") + name + "' where " + constant_context_ +
                           " must be an integer constant",
                       "constant-expected");
    if (s->kind == SymbolKind::kImage) {
      const Input* in = program_.find_input(name);
      check_arity(name, "ImageParam", in->dims, nargs, loc);
      return {CallKind::kImage, in->type};
    }
    if (s->kind != SymbolKind::kFunc)
      throw Diagnostic(loc, "'" + name + "' is " + describe_kind(s->kind) + ", not a Func",
                       "not-callable");
    const Func* f = program_.find_func(name);
    if (!f->declared && !f->definition && f->wraps.empty()) {
      Diagnostic d(loc,
                   "Func '" + name +
                       "' is used before its definition; only a Func declared "
                       "with a type and arguments (e.g. Func " +
                       name +
                       "(Int(32), {...})) or one "
                       "wrapping an ImageParam may be",
                   "use-before-define");
      d.add_note(f->decl_loc, "'" + name + "' is declared here");
      throw d;
    }
    check_arity(name, "Func", f->args.size(), nargs, loc);
    return {CallKind::kFunc, f->type};
  }

 private:
  // -------------------------------------------------------------------------------------------
  // Token helpers

  [[noreturn]] static void throw_with_note(Diagnostic d, const SourceLoc& note_loc,
                                           const std::string& note) {
    d.add_note(note_loc, note);
    throw d;
  }

  [[noreturn]] void syntax_error(const std::string& message) {
    throw Diagnostic(ts_.peek().loc, message, "syntax");
  }

  std::string found() {
    const ExprToken& t = ts_.peek();
    return t.kind == ExprToken::kEnd ? "end of input" : "'" + t.text + "'";
  }

  bool at_punct(const char* p, size_t ahead = 0) {
    const ExprToken& t = ts_.peek(ahead);
    return t.kind == ExprToken::kPunct && t.text == p;
  }
  bool at_ident(const char* p, size_t ahead = 0) {
    const ExprToken& t = ts_.peek(ahead);
    return t.kind == ExprToken::kIdentifier && t.text == p;
  }

  void expect(const char* p, const std::string& context) {
    if (!at_punct(p))
      syntax_error(std::string("expected '") + p + "' " + context + ", found " + found());
    ts_.advance();
  }

  ExprToken expect_identifier(const std::string& what) {
    const ExprToken& t = ts_.peek();
    if (t.kind != ExprToken::kIdentifier) syntax_error("expected " + what + ", found " + found());
    ExprToken copy = t;
    ts_.advance();
    return copy;
  }

  const Symbol* lookup(const std::string& name) const {
    auto it = symbols_.find(name);
    return it == symbols_.end() ? nullptr : &it->second;
  }

  void check_arity(const std::string& name, const char* what, size_t expected, size_t got,
                   const SourceLoc& loc) {
    if (expected == got) return;
    throw Diagnostic(loc,
                     std::string(what) + " '" + name + "' takes " + std::to_string(expected) +
                         " argument" + (expected == 1 ? "" : "s") + ", got " + std::to_string(got),
                     "arguments");
  }

  void declare(const ExprToken& name, SymbolKind kind, int64_t value = 0, Expr expr = nullptr) {
    static const std::set<std::string> kReserved = {
        "select",     "cast",  "min",  "max",    "abs",    "sqrt",  "exp",   "log",
        "pow",        "floor", "ceil", "round",  "true",   "false", "Var",   "Func",
        "ImageParam", "Place", "int",  "const",  "Int",    "UInt",  "Float", "Bool",
        "type_of",    "if",    "else", "Buffer", "Target", "Expr"};
    if (kReserved.count(name.text))
      throw Diagnostic(name.loc, "'" + name.text + "' is a reserved name", "redefinition");
    if (const Symbol* prev = lookup(name.text)) {
      Diagnostic d(
          name.loc,
          "redefinition of '" + name.text + "' (already " + describe_kind(prev->kind) + ")",
          "redefinition");
      d.add_note(prev->loc, "previous declaration is here");
      throw d;
    }
    symbols_[name.text] = Symbol{kind, name.loc, value, std::move(expr)};
  }

  // Parses an expression and gives it types (and folds constants).
  Expr typed_expr() {
    Expr e = parse_expr(ts_);
    return resolve_types(e, *this);
  }

  // An integer constant expression (bounds, extents, dims, schedule coefficients).
  int64_t constant(const char* what, bool allow_bool = false) {
    SourceLoc loc = ts_.peek().loc;
    const char* saved = constant_context_;
    constant_context_ = what;
    Expr e = typed_expr();
    constant_context_ = saved;
    if (e->kind != ExprKind::kIntImm ||
        !(e->type.is_integer() || (allow_bool && e->type.is_bool())))
      throw Diagnostic(
          loc, std::string(what) + " must be an integer constant, not '" + print_expr(e) + "'",
          "constant-expected");
    return e->int_value;
  }

  // -------------------------------------------------------------------------------------------
  // Statements

  void statement() {
    const ExprToken& t = ts_.peek();
    if (at_punct(";")) {
      ts_.advance();
      return;
    }
    if (t.kind != ExprToken::kIdentifier)
      syntax_error("expected a declaration, a definition or a directive, found " + found());
    const std::string& w = t.text;
    if (w == "Var") return var_decl();
    if (w == "const" || w == "constexpr" || w == "int") return const_decl();
    if (w == "ImageParam") return image_decl();
    if (w == "Expr") return expr_decl();
    if (w == "Func") return func_decl();
    if (w == "if") return if_statement();
    if (w == "Target") return target_decl();
    if (w == "Buffer") return buffer_realize();
    if (at_punct("(", 1)) return definition();
    if (at_punct(".", 1)) return directive_chain();
    if (!lookup(w)) {
      // `x = ...` reads as a definition of x; anything else gets the statement kinds listed.
      bool assignment =
          at_punct("=", 1) || at_punct("+", 1) || at_punct("-", 1) || at_punct("*", 1);
      throw Diagnostic(t.loc,
                       "unknown identifier '" + w + "'" +
                           (assignment ? ""
                                       : " (expected a declaration, a definition or a "
                                         "directive)"),
                       "unknown-identifier");
    }
    syntax_error("expected a declaration, a definition or a directive, found " + found());
  }

  void var_decl() {
    ts_.advance();
    do {
      ExprToken name = expect_identifier("a Var name");
      if (at_punct("(")) {  // Var i("i"): Halide's explicit name; the C++ name is what counts
        ts_.advance();
        if (ts_.peek().kind != ExprToken::kString)
          syntax_error("expected the Var's name as a string, found " + found());
        ts_.advance();
        expect(")", "after the Var's name");
      }
      declare(name, SymbolKind::kVar);
      program_.vars.push_back(name.text);
    } while (consume(","));
    expect(";", "after the Var declaration");
  }

  bool consume(const char* p) {
    if (!at_punct(p)) return false;
    ts_.advance();
    return true;
  }

  void const_decl() {
    if (at_ident("const") || at_ident("constexpr")) ts_.advance();
    if (!at_ident("int")) syntax_error("expected 'int' (constants are integers), found " + found());
    ts_.advance();
    do {
      ExprToken name = expect_identifier("a constant name");
      expect("=", "after the constant's name");
      int64_t value = constant("the value of a constant");
      if (!fits_in_type(value, Type::Int(32)))
        throw Diagnostic(name.loc, "constant '" + name.text + "' does not fit in an int",
                         "constant-expected");
      declare(name, SymbolKind::kConst, value);
    } while (consume(","));
    expect(";", "after the constant declaration");
  }

  // Expr e = <expression>;: names an expression, usable in definitions (as if written there)
  // and as the value of an isolation directive. Several per statement: Expr e = ..., f = ...;
  void expr_decl() {
    ts_.advance();
    do {
      ExprToken name = expect_identifier("an Expr name");
      expect("=", "after the Expr's name (Expr e = <expression>;)");
      Expr e = typed_expr();
      declare(name, SymbolKind::kExpr, 0, e);
    } while (consume(","));
    expect(";", "after the Expr declaration");
  }

  void image_decl() {
    ts_.advance();
    do {
      ExprToken name = expect_identifier("an ImageParam name");
      expect("(", "after the ImageParam's name");
      Input in;
      in.name = name.text;
      in.loc = name.loc;
      if (!at_type(ts_))
        syntax_error("expected the element type of ImageParam '" + name.text + "', found " +
                     found());
      in.type = parse_type(ts_);
      expect(",", "after the ImageParam's type");
      SourceLoc dims_loc = ts_.peek().loc;
      int64_t dims = constant("the dimension count");
      if (dims < 1 || dims > 16)
        throw Diagnostic(dims_loc,
                         "an ImageParam has 1 to 16 dimensions, not " + std::to_string(dims),
                         "arguments");
      in.dims = static_cast<int>(dims);
      if (consume(",")) {
        if (ts_.peek().kind != ExprToken::kString)
          syntax_error("expected the ImageParam's name as a string, found " + found());
        std::string given = ts_.peek().text.substr(1, ts_.peek().text.size() - 2);
        if (given != name.text)
          throw Diagnostic(ts_.peek().loc,
                           "ImageParam '" + name.text + "' is named \"" + given +
                               "\"; the two names must agree (the IR uses one)",
                           "arguments");
        ts_.advance();
      }
      expect(")", "to close the ImageParam declaration");
      declare(name, SymbolKind::kImage);
      program_.inputs.push_back(in);
    } while (consume(","));
    expect(";", "after the ImageParam declaration");
  }

  Place place() {
    ExprToken p = expect_identifier("'Place'");
    if (p.text != "Place")
      throw Diagnostic(p.loc, "expected 'Place', found '" + p.text + "'", "syntax");
    expect("::", "after 'Place'");
    ExprToken which = expect_identifier("'Host' or 'Device'");
    if (which.text == "Host") return Place::kHost;
    if (which.text == "Device") return Place::kDevice;
    throw Diagnostic(
        which.loc,
        "unknown place 'Place::" + which.text + "' (expected Place::Host or Place::Device)",
        "syntax");
  }

  std::vector<std::string> var_list(const std::string& what, std::vector<SourceLoc>* locs) {
    expect("{", "to open " + what);
    std::vector<std::string> vars;
    if (!at_punct("}")) {
      do {
        ExprToken v = expect_identifier("a Var in " + what);
        const Symbol* s = lookup(v.text);
        if (!s)
          throw Diagnostic(v.loc, "unknown identifier '" + v.text + "'", "unknown-identifier");
        if (s->kind != SymbolKind::kVar)
          throw Diagnostic(
              v.loc,
              "'" + v.text + "' in " + what + " is " + describe_kind(s->kind) + ", not a Var",
              "not-a-var");
        vars.push_back(v.text);
        if (locs) locs->push_back(v.loc);
      } while (consume(","));
    }
    expect("}", "to close " + what);
    return vars;
  }

  void func_decl() {
    ts_.advance();
    do {
      ExprToken name = expect_identifier("a Func name");
      Func f;
      f.name = name.text;
      f.loc = f.decl_loc = name.loc;
      if (consume("(")) {
        if (ts_.peek().kind == ExprToken::kString) {  // Func f("f", ...): Halide's own name
          ts_.advance();
          if (!at_punct(")")) expect(",", "after the Func's name");
        }
        if (at_ident("Place")) {
          f.place = place();
        } else if (at_punct("{") && at_type_in_braces()) {
          throw Diagnostic(ts_.peek().loc,
                           "Funcs with several return types (tuples) are not "
                           "supported",
                           "unsupported");
        } else if (at_type(ts_)) {
          f.type = parse_type(ts_);
          f.declared = true;
          expect(",", "after the Func's type (a declared Func also lists its arguments)");
          std::vector<SourceLoc> locs;
          f.args = var_list("the Func's arguments", &locs);
          check_distinct(f.args, locs, "the arguments of Func '" + f.name + "'");
          if (consume(",")) f.place = place();
        } else if (ts_.peek().kind == ExprToken::kIdentifier && !at_punct("(", 1)) {
          ExprToken image = expect_identifier("an ImageParam");
          const Symbol* s = lookup(image.text);
          if (!s || s->kind != SymbolKind::kImage)
            throw Diagnostic(image.loc,
                             "'" + image.text + "' is " +
                                 (s ? describe_kind(s->kind) : "not declared") + "; Func " +
                                 f.name +
                                 "(...) takes a type and "
                                 "arguments, a Place, or an ImageParam to wrap",
                             s ? "arguments" : "unknown-identifier");
          const Input* in = program_.find_input(image.text);
          f.wraps = in->name;
          f.type = in->type;
          std::vector<Expr> args;
          for (int i = 0; i < in->dims; ++i) {
            f.args.push_back("_" + std::to_string(i));
            args.push_back(make_var(f.args.back(), image.loc));
          }
          f.definition = make_call(in->name, CallKind::kImage, in->type, args, image.loc);
          f.loc = image.loc;
          if (consume(",")) f.place = place();
        } else if (!at_punct(")")) {
          syntax_error(
              "expected a type and arguments, a Place, or an ImageParam in the "
              "declaration of Func '" +
              f.name + "', found " + found());
        }
        expect(")", "to close the Func declaration");
      }
      declare(name, SymbolKind::kFunc);
      program_.funcs.push_back(f);
    } while (consume(","));
    expect(";", "after the Func declaration");
  }

  bool at_type_in_braces() {
    const ExprToken& t = ts_.peek(1);
    return t.kind == ExprToken::kIdentifier &&
           (t.text == "Int" || t.text == "UInt" || t.text == "Float" || t.text == "Bool" ||
            t.text == "type_of");
  }

  void check_distinct(const std::vector<std::string>& names, const std::vector<SourceLoc>& locs,
                      const std::string& what) {
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (names[i] == names[j])
          throw Diagnostic(locs[i], "Var '" + names[i] + "' appears twice in " + what,
                           "repeated-var");
  }

  // `if (constant) stmt [else stmt]`: T2S programs choose between definitions with C++ ifs.
  void if_statement() {
    ts_.advance();
    expect("(", "after 'if'");
    int64_t cond = constant("the condition of 'if'", /*allow_bool=*/true);
    expect(")", "to close the condition of 'if'");
    if (cond)
      branch();
    else
      skip_branch();
    if (at_ident("else")) {
      ts_.advance();
      if (cond)
        skip_branch();
      else
        branch();
    }
  }

  void branch() {
    if (consume("{")) {
      while (!at_punct("}")) {
        if (ts_.peek().kind == ExprToken::kEnd) syntax_error("expected '}' to close the block");
        statement();
      }
      ts_.advance();
    } else {
      statement();
    }
  }

  void skip_branch() {
    if (at_ident("if")) {  // else if (...) ...: skip the whole chain
      ts_.advance();
      skip_balanced("(", ")");
      skip_branch();
      if (at_ident("else")) {
        ts_.advance();
        skip_branch();
      }
      return;
    }
    if (at_punct("{")) {
      skip_balanced("{", "}");
      return;
    }
    while (!at_punct(";")) {
      if (ts_.peek().kind == ExprToken::kEnd) syntax_error("expected ';' to end the statement");
      if (at_punct("(") || at_punct("{"))
        skip_balanced(ts_.peek().text == "(" ? "(" : "{", ts_.peek().text == "(" ? ")" : "}");
      else
        ts_.advance();
    }
    ts_.advance();
  }

  void skip_balanced(const char* open, const char* close) {
    SourceLoc start = ts_.peek().loc;
    expect(open, "");
    int depth = 1;
    while (depth > 0) {
      if (ts_.peek().kind == ExprToken::kEnd)
        throw Diagnostic(start, std::string("unbalanced '") + open + "'", "syntax");
      if (at_punct(open)) ++depth;
      if (at_punct(close)) --depth;
      ts_.advance();
    }
  }

  // `Target target = get_host_target();` and `target.set_feature(...)` come with the realize
  // call of T2S test programs; they mean nothing to the IR and are accepted and ignored.
  void target_decl() {
    ts_.advance();
    ExprToken name = expect_identifier("a Target name");
    if (consume("=")) {
      ExprToken init = expect_identifier("get_host_target()");
      if (init.text != "get_host_target")
        throw Diagnostic(init.loc, "expected get_host_target(), found '" + init.text + "'",
                         "syntax");
      expect("(", "after 'get_host_target'");
      expect(")", "after 'get_host_target('");
    }
    expect(";", "after the Target declaration");
    declare(name, SymbolKind::kTarget);
  }

  // `Buffer<T> name = f.realize(...);`
  void buffer_realize() {
    ts_.advance();
    skip_balanced("<", ">");
    expect_identifier("a Buffer name");
    expect("=", "after the Buffer's name (only `Buffer<T> x = f.realize(...)` is accepted)");
    ExprToken f = expect_identifier("a Func");
    expect(".", "after the Func (only `Buffer<T> x = f.realize(...)` is accepted)");
    ExprToken method = expect_identifier("'realize'");
    if (method.text != "realize")
      throw Diagnostic(method.loc, "expected 'realize', found '" + method.text + "'", "syntax");
    realize(f, method.loc);
    expect(";", "after the realize call");
  }

  // -------------------------------------------------------------------------------------------
  // Definitions

  void definition() {
    ExprToken name = expect_identifier("a Func");
    const Symbol* s = lookup(name.text);
    if (!s)
      throw Diagnostic(name.loc, "unknown identifier '" + name.text + "'", "unknown-identifier");
    if (s->kind != SymbolKind::kFunc)
      throw Diagnostic(
          name.loc,
          "'" + name.text + "' is " + describe_kind(s->kind) + "; only a Func can be defined",
          "not-a-func");
    // Left-hand side: distinct Vars.
    expect("(", "");
    std::vector<std::string> args;
    std::vector<SourceLoc> locs;
    if (!at_punct(")")) {
      do {
        SourceLoc loc = ts_.peek().loc;
        Expr a = parse_expr(ts_);
        if (a->kind != ExprKind::kVar)
          throw Diagnostic(loc,
                           "the left-hand side of a definition takes Vars only; '" + print_expr(a) +
                               "' is not a Var",
                           "lhs-not-var");
        const Symbol* v = lookup(a->name);
        if (!v) throw Diagnostic(loc, "unknown identifier '" + a->name + "'", "unknown-identifier");
        if (v->kind != SymbolKind::kVar)
          throw Diagnostic(loc,
                           "the left-hand side of a definition takes Vars only; '" + a->name +
                               "' is " + describe_kind(v->kind),
                           "lhs-not-var");
        args.push_back(a->name);
        locs.push_back(loc);
      } while (consume(","));
    }
    expect(")", "to close the left-hand side");
    Func* f = program_.find_func(name.text);
    check_distinct(args, locs, "the left-hand side of '" + name.text + "'");
    if (at_punct("+") || at_punct("-") || at_punct("*") || at_punct("/")) {
      if (ts_.peek(1).kind == ExprToken::kPunct && ts_.peek(1).text == "=")
        throw Diagnostic(ts_.peek().loc,
                         "update definitions (" + ts_.peek().text +
                             "=) are not supported: a Func has one pure "
                             "definition",
                         "unsupported");
    }
    expect("=", "after the left-hand side of the definition");
    if (f->definition || f->wraps.size()) {
      Diagnostic d(name.loc, "Func '" + name.text + "' is defined twice", "redefinition");
      d.add_note(f->loc, "previous definition is here");
      throw d;
    }
    auto& state = states_[name.text];
    if (state.defined_by_isolation.valid()) {
      Diagnostic d(name.loc, "Func '" + name.text + "' is defined twice", "redefinition");
      d.add_note(state.defined_by_isolation, "it is defined by this isolation directive");
      throw d;
    }
    if (f->declared) {
      if (args.size() != f->args.size())
        throw_with_note(Diagnostic(name.loc,
                                   "Func '" + name.text + "' is declared with " +
                                       count(f->args.size(), "argument") +
                                       " but defined "
                                       "with " +
                                       std::to_string(args.size()),
                                   "arguments"),
                        f->decl_loc, "'" + name.text + "' is declared here");
      if (args != f->args)
        throw_with_note(Diagnostic(locs[mismatch(args, f->args)],
                                   "the arguments of '" + name.text + "' must be (" +
                                       join(f->args) + ") as declared, not (" + join(args) + ")",
                                   "decl-args"),
                        f->decl_loc, "'" + name.text + "' is declared here");
    }
    SourceLoc rhs_loc = ts_.peek().loc;
    Expr rhs = parse_expr(ts_);
    expect(";", "after the definition");
    check_select_without_false(rhs, true);
    // A declared Func may call itself; an undeclared one gets its type from this definition.
    if (!f->declared) f->args = args;
    Expr value = resolve_types(rhs, *this);
    if (f->declared) {
      Expr coerced = coerce_literal_to(value, f->type);
      if (!coerced)
        throw_with_note(
            Diagnostic(rhs_loc,
                       "the definition of '" + name.text + "' has type " + value->type.spec_name() +
                           " but '" + name.text + "' is declared " + f->type.spec_name(),
                       "type-mismatch"),
            f->decl_loc, "'" + name.text + "' is declared here");
      value = coerced;
    } else {
      f->type = value->type;
    }
    f->definition = value;
    f->loc = name.loc;
  }

  static size_t mismatch(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (a[i] != b[i]) return i;
    return 0;
  }

  static std::string count(size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  }

  // select(c, t) is allowed only as the whole right-hand side (of the last merged URE).
  void check_select_without_false(const Expr& e, bool whole_rhs) {
    if (e->kind == ExprKind::kSelect && e->operands.size() == 2 && !whole_rhs)
      throw Diagnostic(e->loc,
                       "select without a false value is allowed only as the whole "
                       "right-hand side of the last URE of a merge",
                       "select-no-false");
    for (const Expr& o : e->operands) check_select_without_false(o, false);
  }

  // -------------------------------------------------------------------------------------------
  // Directives

  void directive_chain() {
    ExprToken receiver = expect_identifier("a Func");
    const Symbol* s = lookup(receiver.text);
    if (!s)
      throw Diagnostic(receiver.loc, "unknown identifier '" + receiver.text + "'",
                       "unknown-identifier");
    if (s->kind == SymbolKind::kTarget) {  // target.set_feature(...): ignored, see target_decl
      ts_.advance();
      ExprToken m = expect_identifier("'set_feature'");
      if (m.text != "set_feature")
        throw Diagnostic(m.loc, "a Target only takes set_feature(...)", "syntax");
      skip_balanced("(", ")");
      expect(";", "after the call");
      return;
    }
    if (s->kind != SymbolKind::kFunc)
      throw Diagnostic(
          receiver.loc,
          "'" + receiver.text + "' is " + describe_kind(s->kind) + "; directives apply to Funcs",
          "not-a-func");
    while (consume(".")) {
      ExprToken name = expect_identifier("a directive name");
      if (name.text == "realize") {
        realize(receiver, name.loc);
        continue;
      }
      frontend_internal::check_directive_name(name.text, name.loc);
      std::vector<SourceLoc> locs;
      std::vector<DirectiveArg> args = raw_args(&locs);
      frontend_internal::DirectiveScope scope{[this](const std::string& n) { return lookup(n); },
                                              &program_, &states_};
      for (Directive& d : frontend_internal::normalize_directive(scope, receiver.text, name.text,
                                                                 name.loc, std::move(args), locs))
        program_.directives.push_back(std::move(d));
    }
    expect(";", "after the directive");
  }

  // One argument as written: an expression, a brace list, or Enum::Value.
  DirectiveArg raw_arg(std::vector<SourceLoc>* locs, int depth = 0) {
    locs->push_back(ts_.peek().loc);
    if (at_punct("{")) {
      // Directive lists nest two deep at most ({{1, 0}, {0, 1}}); refuse absurd nesting.
      if (depth >= 8) syntax_error("lists nested too deeply in a directive argument");
      ts_.advance();
      std::vector<DirectiveArg> items;
      std::vector<SourceLoc> ignored;
      if (!at_punct("}")) {
        do items.push_back(raw_arg(&ignored, depth + 1));
        while (consume(","));
      }
      expect("}", "to close the list");
      return DirectiveArg::list(std::move(items));
    }
    if (ts_.peek().kind == ExprToken::kIdentifier && at_punct("::", 1)) {
      std::string scope = ts_.peek().text;
      ts_.advance();
      ts_.advance();
      ExprToken value = expect_identifier("an enumerator after '" + scope + "::'");
      return DirectiveArg::enumerator(scope + "::" + value.text);
    }
    // Names of Funcs and ImageParams are kept as written; anything else is typed and folded.
    const ExprToken& t = ts_.peek();
    if (t.kind == ExprToken::kIdentifier &&
        (at_punct(",", 1) || at_punct(")", 1) || at_punct("}", 1))) {
      const Symbol* s = lookup(t.text);
      if (!s) throw Diagnostic(t.loc, "unknown identifier '" + t.text + "'", "unknown-identifier");
      std::string text = t.text;
      if (s->kind == SymbolKind::kConst) text = std::to_string(s->value);
      if (s->kind == SymbolKind::kExpr) text = print_expr(s->expr);
      ts_.advance();
      return DirectiveArg::expr(text);
    }
    return DirectiveArg::expr(print_expr(typed_expr()));
  }

  std::vector<DirectiveArg> raw_args(std::vector<SourceLoc>* locs) {
    expect("(", "after the directive name");
    std::vector<DirectiveArg> args;
    if (!at_punct(")")) {
      do args.push_back(raw_arg(locs));
      while (consume(","));
    }
    expect(")", "to close the directive's arguments");
    return args;
  }

  void realize(const ExprToken& func, const SourceLoc& loc) {
    expect("(", "after 'realize'");
    std::vector<int64_t> extents;
    std::vector<SourceLoc> extent_locs;
    auto extent = [&]() {
      extent_locs.push_back(ts_.peek().loc);
      int64_t e = constant("a realize extent");
      if (e <= 0 || e >= kMaxExtent)
        throw Diagnostic(extent_locs.back(),
                         "a realize extent must be from 1 to 2^31 - 1, not " + std::to_string(e),
                         "realize");
      extents.push_back(e);
    };
    if (consume("{")) {
      if (!at_punct("}")) {
        do extent();
        while (consume(","));
      }
      expect("}", "to close the realize extents");
      if (consume(",")) realize_target();
    } else {
      while (!at_punct(")")) {
        if (is_target_arg()) {
          realize_target();
          break;
        }
        extent();
        if (!consume(",")) break;
      }
    }
    expect(")", "to close the realize call");
    if (extents.empty())
      throw Diagnostic(loc, "realize needs the output's extents, e.g. realize({I, J})", "realize");
    const Symbol* s = lookup(func.text);
    if (!s || s->kind != SymbolKind::kFunc)
      throw Diagnostic(func.loc, "only a Func can be realized", "realize");
    if (program_.output.loc.valid()) {
      Diagnostic d(loc, "a spec realizes exactly one Func; this is a second realize call",
                   "realize");
      d.add_note(program_.output.loc, "the first realize call is here");
      throw d;
    }
    program_.output = Output{func.text, extents, loc};
  }

  bool is_target_arg() {
    const ExprToken& t = ts_.peek();
    if (t.kind != ExprToken::kIdentifier || !at_punct(")", 1)) return false;
    const Symbol* s = lookup(t.text);
    return !s || s->kind == SymbolKind::kTarget;
  }

  void realize_target() {
    // The trailing `target` argument of T2S test programs: accepted and ignored.
    ExprToken t = expect_identifier("a Target");
    const Symbol* s = lookup(t.text);
    if (s && s->kind != SymbolKind::kTarget)
      throw Diagnostic(t.loc,
                       "'" + t.text + "' is " + describe_kind(s->kind) +
                           "; the last argument of realize may only be a Target",
                       "realize");
  }

  // -------------------------------------------------------------------------------------------
  // End of file

  void finish() {
    if (!program_.output.loc.valid())
      throw Diagnostic(ts_.peek().loc,
                       "the spec has no realize call: realize exactly one Func, "
                       "e.g. c.realize({I, J})",
                       "realize");
    const Func* out = program_.find_func(program_.output.func);
    if (out->definition && out->args.size() != program_.output.extents.size()) {
      Diagnostic d(program_.output.loc,
                   "realize of '" + out->name + "' gives " +
                       count(program_.output.extents.size(), "extent") + ", but '" + out->name +
                       "' has " + count(out->args.size(), "dimension"),
                   "realize");
      d.add_note(out->loc, "'" + out->name + "' is defined here");
      throw d;
    }
    // An isolated consumer has the dimensions of the Func it consumes.
    for (const Directive& d : program_.directives) {
      if (out->definition ||
          (!d.is(DirectiveKind::kIsolateConsumer) && !d.is(DirectiveKind::kIsolateConsumerChain)))
        continue;
      const std::vector<std::string> defined = d.defined_funcs();
      const Func* source = program_.find_func(d.func);
      if (std::find(defined.begin(), defined.end(), out->name) == defined.end() || !source ||
          !source->definition || source->args.size() == program_.output.extents.size())
        continue;
      Diagnostic diag(program_.output.loc,
                      "realize of '" + out->name + "' gives " +
                          count(program_.output.extents.size(), "extent") + ", but '" + out->name +
                          "' has " + count(source->args.size(), "dimension") + ", those of '" +
                          source->name + "', whose consumer it is",
                      "realize");
      diag.add_note(d.loc, "'" + out->name + "' is isolated from '" + source->name + "' here");
      throw diag;
    }
    if (!out->definition && !states_[out->name].defined_by_isolation.valid()) {
      throw_with_note(
          Diagnostic(program_.output.loc, "the realized Func '" + out->name + "' is never defined",
                     "realize"),
          out->decl_loc, "'" + out->name + "' is declared here");
    }
  }

  VectorTokenSource ts_;
  Program program_;
  std::unordered_map<std::string, Symbol> symbols_;
  std::map<std::string, FuncState> states_;
  const char* constant_context_ = nullptr;
};

// Adds "expanded from macro" notes for the token the diagnostic points at, if it came from one.
void add_notes_for_location(Diagnostic& d, const std::vector<Token>& tokens) {
  if (!d.loc().valid()) return;
  for (const Token& t : tokens) {
    if (t.loc == d.loc() && !t.macro_chain.empty()) {
      add_macro_notes(d, t);
      return;
    }
  }
}

}  // namespace

Program parse_spec(SourceManager& sources, const FrontendOptions& options) {
  PreprocessOptions pp = options.preprocess;
  if (options.t2s_builtin_macros) {
    pp.defines.insert(pp.defines.begin(), {"PLACE0=Place::Host", "PLACE1=Place::Device"});
    pp.builtin_defines += 2;
  }
  std::vector<Token> tokens = preprocess(sources, pp);
  try {
    return SpecParser(tokens).parse();
  } catch (Diagnostic& d) {
    Diagnostic with_notes(d.loc(), d.message(), d.rule());
    add_notes_for_location(with_notes, tokens);
    for (const DiagnosticNote& n : d.notes())
      if (!n.message.empty()) with_notes.add_note(n.loc, n.message);
    throw with_notes;
  }
}

}  // namespace t2s
