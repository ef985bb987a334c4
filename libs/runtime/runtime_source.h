// The text of the runtime (t2s_runtime.h and its parts), for backends that paste it into the
// programs they generate so that each program is one self-contained file (the cpp emulation,
// the OpenCL host).
#pragma once

#include <string>

// t2s_runtime.h's comment, then its parts in dependency order, without their includes of each
// other and with each system header included once (a genrule runs embed.sh).
const char* t2s_runtime_source();

// The runtime as generated programs contain it: the text between two marker lines,
//   // ---- BEGIN t2s runtime (libs/runtime/t2s_runtime.h) ----
//   // ---- END t2s runtime ----
// which golden files elide (pipelines/golden_test.sh): the runtime has its own tests, and the
// goldens then show only what is specific to the design.
std::string t2s_runtime_block();
