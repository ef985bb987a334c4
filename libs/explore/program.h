// The polyhedral program t2s-explore works on (docs/explore.md): statements with iteration
// domains, the array elements each operation writes and reads, the original execution order,
// placements of the statements into one common iteration space (DTSE's placement phase), and
// orderings of that space (its ordering phase). It is read from a small JSON document in isl
// notation, or made from a T2S spec's merge group (from_ir.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libs/explore/relations.h"
#include "libs/ir/diagnostic.h"

namespace t2s::explore {

struct Access {
  IntMap rel;  // statement instance -> array element; one element per instance
  std::string array;
  SourceLoc loc;
};

struct Statement {
  std::string name;
  IntSet domain;
  std::vector<Access> writes, reads;
  IntMap schedule;  // instance -> time tuple: the original (textual) execution order
  SourceLoc loc;
};

// Each statement's affine map into the common iteration space (one per statement, in order).
struct Placement {
  std::string name;
  std::vector<Affine> maps;
  SourceLoc loc;
};

// Rows compared lexicographically: the first row is the ordering vector (the hyperplane that
// sweeps the space), later rows order the points of one hyperplane. A loop order is a
// permutation matrix, a row per loop, outermost first (a negative entry runs the loop down).
struct Ordering {
  std::string name;
  size_t placement = 0;
  std::vector<std::vector<int64_t>> rows;
  SourceLoc loc;
};

struct PolyProgram {
  std::string name;
  Params params;
  std::vector<std::string> space;  // names of the common space's dims
  std::vector<Statement> statements;
  std::vector<Placement> placements;
  std::vector<Ordering> orderings;
  SourceLoc loc;  // the document

  // The statement called `name`, or -1.
  int find_statement(const std::string& name) const;
  int find_placement(const std::string& name) const;
};

// Reads the JSON document `text` (docs/explore.md); locations name `file` (SourceLoc::file).
// `overrides` give parameters values that replace the document's. Throws Diagnostic at the
// offending value: rules json (syntax), explore-format (structure), explore-set (isl notation
// or a parameter), explore-access, explore-schedule, explore-placement, explore-ordering.
PolyProgram read_poly_program(const std::string& text, const std::string& file,
                              const Params& overrides = {});

// An ordering written as loop names of `space`, outermost first, each optionally preceded by
// '-' (run downwards): "x2,x1" or "x2,-x1". nullopt (and *error set, *bad the index of the
// offending name) when a name is unknown or repeated.
std::optional<std::vector<std::vector<int64_t>>> loop_order_rows(
    const std::vector<std::string>& loops, const std::vector<std::string>& space,
    std::string* error, size_t* bad = nullptr);

// "(x2, -x1)" for a loop order, "[[1, 2], [0, 1]]" otherwise.
std::string ordering_text(const std::vector<std::vector<int64_t>>& rows,
                          const std::vector<std::string>& space);

}  // namespace t2s::explore
