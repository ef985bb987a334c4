// Stensors as T2SP's programs write them (docs/language.md, "Stensor chains"): declarations,
// their methods, `>>` chains with FIFO(depth), and the compile call that lowers every chain
// (stensors.cc) and realizes the host Stensor at its end.
#include "libs/frontend/parser_internal.h"
#include "libs/ir/strings.h"

namespace t2s::frontend_internal {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

bool is_compile_call(const std::string& m) {
  return m == "compile_to_host" || m == "compile_to_oneapi" || m == "compile_jit" || m == "realize";
}

}  // namespace

// Stensor s("name", DRAM | SRAM | REG), t("name"): the second is on the host.
void SpecParser::stensor_decl() {
  ts_.advance();
  do {
    ExprToken handle = expect_identifier("a Stensor name");
    Stensor s;
    s.handle = handle.text;
    s.loc = handle.loc;
    expect("(", "after the Stensor's name (Stensor s(\"name\", DRAM))");
    if (ts_.peek().kind != ExprToken::kString)
      syntax_error("expected the Stensor's name as a string, found " + found());
    s.name = ts_.peek().text.substr(1, ts_.peek().text.size() - 2);
    s.name_loc = ts_.peek().loc;
    if (!is_identifier(s.name))
      throw Diagnostic(s.name_loc,
                       "Stensor '" + s.handle + "' is named \"" + s.name +
                           "\", which is no identifier; the name becomes a Func (a kernel)",
                       "stensor-decl");
    ts_.advance();
    if (consume(",")) {
      if (at_ident("SMemType") && at_punct("::", 1)) {
        ts_.advance();
        ts_.advance();
      }
      ExprToken p = expect_identifier("DRAM, SRAM or REG");
      if (p.text == "DRAM") {
        s.position = StensorPosition::kDram;
      } else if (p.text == "SRAM") {
        s.position = StensorPosition::kSram;
      } else if (p.text == "REG") {
        s.position = StensorPosition::kReg;
      } else if (p.text == "HOST") {
        s.position = StensorPosition::kHost;
      } else {
        throw Diagnostic(p.loc,
                         "unknown Stensor position '" + p.text +
                             "' (expected DRAM, SRAM or REG; no position is the host)",
                         "stensor-decl");
      }
    }
    expect(")", "to close the Stensor declaration");
    for (const Stensor& other : stensors_)
      if (other.name == s.name) {
        Diagnostic d(s.name_loc,
                     "Stensors '" + other.handle + "' and '" + s.handle + "' are both named \"" +
                         s.name + "\" (each becomes a Func of that name)",
                     "stensor-decl");
        d.add_note(other.name_loc, "'" + other.handle + "' is named here");
        throw d;
      }
    if (const Symbol* named = lookup(s.name)) {
      Diagnostic d(s.name_loc,
                   "Stensor '" + s.handle + "' is named \"" + s.name + "\", which is already " +
                       describe_kind(named->kind) + " (the Stensor becomes a Func of that name)",
                   "stensor-decl");
      d.add_note(named->loc, "'" + s.name + "' is declared here");
      throw d;
    }
    declare(handle, SymbolKind::kStensor, static_cast<int64_t>(stensors_.size()));
    stensors_.push_back(s);
  } while (consume(","));
  expect(";", "after the Stensor declaration");
}

// .scope(v), .out(v, ...), .banks(v, ...): each sets the Stensor's state, as T2SP's methods do.
void SpecParser::stensor_methods(Stensor& s) {
  while (at_punct(".") && (at_ident("scope", 1) || at_ident("out", 1) || at_ident("banks", 1))) {
    ts_.advance();
    ExprToken m = expect_identifier("a Stensor method");
    expect("(", "after '" + m.text + "'");
    std::vector<std::string> vars;
    std::vector<SourceLoc> locs;
    if (!at_punct(")")) {
      do {
        ExprToken v = expect_identifier("a Var");
        const Symbol* sym = lookup(v.text);
        if (!sym)
          throw Diagnostic(v.loc, "unknown identifier '" + v.text + "'", "unknown-identifier");
        if (sym->kind != SymbolKind::kVar)
          throw Diagnostic(
              v.loc,
              "'" + v.text + "' in " + m.text + "() is " + describe_kind(sym->kind) + ", not a Var",
              "not-a-var");
        if (std::find(vars.begin(), vars.end(), v.text) != vars.end())
          throw Diagnostic(v.loc, "Var '" + v.text + "' appears twice in " + m.text + "()",
                           "repeated-var");
        vars.push_back(v.text);
        locs.push_back(v.loc);
      } while (consume(","));
    }
    expect(")", "to close " + m.text + "()");
    if (m.text == "scope") {
      if (vars.size() != 1)
        throw Diagnostic(m.loc, "scope() takes one loop, got " + std::to_string(vars.size()),
                         "arguments");
      s.scope = vars[0];
      s.scope_loc = locs[0];
    } else if (m.text == "out") {
      s.outs = vars;
      s.out_locs = locs;
    } else {
      s.banks = vars;
      s.bank_locs = locs;
    }
  }
}

// source >> s1.methods() [>> FIFO(d)] >> s2 ... ; source an ImageParam or a Func.
void SpecParser::stensor_chain() {
  ExprToken source = expect_identifier("an ImageParam or a Func");
  const Symbol* sym = lookup(source.text);
  if (!sym)
    throw Diagnostic(source.loc, "unknown identifier '" + source.text + "'", "unknown-identifier");
  if (sym->kind != SymbolKind::kImage && sym->kind != SymbolKind::kFunc)
    throw Diagnostic(source.loc,
                     "'" + source.text + "' is " + describe_kind(sym->kind) +
                         "; a Stensor chain starts from an ImageParam (an input chain) or from "
                         "the array's output Func (an output chain)",
                     "stensor-chain");
  StensorChain chain;
  chain.output = sym->kind == SymbolKind::kFunc;
  chain.source = source.text;
  chain.loc = source.loc;
  while (at_punct(">") && at_punct(">", 1)) {
    ts_.advance();
    ts_.advance();
    if (at_ident("FIFO")) {
      SourceLoc loc = ts_.peek().loc;
      ts_.advance();
      expect("(", "after 'FIFO'");
      SourceLoc depth_loc = ts_.peek().loc;
      int64_t depth = constant("the depth of a FIFO");
      expect(")", "to close FIFO(depth)");
      if (depth <= 0 || depth >= kMaxExtent)
        throw Diagnostic(
            depth_loc,
            "the depth of a FIFO must be from 1 to 2^31 - 1, not " + std::to_string(depth),
            "arguments");
      if (chain.links.empty()) {
        if (!chain.output)
          throw Diagnostic(loc,
                           "a FIFO sets the depth of the channel out of the Stensor before it, "
                           "and an ImageParam sends over no channel",
                           "stensor-chain");
        // Func >> FIFO(d): T2SP applies min_depth(d) to the Func at once.
        add_directive(source.text, "min_depth", loc, {DirectiveArg::expr(std::to_string(depth))},
                      {depth_loc});
      } else if (chain.links.back().fifo_depth > 0) {
        Diagnostic d(loc, "two FIFOs in a row; one FIFO sets the depth of a channel",
                     "stensor-chain");
        d.add_note(chain.links.back().fifo_loc, "the first is here");
        throw d;
      } else {
        chain.links.back().fifo_depth = depth;
        chain.links.back().fifo_loc = loc;
      }
      continue;
    }
    ExprToken h = expect_identifier("a Stensor or FIFO(depth) after '>>'");
    const Symbol* hs = lookup(h.text);
    if (!hs) throw Diagnostic(h.loc, "unknown identifier '" + h.text + "'", "unknown-identifier");
    if (hs->kind != SymbolKind::kStensor)
      throw Diagnostic(h.loc,
                       "'" + h.text + "' is " + describe_kind(hs->kind) +
                           "; '>>' in a chain is followed by a Stensor or FIFO(depth)",
                       "stensor-chain");
    Stensor& st = stensors_[static_cast<size_t>(hs->value)];
    if (at_punct("(")) {  // s(e1, ..., en): the layout of a host result
      ts_.advance();
      st.dims = 0;
      if (!at_punct(")")) {
        do {
          typed_expr();
          ++st.dims;
        } while (consume(","));
      }
      expect(")", "to close the Stensor's dimensions");
    }
    stensor_methods(st);
    if (st.chain >= 0) {
      Diagnostic d(h.loc, "Stensor '" + st.handle + "' is already in a chain", "stensor-chain");
      d.add_note(st.chain_loc, "it is in a chain here");
      throw d;
    }
    st.chain = static_cast<int>(chains_.size());
    st.chain_loc = h.loc;
    chain.links.push_back({st, 0, {}});
  }
  if (chain.links.empty() && !chain.output)
    syntax_error("expected '>>' and a Stensor after '" + source.text + "', found " + found());
  expect(";", "after the Stensor chain");
  if (!chain.links.empty()) chains_.push_back(std::move(chain));
}

// s.scope(v).out(...); or s.compile_to_host(...); (also compile_to_oneapi, compile_jit,
// realize): the compile call lowers every chain and realizes s.
void SpecParser::stensor_statement(const ExprToken& handle) {
  Stensor& st = stensors_[static_cast<size_t>(lookup(handle.text)->value)];
  stensor_methods(st);
  if (consume(".")) {
    ExprToken m = expect_identifier("a Stensor method");
    if (!is_compile_call(m.text))
      throw Diagnostic(m.loc,
                       "unknown Stensor method '" + m.text +
                           "' (expected scope, out, banks, compile_to_host, compile_to_oneapi, "
                           "compile_jit or realize)",
                       "syntax");
    // The arguments name the host interface T2SP writes (file, inputs, function, target): the
    // design is the same whatever they are.
    skip_balanced("(", ")");
    stensor_compile(handle, m.loc);
  }
  expect(";", "after the Stensor call");
}

void SpecParser::stensor_compile(const ExprToken& handle, const SourceLoc& loc) {
  if (program_.output.loc.valid()) {
    Diagnostic d(loc, "a spec realizes exactly one Func; this is a second realize call", "realize");
    d.add_note(program_.output.loc, "the first realize call is here");
    throw d;
  }
  if (chains_.empty())
    throw Diagnostic(loc,
                     "Stensor '" + handle.text + "' is compiled, and the spec has no Stensor chain",
                     "realize");
  StensorLowering lowered = lower_stensor_chains(program_, chains_, handle.text, loc);
  for (const Func& f : lowered.funcs) {
    const Symbol* s = lookup(f.name);
    bool own_handle = s && s->kind == SymbolKind::kStensor &&
                      stensors_[static_cast<size_t>(s->value)].name == f.name;
    if (s && !own_handle) {
      Diagnostic d(f.loc,
                   "the Stensor here becomes the Func '" + f.name + "', which is already " +
                       describe_kind(s->kind),
                   "stensor-decl");
      d.add_note(s->loc, "'" + f.name + "' is declared here");
      throw d;
    }
    symbols_[f.name] = Symbol{SymbolKind::kFunc, f.decl_loc, 0, nullptr};
    program_.funcs.push_back(f);
  }
  for (StensorDirective& d : lowered.directives) {
    std::vector<SourceLoc> locs(d.args.size(), d.loc);
    add_directive(d.func, d.directive, d.loc, std::move(d.args), locs);
  }
  program_.output = lowered.output;
}

}  // namespace t2s::frontend_internal
