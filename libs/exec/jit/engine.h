// The JIT engine's compiler: compiles one C++17 translation unit in process with clang's
// libraries (clang::driver for the system's include paths, clang::CompilerInstance with
// EmitLLVMOnlyAction) and links it in process with LLVM's ORC JIT (LLJIT). docs/jit.md.
//
// Symbols the code does not define resolve to the process's global scope: libstdc++, libgcc_s
// and libc as shared libraries (those of libt2s_jit.so, loaded RTLD_GLOBAL, or of a test that
// links this directly), so the JIT'd code shares one C++ runtime and unwinder with the engine
// (exceptions thrown and caught in JIT'd code, across its threads).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "libs/exec/jit/unavailable.h"

namespace t2s::jit {

// Where clang finds its own headers and the C++ standard library's, found once per process by
// clang's driver from LLVM's install prefix; throws JitUnavailable when either is missing.
struct Toolchain {
  std::string resource_dir;                // clang's resource directory (stddef.h, ...)
  std::vector<std::string> include_dirs;   // system include directories, in search order
  std::vector<std::string> cc1_arguments;  // the driver's -cc1 command line for a source file
};
const Toolchain& find_toolchain();

// A compiled and linked translation unit, its static constructors run; the destructor runs its
// static destructors and frees its code.
class CompiledUnit {
 public:
  ~CompiledUnit();
  CompiledUnit(const CompiledUnit&) = delete;
  CompiledUnit& operator=(const CompiledUnit&) = delete;

  // The address of the extern "C" function `name`; InternalError when it is not defined.
  void* function(const std::string& name);

  struct State;

 private:
  explicit CompiledUnit(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
  friend std::unique_ptr<CompiledUnit> compile_unit(const std::string&, const std::string&,
                                                    const std::vector<std::string>&);
};

// Compiles `source` (C++17, -O2, -ffp-contract=off, for the host CPU) named `file_name` in
// diagnostics, with the extra compiler (cc1) options `options` (-D..., -O0 to -O3, which
// replaces -O2 and sets the code generator's level: none at -O0), and links it. Throws
// JitUnavailable (unavailable.h), or InternalError with clang's diagnostics when it does not
// compile.
std::unique_ptr<CompiledUnit> compile_unit(const std::string& source, const std::string& file_name,
                                           const std::vector<std::string>& options = {});

}  // namespace t2s::jit
