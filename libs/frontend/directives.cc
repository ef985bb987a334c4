#include "libs/frontend/directives.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "libs/ir/diagnostic.h"
#include "libs/ir/strings.h"

namespace t2s::frontend_internal {

namespace {

[[noreturn]] void throw_with_note(Diagnostic d, const SourceLoc& note_loc,
                                  const std::string& note) {
  d.add_note(note_loc, note);
  throw d;
}

std::string count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Checks one directive against the symbols and the per-Func facts of `scope`.
class DirectiveNormalizer {
 public:
  explicit DirectiveNormalizer(const DirectiveScope& scope)
      : lookup_(scope.lookup), program_(*scope.program), states_(*scope.states) {}

 private:
  [[noreturn]] void bad_args(const SourceLoc& loc, const std::string& directive,
                             const std::string& message) {
    throw Diagnostic(loc, directive + ": " + message, "directive-args");
  }

  // Checks that `arg` names a declared symbol of kind `kind`.
  std::string name_of(const DirectiveArg& arg, SymbolKind kind, const SourceLoc& loc,
                      const std::string& directive) {
    if (arg.kind != DirectiveArg::kExpr || !is_identifier(arg.text))
      bad_args(loc, directive,
               std::string("expected ") + describe_kind(kind) + ", found " + describe(arg));
    const Symbol* s = lookup_(arg.text);
    if (!s || s->kind != kind)
      bad_args(loc, directive,
               "'" + arg.text + "' is " + (s ? describe_kind(s->kind) : "not declared") + ", not " +
                   describe_kind(kind));
    return arg.text;
  }

  static bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
  }

  static std::string describe(const DirectiveArg& a) {
    if (a.kind == DirectiveArg::kList) return "a list";
    return "'" + a.text + "'";
  }

  int64_t int_of(const DirectiveArg& arg, const SourceLoc& loc, const std::string& directive,
                 const char* what) {
    if (arg.kind == DirectiveArg::kExpr) {
      const Expr& e = arg.value;
      if (e && e->kind == ExprKind::kIntImm && e->type == Type::Int(32)) return e->int_value;
    }
    bad_args(loc, directive,
             std::string(what) + " must be an integer constant, not " + describe(arg));
  }

  std::vector<std::string> var_names(const DirectiveArg& list, const SourceLoc& loc,
                                     const std::string& directive) {
    if (list.kind != DirectiveArg::kList)
      bad_args(loc, directive, "expected a list of Vars {...}, found " + describe(list));
    std::vector<std::string> vars;
    for (const DirectiveArg& item : list.items) {
      vars.push_back(name_of(item, SymbolKind::kVar, loc, directive));
      if (std::count(vars.begin(), vars.end(), vars.back()) > 1)
        bad_args(loc, directive, "Var '" + vars.back() + "' appears twice");
    }
    return vars;
  }

  DirectiveArg var_list_arg(const std::vector<std::string>& vars) {
    std::vector<DirectiveArg> items;
    for (const std::string& v : vars) items.push_back(DirectiveArg::expr(v));
    return DirectiveArg::list(std::move(items));
  }

  // Checks that `func` is a Func that may be defined by an isolation directive.
  void isolation_target(const DirectiveArg& arg, const SourceLoc& loc, const std::string& d) {
    std::string name = name_of(arg, SymbolKind::kFunc, loc, d);
    const Func* f = program_.find_func(name);
    auto& state = states_[name];
    if (f->definition || state.defined_by_isolation.valid()) {
      Diagnostic diag(loc,
                      d + ": Func '" + name +
                          "' is already defined; an isolated Func "
                          "must not be defined yet",
                      "redefinition");
      diag.add_note(f->definition ? f->loc : state.defined_by_isolation,
                    "'" + name + "' is defined here");
      throw diag;
    }
    state.defined_by_isolation = loc;
  }

  // Records that isolated Func `to` (at `loc`) copies `from`, refusing a chain of isolations
  // that leads back to `to`: every consumer chain starts from a Func with a definition.
  void consumer_of(const std::string& from, const std::string& to, const SourceLoc& loc,
                   const std::string& d) {
    std::vector<std::string> chain{to, from};
    for (std::string s = states_[from].isolated_from; !s.empty(); s = states_[s].isolated_from) {
      chain.push_back(s);
      if (s == to) {
        std::reverse(chain.begin(), chain.end());
        throw_with_note(
            Diagnostic(loc,
                       d + ": the isolations would form a cycle (" + join(chain, " -> ") +
                           "): a consumer chain starts from a Func with a definition",
                       "isolate-cycle"),
            states_[from].defined_by_isolation, "'" + from + "' is isolated here");
      }
    }
    states_[to].isolated_from = from;
  }

 public:
  // Directive `d` (at `name_loc`) on Func `f` in its normal form; args[i] is at locs[i]. One
  // directive, except `vectorize(v, factor)` and `unroll(v, factor)`, which are a split and
  // the directive on the inner loop.
  std::vector<Directive> normalize(const std::string& f, const std::string& d,
                                   const SourceLoc& name_loc, std::vector<DirectiveArg> args,
                                   const std::vector<SourceLoc>& locs) {
    auto loc_of = [&](size_t i) { return i < locs.size() ? locs[i] : name_loc; };
    using K = DirectiveKind;
    const K k = directive_kind(d);
    Directive out{f, d, {}, name_loc};

    if (k == K::kMergeUres) {
      if (args.empty()) bad_args(name_loc, d, "expected at least one Func to merge");
      for (size_t i = 0; i < args.size(); ++i) {
        std::string g = name_of(args[i], SymbolKind::kFunc, loc_of(i), d);
        if (g == f)
          throw Diagnostic(loc_of(i), "Func '" + f + "' is merged into itself", "merge-self");
        for (size_t j = 0; j < i; ++j)
          if (args[j].text == g)
            throw Diagnostic(loc_of(i), "Func '" + g + "' is merged twice", "merge-twice");
      }
      out.args = args;
    } else if (k == K::kSetBounds) {
      if (args.empty() || args.size() % 3 != 0)
        bad_args(name_loc, d,
                 "expected (Var, min, extent) triples, got " + std::to_string(args.size()) +
                     " arguments");
      for (size_t i = 0; i < args.size(); i += 3) {
        name_of(args[i], SymbolKind::kVar, loc_of(i), d);
        int64_t min = int_of(args[i + 1], loc_of(i + 1), d, "the min");
        int64_t extent = int_of(args[i + 2], loc_of(i + 2), d, "the extent");
        if (extent <= 0)
          throw Diagnostic(loc_of(i + 2),
                           d + ": the extent of '" + args[i].text + "' must be positive, not " +
                               std::to_string(extent),
                           "bounds");
        if (extent >= kMaxExtent || min <= -kMaxExtent || min >= kMaxExtent)
          throw Diagnostic(
              loc_of(i + 2),
              d + ": the bounds of '" + args[i].text + "' are too large (at most 2^31)", "bounds");
      }
      out.args = args;
    } else if (k == K::kReorder) {
      if (args.empty()) bad_args(name_loc, d, "expected the loops in their new order");
      std::vector<std::string> seen;
      for (size_t i = 0; i < args.size(); ++i) {
        seen.push_back(name_of(args[i], SymbolKind::kVar, loc_of(i), d));
        if (std::count(seen.begin(), seen.end(), seen.back()) > 1)
          bad_args(loc_of(i), d, "Var '" + seen.back() + "' appears twice");
      }
      out.args = args;
    } else if (k == K::kSpaceTimeTransform) {
      out.args = normalize_space_time_transform(args, locs, name_loc, f);
    } else if (k == K::kVectorize || k == K::kUnroll) {
      if (args.empty() || args.size() > 2)
        bad_args(name_loc, d, "expected a loop (a Var) and an optional factor");
      const std::string v = name_of(args[0], SymbolKind::kVar, loc_of(0), d);
      if (args.size() == 2) {
        // Halide: split(v, v, v_vi, factor) (v_ui for unroll), then the directive on the inner
        // loop, which gets a name no symbol or earlier split has.
        const int64_t factor = int_of(args[1], loc_of(1), d, "the factor");
        const std::string inner = fresh_loop_name(v + (k == K::kVectorize ? "_vi" : "_ui"));
        Directive split =
            Directive::make(f, K::kSplit,
                            {DirectiveArg::expr(v), DirectiveArg::expr(v),
                             DirectiveArg::expr(inner), DirectiveArg::expr(std::to_string(factor))},
                            name_loc);
        return {split, Directive{f, d, {DirectiveArg::expr(inner)}, name_loc}};
      }
      out.args = args;
    } else if (k == K::kSplit) {
      if (args.size() != 4)
        bad_args(name_loc, d,
                 "expected (v, vo, vi, factor): the loop, its outer and inner loops, and the "
                 "factor");
      std::vector<std::string> vars;
      for (size_t i = 0; i < 3; ++i)
        vars.push_back(name_of(args[i], SymbolKind::kVar, loc_of(i), d));
      if (vars[1] == vars[2])
        bad_args(loc_of(2), d,
                 "the outer and inner loops need two names, not '" + vars[1] + "' twice");
      const int64_t factor = int_of(args[3], loc_of(3), d, "the factor");
      out.args = {args[0], args[1], args[2], DirectiveArg::expr(std::to_string(factor))};
    } else if (k == K::kComputeRoot) {
      if (!args.empty()) bad_args(name_loc, d, "takes no arguments");
    } else if (k == K::kGather) {
      if (args.size() < 2 || args.size() > 3)
        bad_args(name_loc, d, "expected (Func, Var [, GatherStrategy::Up or ::Down])");
      name_of(args[0], SymbolKind::kFunc, loc_of(0), d);
      name_of(args[1], SymbolKind::kVar, loc_of(1), d);
      DirectiveArg strategy = DirectiveArg::enumerator("GatherStrategy::Up");
      if (args.size() == 3) {
        if (args[2].kind != DirectiveArg::kEnum ||
            (args[2].text != "GatherStrategy::Up" && args[2].text != "GatherStrategy::Down"))
          bad_args(loc_of(2), d,
                   "the strategy must be GatherStrategy::Up or "
                   "GatherStrategy::Down, not " +
                       describe(args[2]));
        strategy = args[2];
      }
      auto& state = states_[f];
      if (state.gather_loc.valid())
        throw_with_note(Diagnostic(name_loc, "Func '" + f + "' gathers twice", "gather-twice"),
                        state.gather_loc, "the first gather is here");
      state.gather_loc = name_loc;
      out.args = {args[0], args[1], strategy};
    } else if (k == K::kIsolateConsumer || k == K::kIsolateConsumerChain) {
      if (args.empty() || (k == K::kIsolateConsumer && args.size() != 1))
        bad_args(
            name_loc, d,
            k == K::kIsolateConsumer ? "expected exactly one Func" : "expected at least one Func");
      std::string from = f;
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].kind == DirectiveArg::kExpr && args[i].text == f)
          bad_args(loc_of(i), d, "Func '" + f + "' cannot be its own consumer");
        isolation_target(args[i], loc_of(i), d);
        consumer_of(from, args[i].text, loc_of(i), d);
        from = args[i].text;
      }
      out.args = args;
    } else if (k == K::kScatter || k == K::kBuffer) {
      // scatter(F, v [, ScatterStrategy::...]), buffer(F, v [, BufferStrategy::...])
      if (args.size() < 2 || args.size() > 3)
        bad_args(name_loc, d, "expected (Func, Var [, strategy])");
      // T2SP scatters an ImageParam too (`feederA.scatter(a, ii)`: Halide converts it to a
      // Func); its consumer reads it from memory.
      const Symbol* input = lookup_(args[0].text);
      if (k != K::kScatter || args[0].kind != DirectiveArg::kExpr || !input ||
          input->kind != SymbolKind::kImage)
        name_of(args[0], SymbolKind::kFunc, loc_of(0), d);
      name_of(args[1], SymbolKind::kVar, loc_of(1), d);
      std::string scope = k == K::kScatter ? "ScatterStrategy::" : "BufferStrategy::";
      if (args.size() == 3 &&
          (args[2].kind != DirectiveArg::kEnum || args[2].text.rfind(scope, 0) != 0))
        bad_args(loc_of(2), d,
                 "the strategy must be a " + scope.substr(0, scope.size() - 2) + " value, not " +
                     describe(args[2]));
      out.args = args;
    } else if (k == K::kRemove) {
      if (args.empty()) bad_args(name_loc, d, "expected the loops to remove");
      for (size_t i = 0; i < args.size(); ++i) name_of(args[i], SymbolKind::kVar, loc_of(i), d);
      out.args = args;
    } else if (k == K::kMinDepth) {
      if (args.size() != 1) bad_args(name_loc, d, "expected one channel depth");
      int64_t depth = int_of(args[0], loc_of(0), d, "the depth");
      if (depth < 1 || depth >= kMaxExtent)
        bad_args(loc_of(0), d,
                 "the depth must be from 1 to 2^31 - 1, not " + std::to_string(depth));
      out.args = args;
    } else if (k == K::kIsolateProducerChain) {
      if (args.size() < 2)
        bad_args(name_loc, d, "expected the value to isolate and at least one producer Func");
      // One value, or a list of values isolated into the same producers.
      std::vector<DirectiveArg> values =
          args[0].kind == DirectiveArg::kList ? args[0].items : std::vector<DirectiveArg>{args[0]};
      if (values.empty()) bad_args(loc_of(0), d, "the list of values to isolate is empty");
      for (size_t v = 0; v < values.size(); ++v) {
        if (values[v].kind != DirectiveArg::kExpr)
          bad_args(loc_of(0), d,
                   "the value to isolate must be a Func, an ImageParam or an "
                   "expression (or a list of them), not " +
                       describe(values[v]));
        for (size_t w = 0; w < v; ++w)
          if (values[w].text == values[v].text)
            bad_args(loc_of(0), d, "'" + values[v].text + "' appears twice in the list");
      }
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i].kind == DirectiveArg::kExpr && args[i].text == f)
          bad_args(loc_of(i), d, "Func '" + f + "' cannot be its own producer");
        isolation_target(args[i], loc_of(i), d);
      }
      out.args = args;
    }
    return {out};
  }

 private:
  // `base`, or base_1, base_2, ... when a symbol or a loop of an earlier split has that name.
  std::string fresh_loop_name(const std::string& base) {
    std::set<std::string> taken;
    for (const Directive& d : program_.directives)
      if (d.is(DirectiveKind::kSplit))
        for (size_t i = 1; i < 3 && i < d.args.size(); ++i) taken.insert(d.args[i].text);
    std::string name = base;
    for (int n = 1; lookup_(name) || taken.count(name); ++n) name = base + "_" + std::to_string(n);
    return name;
  }

  // Normalises the forms of LANGUAGE.md section 5 (docs/ir.md lists the normal forms):
  //   simple: [{space vars}, {schedule coefficients} or {}, check]
  //   general: [{src}, {dst}, {{matrix row}, ...}, {{var, expr}, ...}, check]
  std::vector<DirectiveArg> normalize_space_time_transform(std::vector<DirectiveArg> args,
                                                           const std::vector<SourceLoc>& locs,
                                                           const SourceLoc& at,
                                                           const std::string& f) {
    const std::string d = directive_name(DirectiveKind::kSpaceTimeTransform);
    auto loc_of = [&](size_t i) { return i < locs.size() ? locs[i] : at; };
    DirectiveArg check = DirectiveArg::enumerator("SpaceTimeTransform::NoCheckTime");
    if (!args.empty() && args.back().kind == DirectiveArg::kEnum) {
      const std::string& c = args.back().text;
      if (c != "SpaceTimeTransform::CheckTime" && c != "SpaceTimeTransform::NoCheckTime")
        bad_args(loc_of(args.size() - 1), d,
                 "expected SpaceTimeTransform::CheckTime or "
                 "SpaceTimeTransform::NoCheckTime, not '" +
                     c + "'");
      check = args.back();
      args.pop_back();
    }
    if (args.empty()) bad_args(at, d, "expected the space loops");
    std::vector<DirectiveArg> out;
    std::vector<std::string> space;
    if (args[0].kind == DirectiveArg::kExpr) {
      // space_time_transform(i, j): every argument is a space loop.
      for (size_t i = 0; i < args.size(); ++i) {
        space.push_back(name_of(args[i], SymbolKind::kVar, loc_of(i), d));
        if (std::count(space.begin(), space.end(), space.back()) > 1)
          bad_args(loc_of(i), d, "Var '" + space.back() + "' appears twice");
      }
      out = {var_list_arg(space), DirectiveArg::list({}), check};
    } else {
      space = var_names(args[0], loc_of(0), d);
      if (space.empty()) bad_args(loc_of(0), d, "expected at least one space loop");
      bool general = args.size() >= 3 ||
                     (args.size() == 2 && args[1].kind == DirectiveArg::kList &&
                      !args[1].items.empty() && args[1].items[0].kind == DirectiveArg::kExpr &&
                      is_identifier(args[1].items[0].text) && lookup_(args[1].items[0].text) &&
                      lookup_(args[1].items[0].text)->kind == SymbolKind::kVar);
      if (!general) {
        DirectiveArg vector = DirectiveArg::list({});
        if (args.size() == 2) {
          if (args[1].kind != DirectiveArg::kList)
            bad_args(loc_of(1), d,
                     "the scheduling vector must be a list {...}, not " + describe(args[1]));
          if (args[1].items.size() != space.size())
            bad_args(loc_of(1), d,
                     "the scheduling vector has " + count(args[1].items.size(), "coefficient") +
                         " for " + count(space.size(), "space loop"));
          for (const DirectiveArg& c : args[1].items)
            vector.items.push_back(DirectiveArg::expr(
                std::to_string(int_of(c, loc_of(1), d, "a scheduling coefficient"))));
        }
        out = {args[0], vector, check};
      } else {
        out = normalize_general_transform(args, locs, at, check, &space);
      }
    }
    // A chained transform's space loops must be a proper subset of the previous ones'.
    auto& chain = states_[f].stt_space_loops;
    if (!chain.empty()) {
      const std::vector<std::string>& prev = chain.back();
      bool subset = space.size() < prev.size();
      for (const std::string& v : space)
        if (std::find(prev.begin(), prev.end(), v) == prev.end()) subset = false;
      if (!subset)
        throw Diagnostic(at,
                         "the space loops (" + join(space, ", ") +
                             ") of a chained "
                             "space_time_transform must be a proper subset of the previous "
                             "transform's (" +
                             join(prev, ", ") + ")",
                         "stt-chain");
    }
    chain.push_back(space);
    return out;
  }

  std::vector<DirectiveArg> normalize_general_transform(const std::vector<DirectiveArg>& args,
                                                        const std::vector<SourceLoc>& locs,
                                                        const SourceLoc& at,
                                                        const DirectiveArg& check,
                                                        std::vector<std::string>* space) {
    const std::string d = directive_name(DirectiveKind::kSpaceTimeTransform);
    auto loc_of = [&](size_t i) { return i < locs.size() ? locs[i] : at; };
    if (args.size() < 3 || args.size() > 4)
      bad_args(at, d, "the general form is ({src...}, {dst...}, matrix [, reverse] [, check])");
    std::vector<std::string> src = *space;
    std::vector<std::string> dst = var_names(args[1], loc_of(1), d);
    if (dst.empty() || dst.size() > src.size())
      bad_args(loc_of(1), d,
               "expected 1 to " + std::to_string(src.size()) + " destination loops, got " +
                   std::to_string(dst.size()));
    // The matrix: |dst| rows of |src| integers, flat or nested.
    const DirectiveArg& m = args[2];
    if (m.kind != DirectiveArg::kList) bad_args(loc_of(2), d, "the matrix must be a list");
    std::vector<int64_t> flat;
    bool nested = !m.items.empty() && m.items[0].kind == DirectiveArg::kList;
    if (nested) {
      if (m.items.size() != dst.size())
        bad_args(loc_of(2), d,
                 "the matrix has " + std::to_string(m.items.size()) +
                     " rows; expected one per destination loop (" + std::to_string(dst.size()) +
                     ")");
      for (const DirectiveArg& row : m.items) {
        if (row.kind != DirectiveArg::kList || row.items.size() != src.size())
          bad_args(loc_of(2), d,
                   "every matrix row must list " + std::to_string(src.size()) +
                       " integers, one per source loop");
        for (const DirectiveArg& c : row.items)
          flat.push_back(int_of(c, loc_of(2), d, "a matrix entry"));
      }
    } else {
      if (m.items.size() != dst.size() * src.size())
        bad_args(loc_of(2), d,
                 "the matrix has " + std::to_string(m.items.size()) + " entries; expected " +
                     std::to_string(dst.size()) + " x " + std::to_string(src.size()) + " = " +
                     std::to_string(dst.size() * src.size()));
      for (const DirectiveArg& c : m.items)
        flat.push_back(int_of(c, loc_of(2), d, "a matrix entry"));
    }
    DirectiveArg matrix = DirectiveArg::list({});
    for (size_t r = 0; r < dst.size(); ++r) {
      DirectiveArg row = DirectiveArg::list({});
      for (size_t c = 0; c < src.size(); ++c)
        row.items.push_back(DirectiveArg::expr(std::to_string(flat[r * src.size() + c])));
      matrix.items.push_back(row);
    }
    // The reverse mapping: (src var, expression) pairs, flat or nested.
    DirectiveArg reverse = DirectiveArg::list({});
    if (args.size() == 4) {
      const DirectiveArg& r = args[3];
      if (r.kind != DirectiveArg::kList)
        bad_args(loc_of(3), d, "the reverse mapping must be a list");
      std::vector<DirectiveArg> items;
      if (!r.items.empty() && r.items[0].kind == DirectiveArg::kList) {
        for (const DirectiveArg& pair : r.items) {
          if (pair.kind != DirectiveArg::kList || pair.items.size() != 2)
            bad_args(loc_of(3), d, "every reverse entry must be a pair {var, expression}");
          items.push_back(pair.items[0]);
          items.push_back(pair.items[1]);
        }
      } else {
        if (r.items.size() % 2 != 0)
          bad_args(loc_of(3), d, "the reverse mapping must list (var, expression) pairs");
        items = r.items;
      }
      for (size_t i = 0; i < items.size(); i += 2) {
        name_of(items[i], SymbolKind::kVar, loc_of(3), d);
        if (items[i + 1].kind != DirectiveArg::kExpr)
          bad_args(loc_of(3), d,
                   "the reverse expression for '" + items[i].text + "' must be an expression");
        reverse.items.push_back(DirectiveArg::list({items[i], items[i + 1]}));
      }
    }
    // Space loops are the destination loops except the last (the time loop).
    *space = std::vector<std::string>(dst.begin(), dst.end() - 1);
    return {var_list_arg(src), var_list_arg(dst), matrix, reverse, check};
  }
  const std::function<const Symbol*(const std::string&)>& lookup_;
  const Program& program_;
  std::map<std::string, FuncState>& states_;
};

}  // namespace

const char* describe_kind(SymbolKind k) {
  switch (k) {
    case SymbolKind::kVar:
      return "a Var";
    case SymbolKind::kConst:
      return "a constant";
    case SymbolKind::kImage:
      return "an ImageParam";
    case SymbolKind::kFunc:
      return "a Func";
    case SymbolKind::kTarget:
      return "a Target";
    case SymbolKind::kExpr:
      return "an Expr";
    case SymbolKind::kStensor:
      return "a Stensor";
  }
  return "a name";
}

void check_directive_name(const std::string& d, const SourceLoc& loc) {
  if (find_directive_decl(d)) return;
  std::string known;
  for (const DirectiveDecl* k = directive_decls_begin(); k != directive_decls_end(); ++k)
    known += std::string(known.empty() ? "" : ", ") + k->name;
  throw Diagnostic(
      loc, "unknown or unsupported directive '" + d + "' (supported: " + known + ", realize)",
      "unknown-directive");
}

std::vector<Directive> normalize_directive(const DirectiveScope& scope, const std::string& func,
                                           const std::string& name, const SourceLoc& name_loc,
                                           std::vector<DirectiveArg> args,
                                           const std::vector<SourceLoc>& arg_locs) {
  return DirectiveNormalizer(scope).normalize(func, name, name_loc, std::move(args), arg_locs);
}

}  // namespace t2s::frontend_internal
