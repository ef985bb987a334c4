#include "libs/frontend/preprocessor.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "libs/frontend/lexer.h"
#include "libs/frontend/preprocessor_internal.h"
#include "libs/runtime/file.h"

namespace t2s {
namespace {

using preprocessor_internal::evaluate_if_expression;
using preprocessor_internal::fail;
using preprocessor_internal::fail_at;
using preprocessor_internal::kMaxNesting;
using preprocessor_internal::kRule;
using preprocessor_internal::Macro;
using preprocessor_internal::MacroTable;
using preprocessor_internal::PPToken;

namespace fs = std::filesystem;

constexpr size_t kMaxIncludeDepth = 64;
// The largest included file: the tools' input limit (libs/cli/tool.h kMaxInputBytes).
constexpr int64_t kMaxIncludeBytes = int64_t{16} << 20;
// Each level of nested macro invocations in arguments rescans the arguments again.
constexpr size_t kMaxArgumentNesting = 128;
// Bounds what macro expansion produces, counting each token and each entry of its macro chain
// (about 100 bytes each), so that an exponential macro tree fails instead of eating all memory.
constexpr size_t kMaxExpansionUnits = 4'000'000;

struct Context {
  std::vector<PPToken> toks;
  size_t pos = 0;
  std::shared_ptr<Macro> macro;  // re-enabled when the context is popped
};

struct Cond {
  SourceLoc loc;          // the directive name of the opening #if / #ifdef / #ifndef
  std::string directive;  // "if", "ifdef" or "ifndef"
  bool parent_active = true;
  bool active = false;  // the current group is being compiled
  bool taken = false;   // some group of this conditional has been (or cannot be) chosen
  bool seen_else = false;
};

struct FileState {
  FileState(const std::string* text, const std::string& name, size_t cond_base)
      : name(name), lexer(text, name), cond_base(cond_base) {}

  LexedToken& peek() {
    if (!peeked) peeked = lexer.next();
    return *peeked;
  }
  LexedToken take() {
    LexedToken t = std::move(peek());
    peeked.reset();
    return t;
  }

  std::string name;  // SourceLoc.file of its tokens
  Lexer lexer;
  std::optional<LexedToken> peeked;
  size_t cond_base = 0;  // conditionals opened before this file
};

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
      : sources_(sources), options_(options) {}

  std::vector<Token> run() {
    const std::string* text = sources_.text("");
    if (text == nullptr) throw InternalError("the main spec is not registered as \"\"");
    for (size_t i = 0; i < options_.defines.size(); ++i)
      define_from_command_line(options_.defines[i], i < options_.builtin_defines);
    files_.emplace_back(text, "", 0);

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
  // ---- Token sources: pushed-back token, macro contexts, then the files. ----

  PPToken make_end() const {
    PPToken t;
    t.tok.kind = TokenKind::kEnd;
    t.tok.loc = end_loc_;
    return t;
  }

  std::shared_ptr<Macro> find_macro(const std::string& name) const {
    auto it = macros_.find(name);
    return it == macros_.end() ? nullptr : it->second;
  }

  // The next token without macro expansion.
  PPToken next_token() {
    if (pushback_) {
      PPToken t = std::move(*pushback_);
      pushback_.reset();
      return t;
    }
    while (!contexts_.empty()) {
      Context& c = contexts_.back();
      if (c.pos < c.toks.size()) {
        PPToken t = std::move(c.toks[c.pos++]);
        // An identifier met while its own macro is being rescanned is painted for good, even
        // if it is only examined after that rescan ends (e.g. as a macro argument).
        if (t.tok.kind == TokenKind::kIdentifier && !t.painted) {
          auto m = find_macro(t.tok.text);
          if (m && m->disabled > 0) t.painted = true;
        }
        return t;
      }
      if (c.macro) --c.macro->disabled;
      contexts_.pop_back();
    }
    if (isolated_) return make_end();
    PPToken t;
    if (read_file_token(&t)) return t;
    return make_end();
  }

  bool skipping() const { return !conds_.empty() && !conds_.back().active; }

  // Next token of the files, running directives and skipping inactive groups.
  bool read_file_token(PPToken* out) {
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
      out->tok = std::move(t.tok);
      out->painted = false;
      return true;
    }
  }

  // ---- Macro expansion. ----

  // Expands everything up to the end token of the current source into `out`.
  template <typename Out>
  void expand(Out* out) {
    while (true) {
      PPToken t = next_token();
      if (t.tok.kind == TokenKind::kEnd) return;
      if (t.tok.kind == TokenKind::kIdentifier && !t.painted) {
        if (auto m = find_macro(t.tok.text)) {
          if (m->disabled > 0) {
            t.painted = true;
          } else if (!m->function_like) {
            push_expansion(m, t.tok, {});
            continue;
          } else {
            PPToken next = next_token();
            if (is_punct(next.tok, "(")) {
              std::vector<std::vector<PPToken>> args = collect_args(*m, t.tok);
              push_expansion(m, t.tok, std::move(args));
              continue;
            }
            pushback_ = std::move(next);  // a function-like name without '(' is left alone
          }
        }
      }
      emit(out, std::move(t));
    }
  }

  static void emit(std::vector<Token>* out, PPToken t) { out->push_back(std::move(t.tok)); }
  static void emit(std::vector<PPToken>* out, PPToken t) { out->push_back(std::move(t)); }

  // Fully expands `toks` on their own (C's argument pre-expansion, #if expressions). Macros
  // being rescanned outside stay disabled.
  std::vector<PPToken> expand_list(std::vector<PPToken> toks, const Token& where) {
    if (isolated_depth_ >= kMaxArgumentNesting) fail_at(where, "macro arguments nested too deeply");
    std::vector<Context> saved_contexts = std::move(contexts_);
    std::optional<PPToken> saved_pushback = std::move(pushback_);
    bool saved_isolated = isolated_;
    contexts_.clear();
    pushback_.reset();
    isolated_ = true;
    ++isolated_depth_;
    contexts_.push_back(Context{std::move(toks), 0, nullptr});
    std::vector<PPToken> out;
    expand(&out);
    --isolated_depth_;
    contexts_ = std::move(saved_contexts);
    pushback_ = std::move(saved_pushback);
    isolated_ = saved_isolated;
    return out;
  }

  // Frees the tokens already read from the innermost context once they are at least half of it.
  // The arguments just read were moved out, but their husks stayed; each level of nested macro
  // calls in arguments reads the rest of the level outside it, so without this the memory would
  // be the input's size times the nesting (kMaxArgumentNesting), not linear in the input. The
  // half keeps the cost of the moves linear too.
  void release_consumed_tokens() {
    if (contexts_.empty()) return;
    Context& c = contexts_.back();
    if (c.pos == 0 || c.pos * 2 < c.toks.size()) return;
    std::vector<PPToken> rest(std::make_move_iterator(c.toks.begin() + c.pos),
                              std::make_move_iterator(c.toks.end()));
    c.toks = std::move(rest);
    c.pos = 0;
  }

  // Reads the arguments after the '(' of an invocation of `m` (named by `name`).
  std::vector<std::vector<PPToken>> collect_args(const Macro& m, const Token& name) {
    std::vector<std::vector<PPToken>> args(1);
    int depth = 0;
    while (true) {
      PPToken t = next_token();
      if (t.tok.kind == TokenKind::kEnd) {
        fail_at(name, "unterminated argument list invoking macro '" + m.name + "'");
      }
      if (is_punct(t.tok, "(")) {
        ++depth;
      } else if (is_punct(t.tok, ")")) {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && is_punct(t.tok, ",")) {
        args.emplace_back();
        continue;
      }
      args.back().push_back(std::move(t));
    }
    release_consumed_tokens();
    if (m.params.empty() && args.size() == 1 && args[0].empty()) args.clear();
    if (args.size() != m.params.size()) {
      Diagnostic diag(name.loc,
                      "macro '" + m.name + "' expects " + std::to_string(m.params.size()) +
                          (m.params.size() == 1 ? " argument" : " arguments") + ", got " +
                          std::to_string(args.size()),
                      kRule);
      add_macro_notes(diag, name);
      if (m.definition.valid()) diag.add_note(m.definition, "macro '" + m.name + "' defined here");
      throw diag;
    }
    return args;
  }

  // Substitutes the arguments into the body of `m` and pushes the result for rescanning.
  void push_expansion(const std::shared_ptr<Macro>& m, const Token& name,
                      std::vector<std::vector<PPToken>> args) {
    if (m->uses_hash) fail_at(name, "'#' and '##' in macro bodies are not supported");
    if (contexts_.size() >= kMaxNesting || name.macro_chain.size() >= kMaxNesting) {
      fail_at(name, "macro expansion nested too deeply");
    }
    std::vector<MacroOrigin> chain = name.macro_chain;
    chain.push_back(MacroOrigin{m->name, m->definition});

    std::vector<std::optional<std::vector<PPToken>>> expanded(args.size());
    std::vector<size_t> arg_units(args.size());
    size_t size = 0;
    size_t units = 0;  // tokens plus chain entries: what the result costs in memory
    for (size_t i = 0; i < m->body.size(); ++i) {
      int p = m->body_param[i];
      if (p < 0) {
        ++size;
        units += 1 + chain.size();
        continue;
      }
      if (!expanded[p]) {
        expanded[p] = expand_list(std::move(args[p]), name);
        for (const PPToken& t : *expanded[p]) arg_units[p] += 1 + t.tok.macro_chain.size();
      }
      size += expanded[p]->size();
      units += arg_units[p];
    }
    expanded_units_ += units;
    if (units > kMaxExpansionUnits || expanded_units_ > kMaxExpansionUnits) {
      fail_at(name, "macro expansion too large");
    }

    std::vector<PPToken> result;
    result.reserve(size);
    for (size_t i = 0; i < m->body.size(); ++i) {
      int p = m->body_param[i];
      if (p >= 0) {
        // Argument tokens keep the location where the user wrote them.
        result.insert(result.end(), expanded[p]->begin(), expanded[p]->end());
        continue;
      }
      PPToken t;
      t.tok.kind = m->body[i].kind;
      t.tok.text = m->body[i].text;
      t.tok.loc = name.loc;
      t.tok.macro_chain = chain;
      result.push_back(std::move(t));
    }
    ++m->disabled;
    contexts_.push_back(Context{std::move(result), 0, m});
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
      macros_.erase(line[1].tok.text);
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
    std::vector<PPToken> toks;
    for (size_t i = 1; i < line.size(); ++i) {
      const Token& t = line[i].tok;
      if (!t.is_ident("defined")) {
        toks.push_back(PPToken{t, false});
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
      PPToken value;
      value.tok.kind = TokenKind::kInteger;
      value.tok.text = defined ? "1" : "0";
      value.tok.loc = t.loc;
      toks.push_back(std::move(value));
      i = j - 1;
    }
    std::vector<PPToken> expanded = expand_list(std::move(toks), name);
    return evaluate_if_expression(expanded, name.loc, macros_) != 0;
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
    }
    if (auto old = find_macro(m->name); old && options_.warn && !old->builtin && !same(*old, *m))
      warn_redefined(*old, *m, command_line ? pending_option_ : "");
    macros_[m->name] = std::move(m);  // a redefinition replaces the old one
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
    files_.emplace_back(text, *name, conds_.size());
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
  MacroTable macros_;
  std::string pending_option_;  // the -D option being defined (for a warning)
  std::vector<FileState> files_;
  std::set<std::string> once_;  // files that said #pragma once
  std::vector<Cond> conds_;
  std::vector<Context> contexts_;
  std::optional<PPToken> pushback_;
  bool isolated_ = false;  // reading a token list on its own: its end is the end of input
  size_t isolated_depth_ = 0;
  size_t expanded_units_ = 0;
  SourceLoc end_loc_;
};

}  // namespace

std::vector<Token> preprocess(SourceManager& sources, const PreprocessOptions& options) {
  return Preprocessor(sources, options).run();
}

}  // namespace t2s
