#include "libs/explore/directive_text.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/strings.h"

namespace t2s::explore {

namespace {

std::string arg_text(const DirectiveArg& a) {
  if (a.kind != DirectiveArg::kList) return a.text;
  std::string t = "{";
  for (size_t i = 0; i < a.items.size(); ++i) t += (i ? ", " : "") + arg_text(a.items[i]);
  return t + "}";
}

// A parsed argument before normalization: a list or a piece of text.
struct Raw {
  bool list = false;
  std::string text;
  std::vector<Raw> items;
};

class ChainParser {
 public:
  explicit ChainParser(const std::string& t) : t_(t) {}

  std::string ident() {
    space();
    size_t start = pos_;
    while (pos_ < t_.size() && (isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_'))
      ++pos_;
    if (start == pos_) fail("expected a name");
    return t_.substr(start, pos_ - start);
  }

  bool eat(char c) {
    space();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }

  bool at_end() {
    space();
    return pos_ >= t_.size();
  }

  std::vector<Raw> args(char close) {
    std::vector<Raw> out;
    if (eat(close)) return out;
    for (;;) {
      out.push_back(arg());
      if (eat(close)) return out;
      expect(',');
    }
  }

  [[noreturn]] void fail(const std::string& m) {
    throw std::invalid_argument("'" + t_ + "': " + m + " at column " + std::to_string(pos_ + 1));
  }

 private:
  Raw arg() {
    Raw r;
    if (eat('{')) {
      r.list = true;
      r.items = args('}');
      return r;
    }
    space();
    int depth = 0;
    size_t start = pos_;
    while (pos_ < t_.size()) {
      char c = t_[pos_];
      if (c == '(') ++depth;
      if (c == ')' && depth-- == 0) break;
      if ((c == ',' || c == '}') && depth == 0) break;
      ++pos_;
    }
    r.text = t_.substr(start, pos_ - start);
    while (!r.text.empty() && isspace(static_cast<unsigned char>(r.text.back()))) r.text.pop_back();
    if (r.text.empty()) fail("expected an argument");
    return r;
  }

  void space() {
    while (pos_ < t_.size() && isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }

  std::string t_;
  size_t pos_ = 0;
};

bool is_int(const std::string& s) {
  size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// An expression argument from the text a user wrote, decoded once and spelled canonically.
DirectiveArg expression(const std::string& text) {
  Expr e;
  try {
    e = parse_expr_text(text, {});
  } catch (const std::exception&) {
    throw std::invalid_argument("'" + text + "' is not an expression");
  }
  return DirectiveArg::expr(e);
}

DirectiveArg names(const Raw& r, const char* what) {
  std::vector<DirectiveArg> items;
  if (!r.list) throw std::invalid_argument(std::string(what) + " must be a list {...}");
  for (const Raw& x : r.items) {
    if (x.list) throw std::invalid_argument(std::string(what) + " must hold names");
    items.push_back(expression(x.text));
  }
  return DirectiveArg::list(items);
}

DirectiveArg integers(const Raw& r, const char* what) {
  std::vector<DirectiveArg> items;
  if (!r.list) throw std::invalid_argument(std::string(what) + " must be a list {...}");
  for (const Raw& x : r.items) {
    std::string t = x.list ? "" : x.text;
    t.erase(std::remove_if(t.begin(), t.end(), ::isspace), t.end());
    int64_t value = 0;
    if (!parse_int64(t, &value))
      throw std::invalid_argument(std::string(what) + " must hold integers");
    items.push_back(DirectiveArg::expr(std::to_string(value)));
  }
  return DirectiveArg::list(items);
}

Directive transform(const std::vector<Raw>& raw, const std::string& func, const SourceLoc& loc) {
  Directive d = Directive::make(func, DirectiveKind::kSpaceTimeTransform, {}, loc);
  std::vector<Raw> args = raw;
  DirectiveArg check = DirectiveArg::enumerator("SpaceTimeTransform::NoCheckTime");
  if (!args.empty() && !args.back().list && args.back().text.find("::") != std::string::npos) {
    std::string e = args.back().text;
    if (e != "SpaceTimeTransform::CheckTime" && e != "SpaceTimeTransform::NoCheckTime")
      throw std::invalid_argument("unknown check '" + e + "'");
    check = DirectiveArg::enumerator(e);
    args.pop_back();
  }
  if (args.empty()) throw std::invalid_argument("space_time_transform needs its space loops");
  if (!args[0].list) {  // space_time_transform(i, j)
    std::vector<DirectiveArg> space;
    for (const Raw& a : args) {
      if (a.list) throw std::invalid_argument("space_time_transform(i, j) takes names");
      space.push_back(expression(a.text));
    }
    d.args = {DirectiveArg::list(space), DirectiveArg::list({}), check};
    return d;
  }
  bool general = args.size() >= 3 && args[1].list && !args[1].items.empty() &&
                 !args[1].items[0].list && !is_int(args[1].items[0].text);
  if (!general) {
    if (args.size() > 2) throw std::invalid_argument("space_time_transform: too many arguments");
    d.args = {names(args[0], "the space loops"),
              args.size() > 1 ? integers(args[1], "the scheduling vector") : DirectiveArg::list({}),
              check};
    return d;
  }
  DirectiveArg src = names(args[0], "the source loops"),
               dst = names(args[1], "the destination loops");
  std::vector<DirectiveArg> rows;
  const Raw& m = args[2];
  if (!m.list) throw std::invalid_argument("the matrix must be a list");
  if (!m.items.empty() && m.items[0].list) {
    for (const Raw& row : m.items) rows.push_back(integers(row, "a matrix row"));
  } else {
    DirectiveArg flat = integers(m, "the matrix");
    const size_t w = src.items.size();
    if (w == 0 || flat.items.size() % w != 0)
      throw std::invalid_argument("the matrix does not have |src| columns");
    for (size_t r = 0; r * w < flat.items.size(); ++r)
      rows.push_back(DirectiveArg::list(
          std::vector<DirectiveArg>(flat.items.begin() + static_cast<long>(r * w),
                                    flat.items.begin() + static_cast<long>((r + 1) * w))));
  }
  std::vector<DirectiveArg> pairs;
  if (args.size() > 3) {
    const Raw& rev = args[3];
    if (!rev.list) throw std::invalid_argument("the reverse mapping must be a list");
    std::vector<Raw> flat;
    for (const Raw& x : rev.items) {
      if (x.list) {
        if (x.items.size() != 2) throw std::invalid_argument("a reverse pair has two entries");
        flat.insert(flat.end(), x.items.begin(), x.items.end());
      } else {
        flat.push_back(x);
      }
    }
    if (flat.size() % 2) throw std::invalid_argument("the reverse mapping has an odd length");
    for (size_t i = 0; i < flat.size(); i += 2)
      pairs.push_back(DirectiveArg::list({expression(flat[i].text), expression(flat[i + 1].text)}));
  }
  if (args.size() > 4) throw std::invalid_argument("space_time_transform: too many arguments");
  d.args = {src, dst, DirectiveArg::list(rows), DirectiveArg::list(pairs), check};
  return d;
}

std::string count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string join(const std::vector<std::string>& v) {
  std::string t;
  for (const std::string& s : v) t += (t.empty() ? "" : ", ") + s;
  return t;
}

// The front end's checks of transforms (libs/frontend/directives.cc), with its messages and
// rules: a space loop named twice, a vector of the wrong length, a chained transform whose
// space loops are not a proper subset of the previous transform's.
void check_transforms(const std::vector<Directive>& ds) {
  std::vector<std::vector<std::string>> chain;
  for (const Directive& d : ds) {
    if (!d.is(DirectiveKind::kSpaceTimeTransform)) continue;
    std::vector<std::string> space;
    if (d.args.size() == 3) {
      for (const DirectiveArg& a : d.args[0].items) space.push_back(a.text);
      if (!d.args[1].items.empty() && d.args[1].items.size() != space.size())
        throw Diagnostic(d.loc,
                         "space_time_transform: the scheduling vector has " +
                             count(d.args[1].items.size(), "coefficient") + " for " +
                             count(space.size(), "space loop"),
                         "directive-args");
    } else {
      for (size_t i = 0; i + 1 < d.args[1].items.size(); ++i)
        space.push_back(d.args[1].items[i].text);
    }
    for (size_t i = 0; i < space.size(); ++i)
      if (std::count(space.begin(), space.end(), space[i]) > 1)
        throw Diagnostic(d.loc, "space_time_transform: Var '" + space[i] + "' appears twice",
                         "directive-args");
    if (!chain.empty()) {
      const std::vector<std::string>& prev = chain.back();
      bool subset = space.size() < prev.size();
      for (const std::string& v : space)
        if (std::find(prev.begin(), prev.end(), v) == prev.end()) subset = false;
      if (!subset)
        throw Diagnostic(d.loc,
                         "the space loops (" + join(space) +
                             ") of a chained space_time_transform must be a proper subset of "
                             "the previous transform's (" +
                             join(prev) + ")",
                         "stt-chain");
    }
    chain.push_back(space);
  }
}

}  // namespace

std::string directive_text(const Directive& d) {
  std::string args;
  if (d.is(DirectiveKind::kSpaceTimeTransform) && d.args.size() == 3 && d.args[1].items.empty()) {
    for (const DirectiveArg& a : d.args[0].items) args += (args.empty() ? "" : ", ") + a.text;
    if (d.args[2].text == "SpaceTimeTransform::CheckTime") {
      std::string zeros;
      for (size_t i = 0; i < d.args[0].items.size(); ++i) zeros += i ? ", 0" : "0";
      args = "{" + args + "}, {" + zeros + "}, " + d.args[2].text;
    }
  } else {
    for (size_t i = 0; i < d.args.size(); ++i) {
      const DirectiveArg& a = d.args[i];
      if (a.kind == DirectiveArg::kEnum && a.text == "SpaceTimeTransform::NoCheckTime") continue;
      if (d.is(DirectiveKind::kSpaceTimeTransform) && i == 3 && a.items.empty()) continue;
      args += (args.empty() ? "" : ", ") + arg_text(a);
    }
  }
  return d.name + "(" + args + ")";
}

std::string chain_text(const std::string& func, const std::vector<Directive>& ds) {
  std::string t = func;
  for (const Directive& d : ds) t += "." + directive_text(d);
  return t + ";";
}

std::vector<Directive> parse_chain(const std::string& text, const std::string& func,
                                   const SourceLoc& loc) {
  ChainParser p(text);
  std::vector<Directive> out;
  bool first = true;
  for (;;) {
    std::string name = p.ident();
    if (first && name == func && p.eat('.')) name = p.ident();
    first = false;
    p.expect('(');
    std::vector<Raw> args = p.args(')');
    if (directive_kind(name) == DirectiveKind::kReorder) {
      Directive d = Directive::make(func, DirectiveKind::kReorder, {}, loc);
      for (const Raw& a : args) {
        if (a.list) throw std::invalid_argument("reorder takes loop names");
        d.args.push_back(expression(a.text));
      }
      out.push_back(d);
    } else if (directive_kind(name) == DirectiveKind::kSpaceTimeTransform) {
      out.push_back(transform(args, func, loc));
    } else {
      throw std::invalid_argument("'" + name +
                                  "': --try takes reorder and space_time_transform directives");
    }
    if (p.eat(';') || p.at_end()) break;
    p.expect('.');
  }
  if (!p.at_end()) p.fail("unexpected text after the directives");
  check_transforms(out);
  return out;
}

}  // namespace t2s::explore
