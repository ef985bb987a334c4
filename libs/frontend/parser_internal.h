// Internal to libs/frontend's parser: the statement parser that parser.cc (tokens, names,
// end-of-file checks), parser_statements.cc and parser_directive_calls.cc define in parts.
// frontend.h is the interface.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "libs/frontend/directives.h"
#include "libs/frontend/stensors.h"
#include "libs/frontend/token.h"
#include "libs/ir/expr_parser.h"
#include "libs/ir/program.h"
#include "libs/ir/typing.h"

namespace t2s::frontend_internal {

// Reads a whole spec, one statement at a time, into the parsed stage. Throws Diagnostic.
class SpecParser : public NameResolver {
 public:
  explicit SpecParser(const std::vector<Token>& tokens);

  Program parse();

  // NameResolver: what identifiers mean inside expressions.
  Expr identifier(const std::string& name, const SourceLoc& loc) override;
  CallTarget call(const std::string& name, size_t nargs, const SourceLoc& loc) override;

 private:
  // Token helpers (parser.cc)
  [[noreturn]] static void throw_with_note(Diagnostic d, const SourceLoc& note_loc,
                                           const std::string& note);
  [[noreturn]] void syntax_error(const std::string& message);
  std::string found();
  bool at_punct(const char* p, size_t ahead = 0);
  bool at_ident(const char* p, size_t ahead = 0);
  bool consume(const char* p);
  void expect(const char* p, const std::string& context);
  ExprToken expect_identifier(const std::string& what);
  void skip_balanced(const char* open, const char* close);
  const Symbol* lookup(const std::string& name) const;
  void check_arity(const std::string& name, const char* what, size_t expected, size_t got,
                   const SourceLoc& loc);
  void declare(const ExprToken& name, SymbolKind kind, int64_t value = 0, Expr expr = nullptr);
  Expr typed_expr();
  int64_t constant(const char* what, bool allow_bool = false);
  static std::string count(size_t n, const std::string& noun);

  // Statements and definitions (parser_statements.cc)
  void statement();
  void var_decl();
  void const_decl();
  void expr_decl();
  void image_decl();
  void check_image_name(const std::string& name);
  Place place();
  std::vector<std::string> var_list(const std::string& what, std::vector<SourceLoc>* locs);
  void func_decl(bool ure = false);
  bool at_type_in_braces();
  void check_distinct(const std::vector<std::string>& names, const std::vector<SourceLoc>& locs,
                      const std::string& what);
  void if_statement();
  void branch();
  void skip_branch();
  void target_decl();
  void buffer_realize();
  void definition();
  void check_select_without_false(const Expr& e, bool whole_rhs);

  // Directive calls and realize (parser_directive_calls.cc)
  void directive_chain();
  DirectiveArg raw_arg(std::vector<SourceLoc>* locs, int depth = 0);
  std::vector<DirectiveArg> raw_args(std::vector<SourceLoc>* locs);
  void realize(const ExprToken& func, const SourceLoc& loc);
  bool is_target_arg();
  void realize_target();

  // Stensors (parser_stensors.cc)
  void stensor_decl();
  void stensor_methods(Stensor& s);
  void stensor_chain();
  void stensor_statement(const ExprToken& handle);
  void stensor_compile(const ExprToken& handle, const SourceLoc& loc);
  void add_directive(const std::string& func, const std::string& name, const SourceLoc& loc,
                     std::vector<DirectiveArg> args, const std::vector<SourceLoc>& locs);

  // End of file (parser.cc)
  void finish();

  VectorTokenSource ts_;
  Program program_;
  std::unordered_map<std::string, Symbol> symbols_;
  std::map<std::string, FuncState> states_;
  std::vector<Stensor> stensors_;  // each Stensor's current state (Symbol::value indexes it)
  std::vector<StensorChain> chains_;
  const char* constant_context_ = nullptr;
};

}  // namespace t2s::frontend_internal
