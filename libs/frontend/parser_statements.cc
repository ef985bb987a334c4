// The statements of a spec: declarations, `if` between statements, and Func definitions (the
// UREs) with their checks. Directive calls are read in parser_directive_calls.cc.
#include "libs/frontend/parser_internal.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/strings.h"

namespace t2s::frontend_internal {

namespace {

size_t mismatch(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i]) return i;
  return 0;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// Statements

void SpecParser::statement() {
  const ExprToken& t = ts_.peek();
  if (at_punct(";")) {
    ts_.advance();
    return;
  }
  if (at_punct("{") && !stensors_.empty())
    syntax_error(
        "a Stensor chain from a list of sources ('{A, B} >> ...') is not supported: write one "
        "chain per source");
  if (t.kind != ExprToken::kIdentifier)
    syntax_error("expected a declaration, a definition or a directive, found " + found());
  const std::string& w = t.text;
  if (w == "Var") return var_decl();
  if (w == "const" || w == "constexpr" || w == "int") return const_decl();
  if (w == "ImageParam") return image_decl();
  if (w == "Expr") return expr_decl();
  if (w == "Func") return func_decl();
  if (w == "URE") return func_decl(/*ure=*/true);
  if (w == "Stensor") return stensor_decl();
  if (w == "if") return if_statement();
  if (w == "Target") return target_decl();
  if (w == "Buffer") return buffer_realize();
  if (at_punct(">", 1) && at_punct(">", 2)) return stensor_chain();
  if (at_punct("(", 1)) return definition();
  if (at_punct(".", 1)) return directive_chain();
  if (!lookup(w)) {
    // `x = ...` reads as a definition of x; anything else gets the statement kinds listed.
    bool assignment = at_punct("=", 1) || at_punct("+", 1) || at_punct("-", 1) || at_punct("*", 1);
    throw Diagnostic(t.loc,
                     "unknown identifier '" + w + "'" +
                         (assignment ? ""
                                     : " (expected a declaration, a definition or a "
                                       "directive)"),
                     "unknown-identifier");
  }
  syntax_error("expected a declaration, a definition or a directive, found " + found());
}

void SpecParser::var_decl() {
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

void SpecParser::const_decl() {
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
void SpecParser::expr_decl() {
  ts_.advance();
  do {
    ExprToken name = expect_identifier("an Expr name");
    expect("=", "after the Expr's name (Expr e = <expression>;)");
    Expr e = typed_expr();
    declare(name, SymbolKind::kExpr, 0, e);
  } while (consume(","));
  expect(";", "after the Expr declaration");
}

void SpecParser::image_decl() {
  ts_.advance();
  do {
    ExprToken name = expect_identifier("an ImageParam name");
    expect("(", "after the ImageParam's name");
    Input in;
    in.name = name.text;
    in.loc = name.loc;
    bool named_first = ts_.peek().kind == ExprToken::kString;  // ImageParam a("a", type, dims)
    if (named_first) {
      check_image_name(name.text);
      expect(",", "after the ImageParam's name");
    }
    if (!at_type(ts_))
      syntax_error("expected the element type of ImageParam '" + name.text + "', found " + found());
    in.type = parse_type(ts_);
    expect(",", "after the ImageParam's type");
    SourceLoc dims_loc = ts_.peek().loc;
    int64_t dims = constant("the dimension count");
    if (dims < 1 || dims > 16)
      throw Diagnostic(dims_loc,
                       "an ImageParam has 1 to 16 dimensions, not " + std::to_string(dims),
                       "arguments");
    in.dims = static_cast<int>(dims);
    if (!named_first && consume(",")) {
      if (ts_.peek().kind != ExprToken::kString)
        syntax_error("expected the ImageParam's name as a string, found " + found());
      check_image_name(name.text);
    }
    expect(")", "to close the ImageParam declaration");
    declare(name, SymbolKind::kImage);
    program_.inputs.push_back(in);
  } while (consume(","));
  expect(";", "after the ImageParam declaration");
}

// The string name of an ImageParam (the token at hand) must be its C++ name: the IR uses one.
void SpecParser::check_image_name(const std::string& name) {
  std::string given = ts_.peek().text.substr(1, ts_.peek().text.size() - 2);
  if (given != name)
    throw Diagnostic(ts_.peek().loc,
                     "ImageParam '" + name + "' is named \"" + given +
                         "\"; the two names must agree (the IR uses one)",
                     "arguments");
  ts_.advance();
}

Place SpecParser::place() {
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

std::vector<std::string> SpecParser::var_list(const std::string& what,
                                              std::vector<SourceLoc>* locs) {
  expect("{", "to open " + what);
  std::vector<std::string> vars;
  if (!at_punct("}")) {
    do {
      ExprToken v = expect_identifier("a Var in " + what);
      const Symbol* s = lookup(v.text);
      if (!s) throw Diagnostic(v.loc, "unknown identifier '" + v.text + "'", "unknown-identifier");
      if (s->kind != SymbolKind::kVar)
        throw Diagnostic(
            v.loc, "'" + v.text + "' in " + what + " is " + describe_kind(s->kind) + ", not a Var",
            "not-a-var");
      vars.push_back(v.text);
      if (locs) locs->push_back(v.loc);
    } while (consume(","));
  }
  expect("}", "to close " + what);
  return vars;
}

// Func f(...), and T2SP's URE u("u", type, {args}) / URE u("u"): a Func on the device.
void SpecParser::func_decl(bool ure) {
  ts_.advance();
  do {
    ExprToken name = expect_identifier(ure ? "a URE name" : "a Func name");
    bool ure_place_given = false;
    Func f;
    f.name = name.text;
    f.loc = f.decl_loc = name.loc;
    if (consume("(")) {
      if (ts_.peek().kind == ExprToken::kString) {  // Func f("f", ...): Halide's own name
        ts_.advance();
        if (!at_punct(")")) expect(",", "after the Func's name");
      }
      if (at_ident("Place")) {
        ure_place_given = true;
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
        if (consume(",")) {
          ure_place_given = true;
          f.place = place();
        }
      } else if (ts_.peek().kind == ExprToken::kIdentifier && !at_punct("(", 1)) {
        ExprToken image = expect_identifier("an ImageParam");
        const Symbol* s = lookup(image.text);
        if (!s || s->kind != SymbolKind::kImage)
          throw Diagnostic(image.loc,
                           "'" + image.text + "' is " +
                               (s ? describe_kind(s->kind) : "not declared") + "; Func " + f.name +
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
    if (ure) {
      // T2SP's URE is a Func on the device; it takes no Place.
      if (ure_place_given)
        throw Diagnostic(name.loc, "a URE is on the device; declare a host Func with Func",
                         "syntax");
      f.place = Place::kDevice;
    }
    declare(name, SymbolKind::kFunc);
    program_.funcs.push_back(f);
  } while (consume(","));
  expect(";", "after the Func declaration");
}

bool SpecParser::at_type_in_braces() {
  const ExprToken& t = ts_.peek(1);
  return t.kind == ExprToken::kIdentifier &&
         (t.text == "Int" || t.text == "UInt" || t.text == "Float" || t.text == "Bool" ||
          t.text == "type_of");
}

void SpecParser::check_distinct(const std::vector<std::string>& names,
                                const std::vector<SourceLoc>& locs, const std::string& what) {
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j])
        throw Diagnostic(locs[i], "Var '" + names[i] + "' appears twice in " + what,
                         "repeated-var");
}

// `if (constant) stmt [else stmt]`: T2S programs choose between definitions with C++ ifs.
void SpecParser::if_statement() {
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

void SpecParser::branch() {
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

void SpecParser::skip_branch() {
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

// `Target target = get_host_target();` and `target.set_feature(...)` come with the realize
// call of T2S test programs; they mean nothing to the IR and are accepted and ignored.
void SpecParser::target_decl() {
  ts_.advance();
  ExprToken name = expect_identifier("a Target name");
  if (consume("=")) {
    ExprToken init = expect_identifier("get_host_target()");
    if (init.text != "get_host_target")
      throw Diagnostic(init.loc, "expected get_host_target(), found '" + init.text + "'", "syntax");
    expect("(", "after 'get_host_target'");
    expect(")", "after 'get_host_target('");
  }
  expect(";", "after the Target declaration");
  declare(name, SymbolKind::kTarget);
}

// `Buffer<T> name = f.realize(...);`
void SpecParser::buffer_realize() {
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

void SpecParser::definition() {
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
      throw_with_note(
          Diagnostic(locs[mismatch(args, f->args)],
                     "the arguments of '" + name.text + "' must be (" + join(f->args, ", ") +
                         ") as declared, not (" + join(args, ", ") + ")",
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

// select(c, t) is allowed only as the whole right-hand side (of the last merged URE).
void SpecParser::check_select_without_false(const Expr& e, bool whole_rhs) {
  if (e->kind == ExprKind::kSelect && e->operands.size() == 2 && !whole_rhs)
    throw Diagnostic(e->loc,
                     "select without a false value is allowed only as the whole "
                     "right-hand side of the last URE of a merge",
                     "select-no-false");
  for (const Expr& o : e->operands) check_select_without_false(o, false);
}

}  // namespace t2s::frontend_internal
