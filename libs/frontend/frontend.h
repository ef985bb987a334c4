// The spec front end: preprocess, parse and type-check a .t2s file into the `parsed` stage.
#pragma once

#include "libs/frontend/preprocessor.h"
#include "libs/ir/program.h"
#include "libs/ir/source_manager.h"

namespace t2s {

struct FrontendOptions {
  PreprocessOptions preprocess;
  // Define PLACE0 (Place::Host) and PLACE1 (Place::Device) before the spec, as T2S's own test
  // utilities (util.h) do, so that the spec part of a T2S test program parses unchanged.
  bool t2s_builtin_macros = true;
};

// Parses the main spec registered in `sources` under "" (see SourceManager). Directives are
// recorded in program order, not applied. Throws Diagnostic on the first error.
Program parse_spec(SourceManager& sources, const FrontendOptions& options);

}  // namespace t2s
