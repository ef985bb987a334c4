#include "libs/ir/ir_json.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "libs/ir/expr_parser.h"
#include "libs/ir/expr_printer.h"
#include "libs/ir/stmt_visitor.h"
#include "libs/ir/strings.h"
#include "libs/ir/typing.h"
#include "libs/ir/visitor.h"

namespace t2s {

using Json = nlohmann::ordered_json;

class ProgramResolver : public NameResolver {
 public:
  explicit ProgramResolver(const Program& program) : program_(program) {}

  Expr identifier(const std::string& name, const SourceLoc& loc) override {
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
      if (it->first == name) return make_var(name, it->second, loc);
    return make_var(name, loc);
  }

  CallTarget call(const std::string& name, size_t nargs, const SourceLoc& loc) override {
    if (const Register* r = program_.find_register(name)) {
      if (r->kind != Register::kShift)
        throw Diagnostic(loc, "FIFO '" + name + "' is read with pop(" + name + ", ...)", "ir");
      if (r->shape.size() + 1 != nargs)
        throw Diagnostic(loc,
                         "register '" + name + "' takes " + std::to_string(r->shape.size() + 1) +
                             " indices (the PE, then the slot), got " + std::to_string(nargs),
                         "ir");
      return {CallKind::kRegister, r->type};
    }
    const Func* f = program_.find_func(name);
    // A Func defined by an isolation directive has no type in `funcs` (which keep the spec's
    // form); its storage has one: an enclosing realize (the values a consumer keeps for a
    // producer that removed loops), else its buffer.
    if (f && !f->type.known())
      for (auto it = realizes_.rbegin(); it != realizes_.rend(); ++it)
        if (it->name == name) {
          if (it->dims != nargs)
            throw Diagnostic(loc,
                             "the realize of '" + name + "' has " + std::to_string(it->dims) +
                                 " dimensions, got " + std::to_string(nargs),
                             "ir");
          return {CallKind::kFunc, it->type};
        }
    if (f && !f->type.known())
      if (const Buffer* b = program_.find_buffer(name)) {
        if (b->mins.size() != nargs)
          throw Diagnostic(loc,
                           "buffer '" + name + "' has " + std::to_string(b->mins.size()) +
                               " dimensions, got " + std::to_string(nargs),
                           "ir");
        return {CallKind::kFunc, b->type};
      }
    if (f) {
      if (!f->type.known())
        throw Diagnostic(loc, "call to Func '" + name + "' whose type is not known", "ir");
      if (f->args.size() != nargs)
        throw Diagnostic(loc,
                         "Func '" + name + "' takes " + std::to_string(f->args.size()) +
                             " arguments, got " + std::to_string(nargs),
                         "ir");
      return {CallKind::kFunc, f->type};
    }
    if (const Input* in = program_.find_input(name)) {
      if (static_cast<size_t>(in->dims) != nargs)
        throw Diagnostic(loc,
                         "input '" + name + "' has " + std::to_string(in->dims) +
                             " dimensions, got " + std::to_string(nargs),
                         "ir");
      return {CallKind::kImage, in->type};
    }
    throw Diagnostic(loc, "call to unknown Func or input '" + name + "'", "ir");
  }

  Type channel(const std::string& name, const SourceLoc& loc) override {
    if (const Channel* c = program_.find_channel(name)) return c->type;
    throw Diagnostic(loc, "read_channel of unknown channel '" + name + "'", "ir");
  }

  // IR may hold vector operations, unless the program has a Func, input or register of that
  // name (a spec may define a Func `ramp`).
  bool vector_op(const std::string& name) override {
    return !program_.find_func(name) && !program_.find_input(name) && !program_.find_register(name);
  }

  std::optional<Type> fifo(const std::string& name) override {
    const Register* r = program_.find_register(name);
    if (r && r->kind == Register::kFifo) return r->type;
    return std::nullopt;
  }

  // Let-bound names in scope (innermost last) and their types.
  std::vector<std::pair<std::string, Type>> lets_;
  // Realizes in scope (innermost last).
  struct RealizeScope {
    std::string name;
    Type type;
    size_t dims;
  };
  std::vector<RealizeScope> realizes_;

 private:
  const Program& program_;
};

Expr resolve_in_program(const Expr& untyped, const Program& program) {
  ProgramResolver resolver(program);
  return resolve_types(untyped, resolver);
}

Expr resolve_in_program(const Expr& untyped, const Program& program,
                        const std::vector<std::pair<std::string, Type>>& lets) {
  ProgramResolver resolver(program);
  resolver.lets_ = lets;
  return resolve_types(untyped, resolver);
}

namespace {
Expr resolve_in_scope(const Expr& untyped, const Program& program,
                      const std::vector<std::pair<std::string, Type>>& lets,
                      const std::vector<ProgramResolver::RealizeScope>& realizes) {
  ProgramResolver resolver(program);
  resolver.lets_ = lets;
  resolver.realizes_ = realizes;
  return resolve_types(untyped, resolver);
}
}  // namespace

namespace {

// ---------------------------------------------------------------------------------------------
// Writing

Json loc_json(const SourceLoc& loc) { return loc.valid() ? Json(loc.str()) : Json(nullptr); }

Json expr_json(const Expr& e) { return e ? Json(print_expr(e)) : Json(nullptr); }

Json exprs_json(const std::vector<Expr>& es) {
  Json a = Json::array();
  for (const Expr& e : es) a.push_back(print_expr(e));
  return a;
}

Json directive_arg_json(const DirectiveArg& arg) {
  if (arg.kind != DirectiveArg::kList) return arg.text;
  Json a = Json::array();
  for (const DirectiveArg& item : arg.items) a.push_back(directive_arg_json(item));
  return a;
}

Json directive_json(const Directive& d) {
  Json j = Json::object();
  j["func"] = d.func;
  j["name"] = d.name;
  Json args = Json::array();
  for (const DirectiveArg& a : d.args) args.push_back(directive_arg_json(a));
  j["args"] = args;
  j["loc"] = loc_json(d.loc);
  return j;
}

Json stmts_json(const StmtList& stmts);

// Constant extents, spelled as the canonical printer spells an integer constant.
Json extents_json(const std::vector<int64_t>& extents) {
  Json a = Json::array();
  for (int64_t e : extents) a.push_back(std::to_string(e));
  return a;
}

Json bounds_json(const std::vector<Expr>& mins, const std::vector<Expr>& extents) {
  Json a = Json::array();
  for (size_t i = 0; i < mins.size(); ++i)
    a.push_back(Json::array({print_expr(mins[i]), print_expr(extents[i])}));
  return a;
}

Json stmt_json(const Stmt& s) {
  Json j = Json::object();
  // The kind's key first, then its fields (the order of the document's keys).
  match_stmt(
      s,
      [&](const For& n) {
        j["for"] = n.var;
        j["min"] = expr_json(n.min);
        j["extent"] = expr_json(n.extent);
        j["kind"] = loop_kind_name(n.loop_kind);
        j["body"] = stmts_json(n.body);
      },
      [&](const LetStmt& n) {
        j["let"] = n.var;
        j["value"] = expr_json(n.value);
        j["body"] = stmts_json(n.body);
      },
      [&](const IfThenElse& n) {
        j["if"] = expr_json(n.condition);
        j["then"] = stmts_json(n.then_body);
        j["else"] = stmts_json(n.else_body);
      },
      [&](const Provide& n) {
        j["provide"] = n.func;
        j["args"] = exprs_json(n.args);
        j["value"] = expr_json(n.value);
      },
      [&](const Alloc& n) {
        j["alloc"] = n.reg;
        j["type"] = n.type.name();
        j["shape"] = exprs_json(n.shape);
      },
      [&](const WriteChannel& n) {
        j["write_channel"] = n.channel;
        j["index"] = exprs_json(n.index);
        j["value"] = expr_json(n.value);
      },
      [&](const Realize& n) {
        j["realize"] = n.func;
        j["type"] = n.type.name();
        j["bounds"] = bounds_json(n.mins, n.extents);
        if (n.double_buffer) {
          const DoubleBuffer& b = *n.double_buffer;
          j["double_buffer"] = Json{
              {"producer", b.producer}, {"loop", b.loop}, {"reads", b.reads}, {"writes", b.writes}};
        }
        j["body"] = stmts_json(n.body);
      },
      [&](const Shift& n) {
        j["shift"] = n.reg;
        j["args"] = exprs_json(n.pe);
      },
      [&](const Push& n) {
        j["push"] = n.fifo;
        j["args"] = exprs_json(n.pe);
        j["value"] = expr_json(n.value);
      });
  if (s.loc.valid()) j["loc"] = s.loc.str();
  return j;
}

Json stmts_json(const StmtList& stmts) {
  Json a = Json::array();
  for (const StmtPtr& s : stmts) a.push_back(stmt_json(*s));
  return a;
}

const char* place_name(Place p) { return p == Place::kDevice ? "device" : "host"; }

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
 public:
  Reader(const std::string& display_name) : file_loc_{display_name, 0, 0} {}

  [[noreturn]] void fail(const std::string& where, const std::string& message) {
    throw Diagnostic(file_loc_, where.empty() ? message : where + ": " + message, "ir");
  }

  const Json& field(const Json& obj, const char* key, const std::string& where) {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
    return *it;
  }

  std::string str(const Json& obj, const char* key, const std::string& where) {
    const Json& v = field(obj, key, where);
    if (!v.is_string()) fail(where, std::string("field '") + key + "' must be a string");
    return v.get<std::string>();
  }

  const Json& array(const Json& obj, const char* key, const std::string& where) {
    const Json& v = field(obj, key, where);
    if (!v.is_array()) fail(where, std::string("field '") + key + "' must be an array");
    return v;
  }

  std::vector<std::string> strings(const Json& obj, const char* key, const std::string& where) {
    std::vector<std::string> out;
    for (const Json& v : array(obj, key, where)) {
      if (!v.is_string()) fail(where, std::string("field '") + key + "' must hold strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  SourceLoc loc(const Json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_string()) fail(where, std::string("field '") + key + "' must be a string");
    try {
      return SourceLoc::parse(it->get<std::string>());
    } catch (const std::invalid_argument& e) {
      fail(where, e.what());
    }
  }

  Type type(const Json& v, const std::string& where, bool allow_null) {
    if (v.is_null() && allow_null) return Type();
    if (!v.is_string()) fail(where, "a type must be a string such as \"float32\"");
    auto t = Type::from_name(v.get<std::string>());
    if (!t) fail(where, "unknown type '" + v.get<std::string>() + "'");
    return *t;
  }

  Place place(const Json& obj, const std::string& where) {
    std::string p = str(obj, "place", where);
    if (p == "host") return Place::kHost;
    if (p == "device") return Place::kDevice;
    fail(where, "place must be \"host\" or \"device\", not \"" + p + "\"");
  }

  // Parses the untyped tree; types are resolved once the whole program is known.
  Expr expr(const Json& v, const std::string& where, const SourceLoc& entity_loc) {
    if (!v.is_string()) fail(where, "an expression must be a string");
    try {
      return parse_expr_text(v.get<std::string>(), entity_loc);
    } catch (const Diagnostic& d) {
      fail(where, d.message());
    }
  }

  Expr typed(const Expr& e, const Program& p, const std::string& where) {
    if (!e) return e;
    try {
      return resolve_in_scope(e, p, lets_, realizes_);
    } catch (const Diagnostic& d) {
      fail(where, d.message());
    }
  }

  // [[min, extent], ...] into untyped expressions.
  void bounds(const Json& obj, const std::string& where, const SourceLoc& entity_loc,
              std::vector<Expr>* mins, std::vector<Expr>* extents) {
    for (const Json& b : array(obj, "bounds", where)) {
      if (!b.is_array() || b.size() != 2)
        fail(where, "each of 'bounds' must be a [min, extent] pair");
      mins->push_back(expr(b[0], where + ".bounds", entity_loc));
      extents->push_back(expr(b[1], where + ".bounds", entity_loc));
    }
  }

  std::vector<int64_t> integers(const Json& obj, const char* key, const std::string& where,
                                int64_t min) {
    std::vector<int64_t> out;
    for (const Json& v : array(obj, key, where)) {
      if (!v.is_number_integer() || v.get<int64_t>() < min)
        fail(where, std::string("field '") + key + "' must hold integers" +
                        (min > 0 ? " from " + std::to_string(min) : ""));
      out.push_back(v.get<int64_t>());
    }
    return out;
  }

  // "extents": decimal strings ("4", as the canonical printer spells a constant), read once
  // into integers here so that no later stage parses them again.
  std::vector<int64_t> extents(const Json& obj, const std::string& where) {
    std::vector<int64_t> out;
    for (const std::string& text : strings(obj, "extents", where)) {
      size_t digits = 0;
      while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
      if (digits == 0 || digits != text.size() || digits > 18 || (text[0] == '0' && digits > 1))
        fail(where, "'extents' must hold non-negative decimal integers such as \"4\", not \"" +
                        text + "\"");
      int64_t value = 0;
      parse_int64(text, &value);  // at most 18 digits, checked above
      out.push_back(value);
    }
    return out;
  }

  int64_t integer(const Json& obj, const char* key, const std::string& where) {
    const Json& v = field(obj, key, where);
    if (!v.is_number_integer()) fail(where, std::string("field '") + key + "' must be an integer");
    return v.get<int64_t>();
  }

  // An argument of the directive at `at`, whose expressions are located there.
  DirectiveArg directive_arg(const Json& v, const std::string& where, const SourceLoc& at,
                             int depth = 0) {
    if (v.is_array()) {
      if (depth >= 8) fail(where, "directive argument lists nested too deeply");
      std::vector<DirectiveArg> items;
      for (const Json& item : v) items.push_back(directive_arg(item, where, at, depth + 1));
      return DirectiveArg::list(std::move(items));
    }
    if (!v.is_string()) fail(where, "a directive argument must be a string or an array");
    std::string text = v.get<std::string>();
    if (text.find("::") != std::string::npos) return DirectiveArg::enumerator(text);
    // Decoded once, here: the stage that applies the directive uses the expression (and the
    // text as written is kept, so a document reads back to the same bytes).
    Expr e = expr(v, where, at);
    return DirectiveArg::decoded(std::move(text), std::move(e));
  }

  Directive directive(const Json& v, const std::string& where) {
    Directive d;
    d.func = str(v, "func", where);
    d.name = str(v, "name", where);
    d.loc = loc(v, "loc", where);
    for (const Json& a : array(v, "args", where)) d.args.push_back(directive_arg(a, where, d.loc));
    return d;
  }

  StmtList stmts(const Json& v, const std::string& where, int depth) {
    if (!v.is_array()) fail(where, "a statement list must be an array");
    if (depth > 200) fail(where, "statements nested too deeply");
    StmtList out;
    for (size_t i = 0; i < v.size(); ++i)
      out.push_back(stmt(v[i], where + "[" + std::to_string(i) + "]", depth + 1));
    return out;
  }

  std::vector<Expr> expr_list(const Json& j, const char* key, const std::string& where,
                              const SourceLoc& loc) {
    std::vector<Expr> out;
    for (const Json& a : array(j, key, where)) out.push_back(expr(a, where, loc));
    return out;
  }

  // A name a statement introduces or refers to: a non-empty string.
  std::string name(const Json& obj, const char* key, const std::string& where) {
    std::string n = str(obj, key, where);
    if (n.empty()) fail(where, std::string("field '") + key + "' must not be empty");
    return n;
  }

  StmtPtr stmt(const Json& j, const std::string& where, int depth) {
    if (!j.is_object()) fail(where, "a statement must be an object");
    SourceLoc sloc = loc(j, "loc", where);
    auto value = [&] { return expr(field(j, "value", where), where + ".value", sloc); };
    auto body = [&](const char* key) {
      return stmts(field(j, key, where), where + "." + key, depth);
    };
    if (j.contains("for")) {
      std::string var = name(j, "for", where);
      Expr min = expr(field(j, "min", where), where + ".min", sloc);
      Expr extent = expr(field(j, "extent", where), where + ".extent", sloc);
      LoopKind kind;
      if (!loop_kind_from_name(str(j, "kind", where), &kind))
        fail(where, "loop kind must be serial, unrolled or vectorized");
      return make_for(var, min, extent, kind, body("body"), sloc);
    }
    if (j.contains("let")) {
      std::string var = name(j, "let", where);
      Expr v = value();
      return make_let(var, v, body("body"), sloc);
    }
    if (j.contains("if")) {
      Expr condition = expr(field(j, "if", where), where + ".if", sloc);
      StmtList then_body = body("then");
      return make_if(condition, then_body, body("else"), sloc);
    }
    if (j.contains("provide")) {
      std::string func = name(j, "provide", where);
      std::vector<Expr> args = expr_list(j, "args", where, sloc);
      return make_provide(func, args, value(), sloc);
    }
    if (j.contains("alloc")) {
      std::string reg = name(j, "alloc", where);
      Type t = type(field(j, "type", where), where, false);
      return make_alloc(reg, t, expr_list(j, "shape", where, sloc), sloc);
    }
    if (j.contains("write_channel")) {
      std::string channel = name(j, "write_channel", where);
      std::vector<Expr> index = expr_list(j, "index", where, sloc);
      return make_write_channel(channel, index, value(), sloc);
    }
    if (j.contains("realize")) {
      std::string func = name(j, "realize", where);
      Type t = type(field(j, "type", where), where, false);
      std::vector<Expr> mins, extents;
      bounds(j, where, sloc, &mins, &extents);
      std::optional<DoubleBuffer> double_buffer;
      if (j.contains("double_buffer")) {
        const Json& b = field(j, "double_buffer", where);
        const std::string at = where + ".double_buffer";
        if (!b.is_object()) fail(at, "'double_buffer' must be an object");
        double_buffer = DoubleBuffer{name(b, "producer", at), name(b, "loop", at),
                                     integer(b, "reads", at), integer(b, "writes", at)};
      }
      return make_realize(func, t, mins, extents, body("body"), sloc, double_buffer);
    }
    if (j.contains("shift")) {
      std::string reg = name(j, "shift", where);
      return make_shift(reg, expr_list(j, "args", where, sloc), sloc);
    }
    if (j.contains("push")) {
      std::string fifo = name(j, "push", where);
      std::vector<Expr> pe = expr_list(j, "args", where, sloc);
      return make_push(fifo, pe, value(), sloc);
    }
    fail(where,
         "unknown statement kind (expected for, let, if, provide, alloc, write_channel, "
         "realize, shift or push)");
  }

  // Types every expression of a statement tree (each statement's operands, then its nested
  // lists). A let's value is typed before its body, where the let-bound name has the value's
  // type.
  class StmtTyper : public StmtMutator {
   public:
    StmtTyper(Reader* reader, const Program& p, const std::string& where)
        : reader_(reader), p_(p), where_(where) {}
    Expr mutate(const Expr& e) override { return reader_->typed(e, p_, where_); }

   protected:
    StmtPtr mutate_let(const LetStmt& n, const StmtPtr& s) override {
      LetStmt copy = n;
      copy.value = mutate(n.value);
      reader_->lets_.emplace_back(n.var, copy.value->type);
      copy.body = mutate_stmts(n.body);
      reader_->lets_.pop_back();
      return with_node(*s, std::move(copy));
    }
    StmtPtr mutate_realize(const Realize& n, const StmtPtr& s) override {
      Realize copy = n;
      for (Expr& e : copy.mins) e = mutate(e);
      for (Expr& e : copy.extents) e = mutate(e);
      reader_->realizes_.push_back({n.func, n.type, n.mins.size()});
      copy.body = mutate_stmts(n.body);
      reader_->realizes_.pop_back();
      return with_node(*s, std::move(copy));
    }

   private:
    Reader* reader_;
    const Program& p_;
    const std::string& where_;
  };

  // Refuses JSON nested deeper than kMaxJsonDepth before parsing it: nlohmann's parser copies
  // (does not move) the members of an ordered object when its vector grows, so its time is
  // quadratic in the nesting (a 10,000-deep nest of ifs took minutes). Statements nest at most
  // 200 deep (two JSON levels each), so no document the reader accepts comes near the limit.
  void check_json_depth(const std::string& text) {
    constexpr int kMaxJsonDepth = 512;
    int depth = 0, line = 1, col = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
      ++col;
      if (c == '\n') {
        ++line;
        col = 0;
      }
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxJsonDepth)
          throw Diagnostic(SourceLoc{file_loc_.file, line, col},
                           "JSON nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep (statements nest at most 200 deep)",
                           "ir");
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
  }

  Program program(const std::string& text) {
    check_json_depth(text);
    Json doc;
    try {
      doc = Json::parse(text);
    } catch (const Json::exception& e) {
      // parse_error, and out_of_range for a number past double's range (1e999).
      fail("", std::string("malformed JSON: ") + e.what());
    }
    if (!doc.is_object()) fail("", "an IR document must be a JSON object");
    Program p;
    const Json& version = field(doc, "t2s_ir", "");
    if (!version.is_number_integer()) fail("", "'t2s_ir' must be an integer");
    p.version = version.get<int>();
    if (p.version > kIrVersion)
      fail("", "IR format version " + std::to_string(p.version) +
                   " is newer than this tool understands (" + std::to_string(kIrVersion) +
                   "); use a newer toolchain");
    if (p.version < 1) fail("", "invalid IR format version " + std::to_string(p.version));
    std::string stage = str(doc, "stage", "");
    if (!stage_from_name(stage, &p.stage)) fail("", "unknown stage '" + stage + "'");
    p.vars = strings(doc, "vars", "vars");

    const Json& inputs = array(doc, "inputs", "inputs");
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string where = "inputs[" + std::to_string(i) + "]";
      Input in;
      in.name = str(inputs[i], "name", where);
      in.type = type(field(inputs[i], "type", where), where, false);
      const Json& dims = field(inputs[i], "dims", where);
      if (!dims.is_number_integer() || dims.get<int>() < 0 || dims.get<int>() > 16)
        fail(where, "'dims' must be an integer from 0 to 16");
      in.dims = dims.get<int>();
      if (inputs[i].contains("extents")) {
        in.extents = extents(inputs[i], where);
        if (in.extents.size() != static_cast<size_t>(in.dims))
          fail(where, "'extents' must have one entry per dimension");
      }
      in.loc = loc(inputs[i], "loc", where);
      p.inputs.push_back(in);
    }

    const Json& funcs = array(doc, "funcs", "funcs");
    for (size_t i = 0; i < funcs.size(); ++i) {
      std::string where = "funcs[" + std::to_string(i) + "]";
      const Json& j = funcs[i];
      Func f;
      f.name = str(j, "name", where);
      f.type = type(field(j, "type", where), where, true);
      f.args = strings(j, "args", where);
      f.place = place(j, where);
      const Json& declared = field(j, "declared", where);
      if (!declared.is_boolean()) fail(where, "'declared' must be true or false");
      f.declared = declared.get<bool>();
      if (j.contains("wraps")) f.wraps = str(j, "wraps", where);
      f.loc = loc(j, "loc", where);
      f.decl_loc = loc(j, "decl_loc", where);
      const Json& def = field(j, "definition", where);
      if (!def.is_null()) f.definition = expr(def, where + ".definition", f.loc);
      p.funcs.push_back(f);
    }

    const Json& directives = array(doc, "directives", "directives");
    for (size_t i = 0; i < directives.size(); ++i)
      p.directives.push_back(directive(directives[i], "directives[" + std::to_string(i) + "]"));

    const Json& output = field(doc, "output", "output");
    p.output.func = str(output, "func", "output");
    p.output.extents = extents(output, "output");
    p.output.loc = loc(output, "loc", "output");

    const Json& buffers = array(doc, "buffers", "buffers");
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::string where = "buffers[" + std::to_string(i) + "]";
      Buffer b;
      b.name = str(buffers[i], "name", where);
      b.type = type(field(buffers[i], "type", where), where, false);
      b.loc = loc(buffers[i], "loc", where);
      bounds(buffers[i], where, b.loc, &b.mins, &b.extents);
      p.buffers.push_back(std::move(b));
    }

    const Json& kernels = array(doc, "kernels", "kernels");
    for (size_t i = 0; i < kernels.size(); ++i) {
      std::string where = "kernels[" + std::to_string(i) + "]";
      Kernel k;
      k.name = str(kernels[i], "name", where);
      k.place = place(kernels[i], where);
      k.body = stmts(field(kernels[i], "body", where), where + ".body", 0);
      k.loc = loc(kernels[i], "loc", where);
      if (kernels[i].contains("pending_order"))
        k.pending_order = strings(kernels[i], "pending_order", where);
      if (kernels[i].contains("inherited_transforms")) {
        const Json& list = array(kernels[i], "inherited_transforms", where);
        for (size_t t = 0; t < list.size(); ++t) {
          const std::string at = where + ".inherited_transforms[" + std::to_string(t) + "]";
          k.inherited_transforms.push_back(directive(list[t], at));
          if (!k.inherited_transforms.back().is(DirectiveKind::kSpaceTimeTransform))
            fail(at, "an inherited directive must be a space_time_transform");
        }
      }
      p.kernels.push_back(std::move(k));
    }
    const Json& channels = array(doc, "channels", "channels");
    for (size_t i = 0; i < channels.size(); ++i) {
      std::string where = "channels[" + std::to_string(i) + "]";
      const Json& j = channels[i];
      Channel c;
      c.name = str(j, "name", where);
      c.type = type(field(j, "type", where), where, false);
      for (const Json& d : array(j, "dims", where)) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1)
          fail(where, "'dims' must hold positive integers");
        c.dims.push_back(d.get<int64_t>());
      }
      c.depth = integer(j, "depth", where);
      if (c.depth < 0) fail(where, "'depth' must not be negative");
      if (j.contains("depth_reason")) c.depth_reason = str(j, "depth_reason", where);
      c.producer = str(j, "producer", where);
      c.consumer = str(j, "consumer", where);
      c.loc = loc(j, "loc", where);
      p.channels.push_back(std::move(c));
    }
    const Json& registers = array(doc, "registers", "registers");
    for (size_t i = 0; i < registers.size(); ++i) {
      std::string where = "registers[" + std::to_string(i) + "]";
      const Json& j = registers[i];
      Register r;
      r.name = str(j, "name", where);
      r.func = str(j, "func", where);
      r.kernel = str(j, "kernel", where);
      r.type = type(field(j, "type", where), where, false);
      std::string kind = str(j, "kind", where);
      if (kind == "shift")
        r.kind = Register::kShift;
      else if (kind == "fifo")
        r.kind = Register::kFifo;
      else
        fail(where, "'kind' must be \"shift\" or \"fifo\", not \"" + kind + "\"");
      r.shape = integers(j, "shape", where, 1);
      r.depth = integer(j, "depth", where);
      if (r.depth < 1) fail(where, "'depth' must be at least 1");
      r.distance = integers(j, "distance", where, std::numeric_limits<int64_t>::min());
      r.pe_offset = integers(j, "pe_offset", where, std::numeric_limits<int64_t>::min());
      r.time_distance = integer(j, "time_distance", where);
      r.period = integer(j, "period", where);
      if (r.period < 1) fail(where, "'period' must be at least 1");
      r.naive = integer(j, "naive", where);
      r.loc = loc(j, "loc", where);
      p.registers.push_back(std::move(r));
    }

    // Types need every Func and input, so they are resolved last.
    for (size_t i = 0; i < p.funcs.size(); ++i)
      p.funcs[i].definition =
          typed(p.funcs[i].definition, p, "funcs[" + std::to_string(i) + "].definition");
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      std::string where = "buffers[" + std::to_string(i) + "]";
      for (Expr& e : p.buffers[i].mins) e = typed(e, p, where);
      for (Expr& e : p.buffers[i].extents) e = typed(e, p, where);
    }
    for (size_t i = 0; i < p.kernels.size(); ++i) {
      std::string where = "kernels[" + std::to_string(i) + "]";
      p.kernels[i].body = StmtTyper(this, p, where).mutate_stmts(p.kernels[i].body);
    }
    return p;
  }

 private:
  SourceLoc file_loc_;
  std::vector<std::pair<std::string, Type>> lets_;
  std::vector<ProgramResolver::RealizeScope> realizes_;
};

}  // namespace

std::string write_program(const Program& p) {
  Json doc = Json::object();
  doc["t2s_ir"] = p.version;
  doc["stage"] = stage_name(p.stage);
  doc["vars"] = p.vars;
  Json inputs = Json::array();
  for (const Input& in : p.inputs) {
    Json j = Json::object();
    j["name"] = in.name;
    j["type"] = in.type.name();
    j["dims"] = in.dims;
    if (!in.extents.empty()) j["extents"] = extents_json(in.extents);
    j["loc"] = loc_json(in.loc);
    inputs.push_back(j);
  }
  doc["inputs"] = inputs;
  Json funcs = Json::array();
  for (const Func& f : p.funcs) {
    Json j = Json::object();
    j["name"] = f.name;
    j["type"] = f.type.known() ? Json(f.type.name()) : Json(nullptr);
    j["args"] = f.args;
    j["place"] = place_name(f.place);
    j["declared"] = f.declared;
    if (!f.wraps.empty()) j["wraps"] = f.wraps;
    j["definition"] = expr_json(f.definition);
    j["loc"] = loc_json(f.loc);
    j["decl_loc"] = loc_json(f.decl_loc);
    funcs.push_back(j);
  }
  doc["funcs"] = funcs;
  Json directives = Json::array();
  for (const Directive& d : p.directives) directives.push_back(directive_json(d));
  doc["directives"] = directives;
  Json output = Json::object();
  output["func"] = p.output.func;
  output["extents"] = extents_json(p.output.extents);
  output["loc"] = loc_json(p.output.loc);
  doc["output"] = output;
  Json buffers = Json::array();
  for (const Buffer& b : p.buffers) {
    Json j = Json::object();
    j["name"] = b.name;
    j["type"] = b.type.name();
    j["bounds"] = bounds_json(b.mins, b.extents);
    j["loc"] = loc_json(b.loc);
    buffers.push_back(j);
  }
  doc["buffers"] = buffers;
  Json kernels = Json::array();
  for (const Kernel& k : p.kernels) {
    Json j = Json::object();
    j["name"] = k.name;
    j["place"] = place_name(k.place);
    // Only when a reorder waits for t2s-stt, so other kernels read as before.
    if (!k.pending_order.empty()) j["pending_order"] = k.pending_order;
    // Only for an isolated consumer that inherits a transform (merged stage).
    if (!k.inherited_transforms.empty()) {
      Json list = Json::array();
      for (const Directive& d : k.inherited_transforms) list.push_back(directive_json(d));
      j["inherited_transforms"] = list;
    }
    j["body"] = stmts_json(k.body);
    j["loc"] = loc_json(k.loc);
    kernels.push_back(j);
  }
  doc["kernels"] = kernels;
  Json channels = Json::array();
  for (const Channel& c : p.channels) {
    Json j = Json::object();
    j["name"] = c.name;
    j["type"] = c.type.name();
    j["dims"] = c.dims;
    j["depth"] = c.depth;
    // Only when a pass recorded why, so other channels read as before.
    if (!c.depth_reason.empty()) j["depth_reason"] = c.depth_reason;
    j["producer"] = c.producer;
    j["consumer"] = c.consumer;
    j["loc"] = loc_json(c.loc);
    channels.push_back(j);
  }
  doc["channels"] = channels;
  Json registers = Json::array();
  for (const Register& r : p.registers) {
    Json j = Json::object();
    j["name"] = r.name;
    j["func"] = r.func;
    j["kernel"] = r.kernel;
    j["type"] = r.type.name();
    j["kind"] = register_kind_name(r.kind);
    j["shape"] = r.shape;
    j["depth"] = r.depth;
    j["distance"] = r.distance;
    j["pe_offset"] = r.pe_offset;
    j["time_distance"] = r.time_distance;
    j["period"] = r.period;
    j["naive"] = r.naive;
    j["loc"] = loc_json(r.loc);
    registers.push_back(j);
  }
  doc["registers"] = registers;
  return doc.dump(2) + "\n";
}

Program read_program(const std::string& text, const std::string& display_name) {
  return Reader(display_name).program(text);
}

}  // namespace t2s
