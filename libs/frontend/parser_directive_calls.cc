// Directive calls: `F.directive(...)` chains as written, handed to directives.cc to check and
// normalise, and the realize call (LANGUAGE.md section 5).
#include "libs/frontend/directives.h"
#include "libs/frontend/parser_internal.h"
#include "libs/ir/expr_printer.h"

namespace t2s::frontend_internal {

void SpecParser::directive_chain() {
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
  if (s->kind == SymbolKind::kStensor) return stensor_statement(receiver);
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
    add_directive(receiver.text, name.text, name.loc, std::move(args), locs);
  }
  expect(";", "after the directive");
}

void SpecParser::add_directive(const std::string& func, const std::string& name,
                               const SourceLoc& loc, std::vector<DirectiveArg> args,
                               const std::vector<SourceLoc>& locs) {
  frontend_internal::DirectiveScope scope{[this](const std::string& n) { return lookup(n); },
                                          &program_, &states_};
  for (Directive& d :
       frontend_internal::normalize_directive(scope, func, name, loc, std::move(args), locs))
    program_.directives.push_back(std::move(d));
}

// One argument as written: an expression, a brace list, or Enum::Value.
DirectiveArg SpecParser::raw_arg(std::vector<SourceLoc>* locs, int depth) {
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

std::vector<DirectiveArg> SpecParser::raw_args(std::vector<SourceLoc>* locs) {
  expect("(", "after the directive name");
  std::vector<DirectiveArg> args;
  if (!at_punct(")")) {
    do args.push_back(raw_arg(locs));
    while (consume(","));
  }
  expect(")", "to close the directive's arguments");
  return args;
}

void SpecParser::realize(const ExprToken& func, const SourceLoc& loc) {
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
    Diagnostic d(loc, "a spec realizes exactly one Func; this is a second realize call", "realize");
    d.add_note(program_.output.loc, "the first realize call is here");
    throw d;
  }
  program_.output = Output{func.text, extents, loc};
}

bool SpecParser::is_target_arg() {
  const ExprToken& t = ts_.peek();
  if (t.kind != ExprToken::kIdentifier || !at_punct(")", 1)) return false;
  const Symbol* s = lookup(t.text);
  return !s || s->kind == SymbolKind::kTarget;
}

void SpecParser::realize_target() {
  // The trailing `target` argument of T2S test programs: accepted and ignored.
  ExprToken t = expect_identifier("a Target");
  const Symbol* s = lookup(t.text);
  if (s && s->kind != SymbolKind::kTarget)
    throw Diagnostic(t.loc,
                     "'" + t.text + "' is " + describe_kind(s->kind) +
                         "; the last argument of realize may only be a Target",
                     "realize");
}

}  // namespace t2s::frontend_internal
