#include "tests/fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "libs/cli/tool.h"
#include "libs/ir/diagnostic.h"

namespace t2s::fuzz {

void run_one_input(const char* target, const std::function<void()>& body) {
  try {
    run_with_large_stack(body);
  } catch (const Diagnostic&) {
    // A located user error: what a tool reports with exit status 1.
  } catch (const IoError&) {
    // An unreadable file (an #include): exit status 1 as well.
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: finding: out of memory (a tool exits 3)\n", target);
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: finding: internal error (a tool exits 3): %s\n", target, e.what());
    std::abort();
  }
}

}  // namespace t2s::fuzz
