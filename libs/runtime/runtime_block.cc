#include <string>

#include "libs/runtime/runtime_source.h"

std::string t2s_runtime_block() {
  std::string text = t2s_runtime_source();
  if (!text.empty() && text.back() != '\n') text += "\n";
  return "// ---- BEGIN t2s runtime (libs/runtime/t2s_runtime.h) ----\n" + text +
         "// ---- END t2s runtime ----\n";
}
