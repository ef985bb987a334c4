// The verifier's checks of directives (docs/ir.md, "Well-formedness": ir-directive,
// ir-unknown-func for directive arguments, ir-isolation).
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "libs/ir/strings.h"
#include "libs/ir/verify_internal.h"

namespace t2s::verify_internal {

void fail(const std::string& file, const std::string& where, const std::string& message,
          const std::string& rule, const SourceLoc& entity) {
  Diagnostic d(SourceLoc{file, 0, 0}, where + ": " + message, rule);
  if (entity.valid()) d.add_note(entity, "the IR entity comes from here");
  throw d;
}

// A directive has as many arguments as its normal form (what t2s-parse writes): the passes
// read them by position (the declaration, libs/ir/directive_decl.h). Names no declaration has
// are refused by the front end.
void directive_shape(const Program& program, size_t i, const std::string& file) {
  const Directive& d = program.directives[i];
  const DirectiveDecl* decl = d.decl();
  if (!decl) return;
  const size_t n = d.args.size();
  if (n < decl->min_args || n > decl->max_args || n % decl->args_in_groups_of != 0)
    fail(file, "directives[" + std::to_string(i) + "]",
         d.name + " of '" + d.func + "' has " + std::to_string(n) + " argument" +
             (n == 1 ? "" : "s") + "; it takes " + decl->expected,
         "ir-directive", d.loc);
}

// The arguments of a directive that name Funcs (merged, isolated, gathered) name Funcs of the
// program (or, scatter's, an input): the passes look them up.
void directive_funcs(const Program& program, size_t i, const std::string& file) {
  const Directive& d = program.directives[i];
  const auto [first, last] = d.func_args();
  for (size_t a = first; a < last; ++a) {
    const DirectiveArg& arg = d.args[a];
    // scatter's producer may be an input its consumer reads (T2SP's `feederA.scatter(a, ii)`).
    if (d.is(DirectiveKind::kScatter) && arg.kind == DirectiveArg::kExpr &&
        program.find_input(arg.text))
      continue;
    if (arg.kind != DirectiveArg::kExpr || !program.find_func(arg.text))
      fail(file, "directives[" + std::to_string(i) + "]",
           d.name + " of '" + d.func + "': argument " + std::to_string(a + 1) + " (" +
               (arg.kind == DirectiveArg::kExpr ? "'" + arg.text + "'" : "a list") +
               ") names no Func of the program",
           "ir-unknown-func", d.loc);
  }
}

// A Func an isolation directive defines is defined once: it has no definition and no other
// isolation directive defines it. And no chain of isolations leads from a Func back to
// itself: t2s-merge walks each chain back to the Func it starts from.
void isolations(const Program& program, const std::string& file) {
  struct Source {
    std::string func;  // the Func it copies; empty for the first of a producer chain
    size_t directive;
  };
  std::map<std::string, Source> source;  // isolated Func -> where its values come from
  for (size_t i = 0; i < program.directives.size(); ++i) {
    const Directive& d = program.directives[i];
    const std::string where = "directives[" + std::to_string(i) + "]";
    std::string from = d.is(DirectiveKind::kIsolateProducerChain) ? "" : d.func;
    for (const std::string& f : d.defined_funcs()) {
      if (program.find_func(f)->definition)  // directive_funcs checked that it is a Func
        fail(file, where,
             d.name + " of '" + d.func + "' defines '" + f + "', which has a definition",
             "ir-isolation", d.loc);
      auto [it, fresh] = source.emplace(f, Source{from, i});
      if (!fresh)
        fail(file, where,
             d.name + " of '" + d.func + "' defines '" + f + "', which directives[" +
                 std::to_string(it->second.directive) + "] defines already",
             "ir-isolation", d.loc);
      from = f;
    }
  }
  // Each Func has at most one source, so the sources from a Func either end or come back.
  for (const auto& [f, first] : source) {
    std::vector<std::string> chain{f};
    for (std::string s = first.func; !s.empty() && chain.size() <= source.size();) {
      chain.push_back(s);
      if (s == f) {
        std::reverse(chain.begin(), chain.end());
        fail(file, "directives[" + std::to_string(first.directive) + "]",
             "the isolations form a cycle (" + join(chain, " -> ") +
                 "): a consumer chain starts from a Func with a definition",
             "ir-isolation", program.directives[first.directive].loc);
      }
      auto it = source.find(s);
      s = it == source.end() ? "" : it->second.func;
    }
  }
}

bool defined_by_isolation(const Program& program, const std::string& func) {
  for (const Directive& d : program.directives)
    for (const std::string& f : d.defined_funcs())
      if (f == func) return true;
  return false;
}

}  // namespace t2s::verify_internal
