// The statement parser's entry, its token helpers and name resolution, and the checks made at the
// end of the spec (LANGUAGE.md sections 3, 5, 6). Statements are read in parser_statements.cc,
// directive calls in parser_directive_calls.cc.
#include <algorithm>
#include <set>

#include "libs/frontend/expr_tokens.h"
#include "libs/frontend/frontend.h"
#include "libs/frontend/parser_internal.h"
#include "libs/ir/expr_printer.h"

namespace t2s {

namespace frontend_internal {

SpecParser::SpecParser(const std::vector<Token>& tokens) : ts_(to_expr_tokens(tokens)) {}

Program SpecParser::parse() {
  program_.stage = Stage::kParsed;
  while (ts_.peek().kind != ExprToken::kEnd) statement();
  finish();
  return std::move(program_);
}

// NameResolver: what identifiers mean inside expressions.
Expr SpecParser::identifier(const std::string& name, const SourceLoc& loc) {
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

CallTarget SpecParser::call(const std::string& name, size_t nargs, const SourceLoc& loc) {
  const Symbol* s = lookup(name);
  if (!s) throw Diagnostic(loc, "unknown Func or ImageParam '" + name + "'", "unknown-identifier");
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

// -------------------------------------------------------------------------------------------
// Token helpers

void SpecParser::throw_with_note(Diagnostic d, const SourceLoc& note_loc, const std::string& note) {
  d.add_note(note_loc, note);
  throw d;
}

void SpecParser::syntax_error(const std::string& message) {
  throw Diagnostic(ts_.peek().loc, message, "syntax");
}

std::string SpecParser::found() {
  const ExprToken& t = ts_.peek();
  return t.kind == ExprToken::kEnd ? "end of input" : "'" + t.text + "'";
}

bool SpecParser::at_punct(const char* p, size_t ahead) {
  const ExprToken& t = ts_.peek(ahead);
  return t.kind == ExprToken::kPunct && t.text == p;
}

bool SpecParser::at_ident(const char* p, size_t ahead) {
  const ExprToken& t = ts_.peek(ahead);
  return t.kind == ExprToken::kIdentifier && t.text == p;
}

bool SpecParser::consume(const char* p) {
  if (!at_punct(p)) return false;
  ts_.advance();
  return true;
}

void SpecParser::expect(const char* p, const std::string& context) {
  if (!at_punct(p))
    syntax_error(std::string("expected '") + p + "' " + context + ", found " + found());
  ts_.advance();
}

ExprToken SpecParser::expect_identifier(const std::string& what) {
  const ExprToken& t = ts_.peek();
  if (t.kind != ExprToken::kIdentifier) syntax_error("expected " + what + ", found " + found());
  ExprToken copy = t;
  ts_.advance();
  return copy;
}

void SpecParser::skip_balanced(const char* open, const char* close) {
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

const Symbol* SpecParser::lookup(const std::string& name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : &it->second;
}

void SpecParser::check_arity(const std::string& name, const char* what, size_t expected, size_t got,
                             const SourceLoc& loc) {
  if (expected == got) return;
  throw Diagnostic(loc,
                   std::string(what) + " '" + name + "' takes " + std::to_string(expected) +
                       " argument" + (expected == 1 ? "" : "s") + ", got " + std::to_string(got),
                   "arguments");
}

void SpecParser::declare(const ExprToken& name, SymbolKind kind, int64_t value, Expr expr) {
  static const std::set<std::string> kReserved = {
      "select",     "cast",  "min",  "max",    "abs",    "sqrt",  "exp",   "log",
      "pow",        "floor", "ceil", "round",  "true",   "false", "Var",   "Func",
      "ImageParam", "Place", "int",  "const",  "Int",    "UInt",  "Float", "Bool",
      "type_of",    "if",    "else", "Buffer", "Target", "Expr",  "URE",   "Stensor"};
  if (kReserved.count(name.text))
    throw Diagnostic(name.loc, "'" + name.text + "' is a reserved name", "redefinition");
  if (const Symbol* prev = lookup(name.text)) {
    Diagnostic d(name.loc,
                 "redefinition of '" + name.text + "' (already " + describe_kind(prev->kind) + ")",
                 "redefinition");
    d.add_note(prev->loc, "previous declaration is here");
    throw d;
  }
  symbols_[name.text] = Symbol{kind, name.loc, value, std::move(expr)};
}

// Parses an expression and gives it types (and folds constants).
Expr SpecParser::typed_expr() {
  Expr e = parse_expr(ts_);
  return resolve_types(e, *this);
}

// An integer constant expression (bounds, extents, dims, schedule coefficients).
int64_t SpecParser::constant(const char* what, bool allow_bool) {
  SourceLoc loc = ts_.peek().loc;
  const char* saved = constant_context_;
  constant_context_ = what;
  Expr e = typed_expr();
  constant_context_ = saved;
  if (e->kind != ExprKind::kIntImm || !(e->type.is_integer() || (allow_bool && e->type.is_bool())))
    throw Diagnostic(
        loc, std::string(what) + " must be an integer constant, not '" + print_expr(e) + "'",
        "constant-expected");
  return e->int_value;
}

std::string SpecParser::count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// -------------------------------------------------------------------------------------------
// End of file

void SpecParser::finish() {
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
    throw_with_note(Diagnostic(program_.output.loc,
                               "the realized Func '" + out->name + "' is never defined", "realize"),
                    out->decl_loc, "'" + out->name + "' is declared here");
  }
}

}  // namespace frontend_internal

namespace {

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
    return frontend_internal::SpecParser(tokens).parse();
  } catch (Diagnostic& d) {
    Diagnostic with_notes(d.loc(), d.message(), d.rule());
    add_notes_for_location(with_notes, tokens);
    for (const DiagnosticNote& n : d.notes())
      if (!n.message.empty()) with_notes.add_note(n.loc, n.message);
    throw with_notes;
  }
}

}  // namespace t2s
