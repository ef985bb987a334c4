// The golden IR of testdata/golden/<spec>/<stage>.json for tests (testonly): real IR of real
// specs, the files `//testdata:golden_test` holds the tools to, rather than copies kept in test
// sources. A test that needs IR no golden has builds it from a golden with a small documented
// edit (read_golden_text, then read_program) where it can.
//
// The files are the runfiles of //testdata:golden_ir (a data dependency of this library): under
// `bazel test` they are found under $TEST_SRCDIR/t2s/ (t2s as the main or an external
// repository); without TEST_SRCDIR, relative to the working directory (the repository root).
#pragma once

#include <string>
#include <vector>

#include "libs/ir/program.h"

namespace t2s {
namespace testing {

// The path to open for `path`, a path relative to the t2s repository root
// ("testdata/golden/gemm/stt.json").
std::string runfile(const std::string& path);

// The bytes of testdata/golden/<spec>/<stage>.json (`stage`: parsed, merged, stt, vectorized,
// gathered). Throws std::runtime_error, naming the path, when the file cannot be read.
std::string read_golden_text(const std::string& spec, const std::string& stage);

// read_program of that file, named "testdata/golden/<spec>/<stage>.json" in diagnostics.
Program load_golden_ir(const std::string& spec, const std::string& stage);

// The specs with a golden directory (testdata/golden/*/ holding `stage`.json), sorted; with an
// empty `stage`, every golden directory.
std::vector<std::string> golden_specs(const std::string& stage = "");

}  // namespace testing
}  // namespace t2s
