#include "libs/frontend/preprocessor.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "libs/frontend/lexer.h"
#include "libs/frontend/preprocessor_internal.h"
#include "libs/frontend/preprocessor_state.h"
#include "libs/runtime/file.h"

namespace t2s {
namespace {

using preprocessor_internal::ChainNode;
using preprocessor_internal::Cond;
using preprocessor_internal::Context;
using preprocessor_internal::evaluate_if_expression;
using preprocessor_internal::fail;
using preprocessor_internal::fail_at;
using preprocessor_internal::FileState;
using preprocessor_internal::kEnd;
using preprocessor_internal::kGroup;
using preprocessor_internal::kIdent;
using preprocessor_internal::kMaxNesting;
using preprocessor_internal::kNoMatch;
using preprocessor_internal::kPunct;
using preprocessor_internal::kRule;
using preprocessor_internal::Macro;
using preprocessor_internal::MacroTable;
using preprocessor_internal::PPToken;
using preprocessor_internal::Slice;
using preprocessor_internal::Tok;
using preprocessor_internal::TokArray;

namespace fs = std::filesystem;

constexpr size_t kMaxIncludeDepth = 64;
// The largest included file: the tools' input limit (libs/cli/tool.h kMaxInputBytes).
constexpr int64_t kMaxIncludeBytes = int64_t{16} << 20;
// Nested macro calls in macro arguments: each level pre-expands an argument inside the one
// outside it, on the stack.
constexpr size_t kMaxArgumentNesting = 128;
// Bounds what macro expansion produces, in units of max(1, macro-chain length) per token, so
// that an exponential macro tree is refused before it costs time or memory: at any point, all
// expansions so far may produce max(kMinExpansionUnits, kExpansionUnitsPerToken x the tokens
// lexed from the files so far). A small hostile spec is refused within 2^18 units (a few MB);
// a large generated spec gets room in proportion to its size.
constexpr uint64_t kMinExpansionUnits = uint64_t{1} << 18;
constexpr uint64_t kExpansionUnitsPerToken = 16;

bool is_punct(const Token& t, const char* text) { return t.is_punct(text); }

std::string dir_of(const std::string& name) {
  size_t slash = name.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : name.substr(0, slash);
}

std::string join_path(const std::string& dir, const std::string& file) {
  if (dir.empty() || (!file.empty() && file[0] == '/')) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

std::string normalize(const std::string& path) {
  std::string s = fs::path(path).lexically_normal().string();
  return s.empty() ? path : s;
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

class Preprocessor {
 public:
  Preprocessor(SourceManager& sources, const PreprocessOptions& options)
      : sources_(sources), options_(options) {
    chains_.push_back(ChainNode{});  // node 0: the empty chain
    lparen_ = intern("(");
    rparen_ = intern(")");
    comma_ = intern(",");
    file_id("");  // 0: the main spec, and SourceLoc{}
  }

  ~Preprocessor() {
    if (options_.stats == nullptr) return;
    options_.stats->work = work_ + lexed_;
    options_.stats->expansion_units = static_cast<int64_t>(expanded_units_);
  }

  std::vector<Token> run() {
    const std::string* text = sources_.text("");
    if (text == nullptr) throw InternalError("the main spec is not registered as \"\"");
    for (size_t i = 0; i < options_.defines.size(); ++i)
      define_from_command_line(options_.defines[i], i < options_.builtin_defines);
    files_.emplace_back(text, "", file_id(""), 0, &lexed_);

    std::vector<Token> out;
    // Roughly an upper bound for a spec's token count; pages never written cost nothing.
    out.reserve(std::min<size_t>(text->size() / 2, size_t{1} << 20));
    expand(&out);
    Token end;
    end.kind = TokenKind::kEnd;
    end.loc = end_loc_;
    out.push_back(std::move(end));
    return out;
  }

 private:
  // ---- Compact tokens. ----

  uint32_t intern(const std::string& text) {
    auto [it, added] = text_ids_.try_emplace(text, static_cast<uint32_t>(texts_.size()));
    if (added) texts_.push_back(&it->first);
    return it->second;
  }

  uint32_t file_id(const std::string& name) {
    auto [it, added] = file_ids_.try_emplace(name, static_cast<uint32_t>(file_names_.size()));
    if (added) file_names_.push_back(name);
    return it->second;
  }

  Tok tok_of(const Token& t, uint32_t file) {
    Tok r;
    r.text = intern(t.text);
    r.kind = static_cast<uint8_t>(t.kind);
    r.file = file;
    r.line = t.loc.line;
    r.col = t.loc.col;
    return r;
  }
  Tok tok_of(const Token& t) { return tok_of(t, file_id(t.loc.file)); }

  SourceLoc loc_of(const Tok& t) const { return SourceLoc{file_names_[t.file], t.line, t.col}; }

  uint32_t depth_of(const Tok& t) const { return chains_[t.chain].depth; }

  // What producing `t` costs, in expansion units.
  uint64_t units_of(const Tok& t) const { return std::max<uint64_t>(1, depth_of(t)); }

  uint64_t expansion_limit() const {
    return std::max(kMinExpansionUnits, kExpansionUnitsPerToken * static_cast<uint64_t>(lexed_));
  }

  Token to_token(const Tok& t) {
    Token out;
    out.kind = static_cast<TokenKind>(t.kind);
    out.text = *texts_[t.text];
    out.loc = loc_of(t);
    const uint32_t depth = depth_of(t);
    out.macro_chain.resize(depth);
    size_t i = depth;
    for (uint32_t n = t.chain; n != 0; n = chains_[n].parent)
      out.macro_chain[--i] = origins_[chains_[n].origin];
    work_ += std::max<uint32_t>(1, depth);
    return out;
  }

  [[noreturn]] void fail_at_tok(const Tok& t, const std::string& message) {
    fail_at(to_token(t), message);
  }

  bool is(const Tok& t, uint32_t punct) const { return t.kind == kPunct && t.text == punct; }

  // ---- Token sources: pushed-back token, macro contexts, then the files. ----

  // Only its kind is used: the end of the input is located by end_loc_.
  static Tok make_end() { return Tok{}; }

  std::shared_ptr<Macro> find_macro(uint32_t text) const {
    return text < macro_of_.size() ? macro_of_[text] : nullptr;
  }
  std::shared_ptr<Macro> find_macro(const std::string& name) const {
    auto it = macros_.find(name);
    return it == macros_.end() ? nullptr : it->second;
  }

  void set_macro(const std::string& name, std::shared_ptr<Macro> m) {
    const uint32_t id = intern(name);
    if (macro_of_.size() <= id) macro_of_.resize(id + 1);
    macro_of_[id] = m;
    if (m) {
      macros_[name] = std::move(m);
    } else {
      macros_.erase(name);
    }
  }

  // The next token or kGroup without macro expansion; `from_context_` tells whether it came
  // from contexts_.back() (at pos - 1).
  Tok next_item() {
    from_context_ = false;
    if (pushback_) {
      Tok t = *pushback_;
      pushback_.reset();
      return t;
    }
    while (!contexts_.empty()) {
      Context& c = contexts_.back();
      if (c.pos < c.end) {
        Tok t = c.arr->toks[c.pos++];
        ++work_;
        // An identifier met while its own macro is being rescanned is painted for good, even
        // if it is only examined after that rescan ends (e.g. as a macro argument).
        if (t.kind == kIdent && !t.painted && t.text < macro_of_.size()) {
          const Macro* m = macro_of_[t.text].get();
          if (m && m->disabled > 0) t.painted = true;
        }
        from_context_ = true;
        return t;
      }
      if (c.macro) --c.macro->disabled;
      if (c.group) --group_contexts_;
      contexts_.pop_back();
    }
    if (isolated_) return make_end();
    Tok t;
    if (read_file_token(&t)) return t;
    return make_end();
  }

  // The next token without macro expansion (a kGroup is entered).
  Tok next_token() {
    while (true) {
      Tok t = next_item();
      if (t.kind != kGroup) return t;
      Slice g = contexts_.back().arr->groups[t.text];
      ++group_contexts_;
      contexts_.push_back(Context{std::move(g.arr), g.begin, g.end, nullptr, true});
    }
  }

  bool skipping() const { return !conds_.empty() && !conds_.back().active; }

  // Next token of the files, running directives and skipping inactive groups.
  bool read_file_token(Tok* out) {
    while (true) {
      FileState& f = files_.back();
      const LexedToken& next = f.peek();
      if (next.tok.kind == TokenKind::kEnd) {
        if (conds_.size() > f.cond_base) {
          fail(conds_.back().loc, "unterminated #" + conds_.back().directive);
        }
        if (files_.size() == 1) {
          end_loc_ = next.tok.loc;
          return false;
        }
        files_.pop_back();
        continue;
      }
      if (next.at_line_start && is_punct(next.tok, "#")) {
        handle_directive();
        continue;
      }
      LexedToken t = f.take();
      if (skipping()) continue;
      if (!t.error.empty()) throw Diagnostic(t.tok.loc, t.error, "lex");
      *out = tok_of(t.tok, f.id);
      return true;
    }
  }

  // ---- Macro expansion. ----

  // Expands everything up to the end token of the current source into `out`.
  template <typename Out>
  void expand(Out* out) {
    while (true) {
      Tok t = next_token();
      if (t.kind == kEnd) return;
      if (t.kind == kIdent && !t.painted) {
        if (std::shared_ptr<Macro> m = find_macro(t.text)) {
          if (m->disabled > 0) {
            t.painted = true;
          } else if (!m->function_like) {
            push_expansion(m, t, {});
            continue;
          } else {
            Tok next = next_token();
            if (is(next, lparen_)) {
              std::vector<Slice> args = collect_args(*m, t);
              push_expansion(m, t, std::move(args));
              continue;
            }
            pushback_ = next;  // a function-like name without '(' is left alone
          }
        }
      }
      emit(out, t);
    }
  }

  void emit(std::vector<Token>* out, const Tok& t) { out->push_back(to_token(t)); }
  void emit(std::vector<Tok>* out, const Tok& t) {
    out->push_back(t);
    ++work_;
  }

  // Fully expands `toks` on their own (C's argument pre-expansion, #if expressions). Macros
  // being rescanned outside stay disabled.
  std::vector<Tok> expand_list(const Slice& toks, const Tok& where) {
    if (isolated_depth_ >= kMaxArgumentNesting) {
      fail_at_tok(where, "macro arguments nested too deeply");
    }
    std::vector<Context> saved_contexts = std::move(contexts_);
    std::optional<Tok> saved_pushback = pushback_;
    const bool saved_isolated = isolated_;
    const size_t saved_groups = group_contexts_;
    contexts_.clear();
    pushback_.reset();
    isolated_ = true;
    group_contexts_ = 0;
    ++isolated_depth_;
    contexts_.push_back(Context{toks.arr, toks.begin, toks.end, nullptr, false});
    std::vector<Tok> out;
    expand(&out);
    --isolated_depth_;
    contexts_ = std::move(saved_contexts);
    pushback_ = saved_pushback;
    isolated_ = saved_isolated;
    group_contexts_ = saved_groups;
    return out;
  }

  // Sets the '(' -> ')' matches of `a`, whose kGroups are balanced wholes.
  void match_parens(TokArray* a) {
    std::vector<size_t> open;
    for (size_t i = 0; i < a->toks.size(); ++i) {
      const Tok& t = a->toks[i];
      if (is(t, lparen_)) {
        open.push_back(i);
      } else if (is(t, rparen_) && !open.empty()) {
        a->match[open.back()] = i;
        open.pop_back();
      }
    }
    work_ += a->toks.size();
  }

  // The arguments between the '(' at `open` and its ')' at `close` of one array: slices of it
  // found by jumping over the nested parentheses, so that each level of nested calls reads only
  // its own tokens, never the levels inside it again.
  void split_args(const std::shared_ptr<const TokArray>& arr, size_t open, size_t close,
                  std::vector<Slice>* args) {
    size_t start = open + 1;
    for (size_t i = open + 1; i < close;) {
      ++work_;
      const Tok& t = arr->toks[i];
      if (is(t, lparen_)) {
        i = arr->match[i] + 1;
        continue;
      }
      if (is(t, comma_)) {
        args->push_back(Slice{arr, start, i});
        start = i + 1;
      }
      ++i;
    }
    args->push_back(Slice{arr, start, close});
  }

  // Reads the arguments after the '(' of an invocation of `m` (named by `name`); that '(' was
  // the last token read.
  std::vector<Slice> collect_args(const Macro& m, const Tok& name) {
    std::vector<Slice> args;
    Context* c = from_context_ ? &contexts_.back() : nullptr;
    if (c && c->arr->match[c->pos - 1] != kNoMatch && c->arr->match[c->pos - 1] < c->end) {
      // The whole list is in this context, so no macro is re-enabled before its tokens are
      // read (when an argument is pre-expanded): they are painted as they would be now.
      const size_t close = c->arr->match[c->pos - 1];
      split_args(c->arr, c->pos - 1, close, &args);
      c->pos = close + 1;
    } else {
      collect_args_by_token(m, name, &args);
    }
    if (m.params.empty() && args.size() == 1 && args[0].begin == args[0].end) args.clear();
    if (args.size() != m.params.size()) {
      Diagnostic diag(loc_of(name),
                      "macro '" + m.name + "' expects " + std::to_string(m.params.size()) +
                          (m.params.size() == 1 ? " argument" : " arguments") + ", got " +
                          std::to_string(args.size()),
                      kRule);
      add_macro_notes(diag, to_token(name));
      if (m.definition.valid()) diag.add_note(m.definition, "macro '" + m.name + "' defined here");
      throw diag;
    }
    return args;
  }

  // The arguments of a list that starts in one source and goes on in others, read one token at
  // a time into a new array. A balanced group met in a context that is not a macro's (an
  // argument being pre-expanded, or a group) is kept whole as one kGroup: no macro is
  // re-enabled before its tokens are read, so they are painted then as they would be now.
  void collect_args_by_token(const Macro& m, const Tok& name, std::vector<Slice>* args) {
    auto list = std::make_shared<TokArray>();
    std::vector<size_t> open;  // indices of the unclosed '(' in `list`
    size_t start = 0;
    while (true) {
      Tok t = next_item();
      if (t.kind == kEnd) {
        fail_at_tok(name, "unterminated argument list invoking macro '" + m.name + "'");
      }
      ++work_;
      Context* c = from_context_ && !contexts_.back().macro ? &contexts_.back() : nullptr;
      if (t.kind == kGroup) {
        // Only contexts of no macro hold kGroups (macro results are built of read tokens).
        if (c == nullptr) throw InternalError("a group token outside an argument");
        list->groups.push_back(c->arr->groups[t.text]);
        t.text = static_cast<uint32_t>(list->groups.size() - 1);
      } else if (is(t, lparen_)) {
        const size_t close = c ? c->arr->match[c->pos - 1] : kNoMatch;
        if (close != kNoMatch && close < c->end) {
          list->groups.push_back(Slice{c->arr, c->pos - 1, close + 1});
          c->pos = close + 1;
          t = Tok{};
          t.kind = kGroup;
          t.text = static_cast<uint32_t>(list->groups.size() - 1);
        } else {
          open.push_back(list->toks.size());
        }
      } else if (is(t, rparen_)) {
        if (open.empty()) break;
        list->match[open.back()] = list->toks.size();
        open.pop_back();
      } else if (open.empty() && is(t, comma_)) {
        args->push_back(Slice{nullptr, start, list->toks.size()});
        start = list->toks.size() + 1;
      }
      list->push(t);
    }
    args->push_back(Slice{nullptr, start, list->toks.size()});
    std::shared_ptr<const TokArray> frozen = std::move(list);
    for (Slice& a : *args) a.arr = frozen;
  }

  // Substitutes the arguments into the body of `m` and pushes the result for rescanning.
  void push_expansion(const std::shared_ptr<Macro>& m, const Tok& name, std::vector<Slice> args) {
    if (m->uses_hash) fail_at_tok(name, "'#' and '##' in macro bodies are not supported");
    const uint32_t name_depth = depth_of(name);
    if (contexts_.size() - group_contexts_ >= kMaxNesting || name_depth >= kMaxNesting) {
      fail_at_tok(name, "macro expansion nested too deeply");
    }
    std::vector<std::optional<std::vector<Tok>>> expanded(args.size());
    std::vector<uint64_t> arg_units(args.size());
    size_t size = 0;
    uint64_t units = 0;  // counted before the result is built
    bool own_tokens = false;
    for (size_t i = 0; i < m->body.size(); ++i) {
      int p = m->body_param[i];
      if (p < 0) {
        ++size;
        units += name_depth + 1;
        own_tokens = true;
        continue;
      }
      if (!expanded[p]) {
        expanded[p] = expand_list(args[p], name);
        for (const Tok& t : *expanded[p]) arg_units[p] += units_of(t);
        work_ += expanded[p]->size();
      }
      size += expanded[p]->size();
      units += arg_units[p];
    }
    expanded_units_ += units;
    if (expanded_units_ > expansion_limit()) fail_at_tok(name, "macro expansion too large");

    uint32_t chain = 0;
    if (own_tokens) {
      chain = static_cast<uint32_t>(chains_.size());
      chains_.push_back(ChainNode{name.chain, m->origin, name_depth + 1});
    }
    auto result = std::make_shared<TokArray>();
    result->toks.reserve(size);
    for (size_t i = 0; i < m->body.size(); ++i) {
      int p = m->body_param[i];
      if (p >= 0) {
        // Argument tokens keep the location where the user wrote them.
        result->toks.insert(result->toks.end(), expanded[p]->begin(), expanded[p]->end());
        continue;
      }
      Tok t;
      t.kind = static_cast<uint8_t>(m->body[i].kind);
      t.text = m->body_text[i];
      t.file = name.file;
      t.line = name.line;
      t.col = name.col;
      t.chain = chain;
      result->toks.push_back(t);
    }
    result->match.assign(size, kNoMatch);
    match_parens(result.get());
    work_ += size;
    ++m->disabled;
    contexts_.push_back(Context{std::move(result), 0, size, m, false});
  }

  // ---- Directives. ----

  static void check_lex_errors(const std::vector<LexedToken>& line) {
    for (const LexedToken& t : line) {
      if (!t.error.empty()) throw Diagnostic(t.tok.loc, t.error, "lex");
    }
  }

  void handle_directive() {
    FileState& f = files_.back();
    f.take();  // '#'
    std::vector<LexedToken> line;
    while (f.peek().tok.kind != TokenKind::kEnd && !f.peek().at_line_start) {
      line.push_back(f.take());
    }
    // `f` may be invalidated below (by #include).
    bool skip = skipping();
    if (line.empty()) return;  // the null directive
    const Token& name = line[0].tok;
    if (name.kind != TokenKind::kIdentifier) {
      if (skip) return;
      check_lex_errors(line);
      fail(name.loc, "invalid preprocessing directive '#" + name.text + "'");
    }
    const std::string& d = name.text;
    if (d == "if" || d == "ifdef" || d == "ifndef") {
      Cond c;
      c.loc = name.loc;
      c.directive = d;
      c.parent_active = !skip;
      if (skip) {
        c.taken = true;  // no group of a conditional inside a skipped group is compiled
      } else {
        c.active = c.taken = condition(line);
      }
      conds_.push_back(std::move(c));
      return;
    }
    if (d == "elif" || d == "else" || d == "endif") {
      if (conds_.size() <= files_.back().cond_base) fail(name.loc, "#" + d + " without #if");
      if (d == "endif") {
        conds_.pop_back();
        return;
      }
      if (conds_.back().seen_else) fail(name.loc, "#" + d + " after #else");
      if (d == "else") {
        Cond& c = conds_.back();
        c.seen_else = true;
        c.active = c.parent_active && !c.taken;
        c.taken = true;
        return;
      }
      if (!conds_.back().parent_active || conds_.back().taken) {
        conds_.back().active = false;
        return;
      }
      bool v = condition(line);
      conds_.back().active = conds_.back().taken = v;
      return;
    }
    if (skip) return;  // other directives in skipped groups are not even checked, as in C
    check_lex_errors(line);
    if (d == "define") {
      define(line, 1, name.loc, false);
    } else if (d == "undef") {
      if (line.size() < 2 || line[1].tok.kind != TokenKind::kIdentifier) {
        fail(line.size() < 2 ? name.loc : line[1].tok.loc, "#undef expects a macro name");
      }
      set_macro(line[1].tok.text, nullptr);
    } else if (d == "include") {
      include(line);
    } else if (d == "pragma") {
      // Other pragmas are ignored: those of C++ compilers mean nothing to the spec language.
      if (line.size() >= 2 && line[1].tok.is_ident("once")) once_.insert(files_.back().name);
    } else if (d == "error") {
      std::string message = "#error";
      for (size_t i = 1; i < line.size(); ++i) message += " " + line[i].tok.text;
      fail(name.loc, message);
    } else {
      fail(name.loc, "unknown directive '#" + d + "'");
    }
  }

  // Value of the condition of an #if / #elif / #ifdef / #ifndef line.
  bool condition(const std::vector<LexedToken>& line) {
    check_lex_errors(line);
    const Token& name = line[0].tok;
    if (name.text == "ifdef" || name.text == "ifndef") {
      if (line.size() < 2 || line[1].tok.kind != TokenKind::kIdentifier) {
        fail(line.size() < 2 ? name.loc : line[1].tok.loc,
             "#" + name.text + " expects a macro name");
      }
      bool defined = macros_.count(line[1].tok.text) > 0;
      return name.text == "ifdef" ? defined : !defined;
    }
    // `defined X` is resolved before expansion, so X itself is not expanded.
    auto toks = std::make_shared<TokArray>();
    for (size_t i = 1; i < line.size(); ++i) {
      const Token& t = line[i].tok;
      if (!t.is_ident("defined")) {
        toks->push(tok_of(t));
        continue;
      }
      size_t j = i + 1;
      bool paren = j < line.size() && is_punct(line[j].tok, "(");
      if (paren) ++j;
      if (j >= line.size() || line[j].tok.kind != TokenKind::kIdentifier) {
        fail(j < line.size() ? line[j].tok.loc : t.loc, "'defined' expects a macro name");
      }
      bool defined = macros_.count(line[j].tok.text) > 0;
      ++j;
      if (paren) {
        if (j >= line.size() || !is_punct(line[j].tok, ")")) {
          fail(j < line.size() ? line[j].tok.loc : line[j - 1].tok.loc,
               "expected ')' after 'defined'");
        }
        ++j;
      }
      Token value;
      value.kind = TokenKind::kInteger;
      value.text = defined ? "1" : "0";
      value.loc = t.loc;
      toks->push(tok_of(value));
      i = j - 1;
    }
    match_parens(toks.get());
    const size_t n = toks->toks.size();
    std::vector<Tok> expanded = expand_list(Slice{std::move(toks), 0, n}, tok_of(name));
    std::vector<PPToken> value;
    value.reserve(expanded.size());
    for (const Tok& t : expanded) value.push_back(PPToken{to_token(t), t.painted});
    return evaluate_if_expression(value, name.loc, macros_) != 0;
  }

  // Defines a macro from line[first..]: NAME [ '(' params ')' ] body. `definition` is where
  // diagnostics say it was defined (invalid for -D).
  void define(const std::vector<LexedToken>& line, size_t first, const SourceLoc& directive_loc,
              bool command_line) {
    if (first >= line.size()) fail(directive_loc, "macro name missing in #define");
    const Token& name = line[first].tok;
    if (name.kind != TokenKind::kIdentifier) fail(name.loc, "macro name must be an identifier");
    if (name.text == "defined") fail(name.loc, "'defined' cannot be used as a macro name");
    auto m = std::make_shared<Macro>();
    m->name = name.text;
    m->definition = command_line ? SourceLoc{} : name.loc;
    size_t i = first + 1;
    if (i < line.size() && is_punct(line[i].tok, "(") && !line[i].space_before) {
      m->function_like = true;
      ++i;
      if (i < line.size() && is_punct(line[i].tok, ")")) {
        ++i;
      } else {
        while (true) {
          if (i >= line.size()) fail(line.back().tok.loc, "expected ')' in macro parameter list");
          const Token& p = line[i].tok;
          if (is_punct(p, ".")) fail(p.loc, "variadic macros are not supported");
          if (p.kind != TokenKind::kIdentifier) {
            fail(p.loc, "expected parameter name in macro '" + m->name + "', got '" + p.text + "'");
          }
          for (const std::string& q : m->params) {
            if (q == p.text) fail(p.loc, "duplicate macro parameter '" + p.text + "'");
          }
          m->params.push_back(p.text);
          ++i;
          if (i < line.size() && is_punct(line[i].tok, ",")) {
            ++i;
            continue;
          }
          if (i < line.size() && is_punct(line[i].tok, ")")) {
            ++i;
            break;
          }
          fail(i < line.size() ? line[i].tok.loc : p.loc, "expected ')' in macro parameter list");
        }
      }
    }
    for (; i < line.size(); ++i) {
      const Token& t = line[i].tok;
      int param = -1;
      if (m->function_like && t.kind == TokenKind::kIdentifier) {
        for (size_t k = 0; k < m->params.size(); ++k) {
          if (m->params[k] == t.text) param = static_cast<int>(k);
        }
      }
      if (is_punct(t, "##") || (m->function_like && is_punct(t, "#"))) m->uses_hash = true;
      Token body;
      body.kind = t.kind;
      body.text = t.text;
      m->body.push_back(std::move(body));
      m->body_param.push_back(param);
      m->body_text.push_back(intern(t.text));
    }
    m->origin = static_cast<uint32_t>(origins_.size());
    origins_.push_back(MacroOrigin{m->name, m->definition});
    if (auto old = find_macro(m->name); old && options_.warn && !old->builtin && !same(*old, *m))
      warn_redefined(*old, *m, command_line ? pending_option_ : "");
    const std::string macro_name = m->name;
    set_macro(macro_name, std::move(m));  // a redefinition replaces the old one
  }

  // Two definitions cc takes as the same (no warning): the same kind, parameters and body.
  static bool same(const Macro& a, const Macro& b) {
    if (a.function_like != b.function_like || a.params != b.params ||
        a.body.size() != b.body.size() || a.body_param != b.body_param)
      return false;
    for (size_t i = 0; i < a.body.size(); ++i)
      if (a.body[i].kind != b.body[i].kind || a.body[i].text != b.body[i].text) return false;
    return true;
  }

  // cc's "N redefined" with both places: the new definition, then a note at the old one (a
  // -D option is named, as it has no place in a file).
  void warn_redefined(const Macro& old, const Macro& now, const std::string& option) {
    const std::string replaces = option.empty() ? "" : " (-D " + option + ")";
    Diagnostic d(now.definition,
                 "'" + now.name + "' redefined" + replaces + "; the later definition is used",
                 "macro-redefined");
    if (!old.command_line.empty() && !option.empty())
      d.add_note(SourceLoc{}, "the previous definition of '" + old.name +
                                  "' is on the command line: -D " + old.command_line);
    else if (!old.command_line.empty())
      d.add_note(SourceLoc{}, "the previous definition of '" + old.name +
                                  "' is on the command line: -D " + old.command_line +
                                  " (a spec's #define replaces a -D, as in cc; to let -D win, "
                                  "write #ifndef " +
                                  old.name + " around the #define)");
    else
      d.add_note(old.definition, "the previous definition of '" + old.name + "' is here");
    options_.warn(d);
  }

  void define_from_command_line(const std::string& option, bool builtin) {
    pending_option_ = option;
    size_t eq = option.find('=');
    std::string head = option.substr(0, eq);
    std::string value = eq == std::string::npos ? "1" : option.substr(eq + 1);
    std::vector<LexedToken> line;
    try {
      line = lex(head, "");
      line.pop_back();  // kEnd
      // The part before '=' is NAME or NAME(params), nothing else.
      bool name_only =
          line.size() == 1 || (line.size() > 2 && is_punct(line[1].tok, "(") &&
                               !line[1].space_before && is_punct(line.back().tok, ")"));
      if (line.empty() || line[0].tok.kind != TokenKind::kIdentifier || !name_only) {
        fail(SourceLoc{}, "macro name must be an identifier");
      }
      std::vector<LexedToken> body = lex(value, "");
      body.pop_back();
      check_lex_errors(line);
      check_lex_errors(body);
      for (LexedToken& t : body) {
        t.space_before = true;
        line.push_back(std::move(t));
      }
      for (LexedToken& t : line) t.tok.loc = SourceLoc{};
      define(line, 0, SourceLoc{}, true);
      macros_[line[0].tok.text]->command_line = option;
      macros_[line[0].tok.text]->builtin = builtin;
    } catch (const Diagnostic& d) {
      throw Diagnostic(SourceLoc{}, "invalid -D option '" + option + "': " + d.message(), d.rule());
    }
  }

  void include(const std::vector<LexedToken>& line) {
    const Token& directive = line[0].tok;
    if (line.size() < 2 || line[1].tok.kind != TokenKind::kString) {
      fail(line.size() < 2 ? directive.loc : line[1].tok.loc, "#include expects \"FILE\"");
    }
    const Token& file_tok = line[1].tok;
    std::string file = file_tok.text.substr(1, file_tok.text.size() - 2);
    if (file.empty()) fail(file_tok.loc, "empty file name in #include");
    if (files_.size() > kMaxIncludeDepth) fail(directive.loc, "#include nested too deeply");

    std::optional<std::string> name = resolve_include(file);
    if (!name) fail(file_tok.loc, "cannot find include file '" + file + "'");
    if (once_.count(*name) > 0) return;
    const std::string* text = sources_.text(*name);
    if (text == nullptr) {
      std::string path = disk_path(*name);
      // Every read error is the user's located error (a file that fails to read is never taken
      // as empty), and so is a file over the tools' input limit (libs/cli: kMaxInputBytes).
      std::string bytes;
      const std::string error = t2s_rt::read_file(path, &bytes, kMaxIncludeBytes);
      if (!error.empty()) {
        const size_t why = error.find("': ");
        fail(file_tok.loc, "cannot read include file '" + file + "'" +
                               (why == std::string::npos ? "" : ": " + error.substr(why + 3)));
      }
      sources_.add(*name, path, std::move(bytes));
      text = sources_.text(*name);
    }
    files_.emplace_back(text, *name, file_id(*name), conds_.size(), &lexed_);
  }

  // Where a file name (relative to the main spec's directory, or absolute) lives on disk.
  std::string disk_path(const std::string& name) const {
    return join_path(sources_.base_dir(), name);
  }

  // The SourceLoc name of the file `#include "file"` reaches, if it exists.
  std::optional<std::string> resolve_include(const std::string& file) {
    std::string local = normalize(join_path(dir_of(files_.back().name), file));
    if (is_file(disk_path(local))) return local;
    for (const std::string& dir : options_.include_dirs) {
      std::string path = join_path(dir, file);  // relative to the current directory
      if (!is_file(path)) continue;
      // Name it relative to the main spec's directory, like every other included file.
      std::error_code ec;
      fs::path abs = fs::absolute(path, ec).lexically_normal();
      fs::path base = fs::absolute(sources_.base_dir().empty() ? "." : sources_.base_dir(), ec)
                          .lexically_normal();
      std::string rel = abs.lexically_relative(base).string();
      return rel.empty() ? abs.string() : rel;
    }
    return std::nullopt;
  }

  SourceManager& sources_;
  const PreprocessOptions& options_;
  MacroTable macros_;                             // for #if's `defined`
  std::vector<std::shared_ptr<Macro>> macro_of_;  // the same, by interned name
  std::unordered_map<std::string, uint32_t> text_ids_;
  std::vector<const std::string*> texts_;  // by Tok::text (keys of text_ids_)
  std::unordered_map<std::string, uint32_t> file_ids_;
  std::vector<std::string> file_names_;  // by Tok::file
  std::vector<MacroOrigin> origins_;     // one per macro definition
  std::vector<ChainNode> chains_;
  uint32_t lparen_ = 0, rparen_ = 0, comma_ = 0;
  std::string pending_option_;  // the -D option being defined (for a warning)
  std::vector<FileState> files_;
  std::set<std::string> once_;  // files that said #pragma once
  std::vector<Cond> conds_;
  std::vector<Context> contexts_;
  size_t group_contexts_ = 0;  // contexts_ of kGroups (not counted as macro nesting)
  std::optional<Tok> pushback_;
  bool from_context_ = false;  // the last next_item() came from contexts_.back()
  bool isolated_ = false;      // reading a token list on its own: its end is the end of input
  size_t isolated_depth_ = 0;
  uint64_t expanded_units_ = 0;
  int64_t lexed_ = 0;  // tokens lexed from the files
  int64_t work_ = 0;   // PreprocessStats::work, without the lexing
  SourceLoc end_loc_;
};

}  // namespace

std::vector<Token> preprocess(SourceManager& sources, const PreprocessOptions& options) {
  return Preprocessor(sources, options).run();
}

}  // namespace t2s
