#include "libs/frontend/token.h"

namespace t2s {

Diagnostic& add_macro_notes(Diagnostic& diag, const Token& token) {
  for (const MacroOrigin& origin : token.macro_chain) {
    if (origin.definition.valid()) {
      diag.add_note(origin.definition, "expanded from macro '" + origin.macro + "'");
    } else {
      diag.add_note(SourceLoc{},
                    "expanded from macro '" + origin.macro + "' defined on the command line");
    }
  }
  return diag;
}

}  // namespace t2s
