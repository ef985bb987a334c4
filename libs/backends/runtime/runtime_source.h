// The text of t2s_runtime.h, for backends that paste the runtime into the programs they
// generate so that each program is one self-contained file (the cpp emulation, the OpenCL host).
#pragma once

#include <string>

// The whole of libs/backends/runtime/t2s_runtime.h, byte for byte (a genrule embeds it).
const char* t2s_runtime_source();

// The runtime as generated programs contain it: the text between two marker lines,
//   // ---- BEGIN t2s runtime (libs/backends/runtime/t2s_runtime.h) ----
//   // ---- END t2s runtime ----
// which golden files elide (pipelines/golden_test.sh): the runtime has its own tests, and the
// goldens then show only what is specific to the design.
std::string t2s_runtime_block();
