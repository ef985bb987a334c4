#include "libs/exec/jit/engine.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "libs/ir/diagnostic.h"
#include "llvm/ExecutionEngine/JITLink/EHFrameSupport.h"
#include "llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

namespace t2s::jit {
namespace {

// The source's name in clang's command line and diagnostics (it is never read from disk).
constexpr const char* kUnitFileName = "t2s_jit_unit.cpp";

// LLVM's install prefix (Debian's llvm-14); T2S_LLVM_PREFIX overrides it, for an LLVM 14
// installed elsewhere and for tests of the refusal when its headers are missing.
std::string llvm_prefix() {
  const char* env = std::getenv("T2S_LLVM_PREFIX");
  return env && *env ? env : "/usr/lib/llvm-14";
}

// The driver options of every unit: Halide's arithmetic bit for bit needs no contraction of a
// multiply and an add into an FMA (the emulation's documented g++ flags); thread_local variables
// are emulated (__emutls_get_address in libgcc_s), since the JIT linker has no TLS support.
const std::vector<std::string>& driver_options() {
  static const std::vector<std::string> options = {"-x",
                                                   "c++",
                                                   "-std=c++17",
                                                   "-O2",
                                                   "-ffp-contract=off",
                                                   "-march=native",
                                                   "-fPIC",
                                                   "-pthread",
                                                   "-femulated-tls",
                                                   "-w",
                                                   "-c",
                                                   kUnitFileName};
  return options;
}

void llvm_fatal_error(void*, const char* reason, bool) {
  // LLVM cannot go on; no exception may cross its frames.
  std::fprintf(stderr, "t2s-run: internal error in the JIT engine (LLVM): %s\n", reason);
  std::fflush(stderr);
  std::_Exit(3);
}

void initialize_llvm_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(llvm_fatal_error, nullptr);
    if (llvm::InitializeNativeTarget() || llvm::InitializeNativeTargetAsmPrinter())
      throw JitUnavailable("--engine jit: LLVM has no code generator for this machine (" +
                           llvm::sys::getProcessTriple() + ")");
  });
}

std::string to_string(llvm::Error error) { return llvm::toString(std::move(error)); }

// A diagnostics engine that prints into `text`.
struct CapturedDiagnostics {
  std::string text;
  llvm::raw_string_ostream stream{text};
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options{new clang::DiagnosticOptions};
  clang::TextDiagnosticPrinter* printer = new clang::TextDiagnosticPrinter(stream, options.get());
  clang::DiagnosticsEngine engine{
      llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs>(new clang::DiagnosticIDs), options.get(),
      printer, /*ShouldOwnClient=*/true};
  std::string str() {
    stream.flush();
    return text;
  }
};

Toolchain build_toolchain() {
  initialize_llvm_once();
  CapturedDiagnostics diagnostics;
  const std::string clang_path = llvm_prefix() + "/bin/clang++";
  clang::driver::Driver driver(clang_path, llvm::sys::getProcessTriple(), diagnostics.engine);
  driver.setCheckInputsExist(false);
  std::vector<const char*> argv = {clang_path.c_str()};
  for (const std::string& o : driver_options()) argv.push_back(o.c_str());
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->getJobs().size() != 1)
    throw InternalError("--engine jit: clang's driver gives no single compile job: " +
                        diagnostics.str());
  const clang::driver::Command& job = *compilation->getJobs().begin();
  Toolchain toolchain;
  for (const char* a : job.getArguments()) toolchain.cc1_arguments.push_back(a);

  auto invocation = std::make_shared<clang::CompilerInvocation>();
  std::vector<const char*> cc1;
  for (const std::string& a : toolchain.cc1_arguments) cc1.push_back(a.c_str());
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, cc1, diagnostics.engine))
    throw InternalError("--engine jit: clang refuses its own command line: " + diagnostics.str());
  const clang::HeaderSearchOptions& search = invocation->getHeaderSearchOpts();
  toolchain.resource_dir = search.ResourceDir;
  for (const auto& entry : search.UserEntries) toolchain.include_dirs.push_back(entry.Path);

  // The headers are found at run time: refuse clearly rather than fail on `#include <vector>`.
  if (!llvm::sys::fs::exists(toolchain.resource_dir + "/include/stddef.h"))
    throw JitUnavailable("--engine jit: clang's headers are missing (no " + toolchain.resource_dir +
                         "/include/stddef.h; install libclang-common-14-dev, or set "
                         "T2S_LLVM_PREFIX to LLVM 14's install prefix); use --engine interp");
  bool has_cxx_library = false;
  for (const std::string& dir : toolchain.include_dirs)
    has_cxx_library = has_cxx_library || llvm::sys::fs::exists(dir + "/vector");
  if (!has_cxx_library)
    throw JitUnavailable(
        "--engine jit: the C++ standard library's headers are missing (no <vector> in " +
        std::to_string(toolchain.include_dirs.size()) +
        " system include directories; install libstdc++-12-dev); use --engine interp");
  return toolchain;
}

}  // namespace

const Toolchain& find_toolchain() {
  // Found once; a refusal is given again on every call.
  static std::once_flag once;
  static std::unique_ptr<Toolchain> found;
  static std::string refusal;
  std::call_once(once, [] {
    try {
      found = std::make_unique<Toolchain>(build_toolchain());
    } catch (const JitUnavailable& e) {
      refusal = e.what();
    }
  });
  if (!found) throw JitUnavailable(refusal);
  return *found;
}

struct CompiledUnit::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

CompiledUnit::CompiledUnit(std::unique_ptr<State> state) : state_(std::move(state)) {}

CompiledUnit::~CompiledUnit() {
  if (llvm::Error e = state_->jit->deinitialize(state_->jit->getMainJITDylib()))
    llvm::consumeError(std::move(e));  // static destructors: nothing left to report to
}

void* CompiledUnit::function(const std::string& name) {
  auto symbol = state_->jit->lookup(name);
  if (!symbol)
    throw InternalError("--engine jit: no function " + name + ": " + to_string(symbol.takeError()));
  return reinterpret_cast<void*>(static_cast<uintptr_t>(symbol->getAddress()));
}

std::unique_ptr<CompiledUnit> compile_unit(const std::string& source, const std::string& file_name,
                                           const std::vector<std::string>& options) {
  const Toolchain& toolchain = find_toolchain();
  CapturedDiagnostics diagnostics;
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  std::vector<const char*> cc1;
  for (const std::string& a : toolchain.cc1_arguments) cc1.push_back(a.c_str());
  for (const std::string& o : options) cc1.push_back(o.c_str());
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, cc1, diagnostics.engine))
    throw InternalError("--engine jit: bad compiler options: " + diagnostics.str());
  invocation->getFrontendOpts().DisableFree = false;  // the driver's -disable-free leaks
  invocation->getPreprocessorOpts().addRemappedFile(
      kUnitFileName, llvm::MemoryBuffer::getMemBufferCopy(source, file_name).release());

  clang::CompilerInstance compiler;
  compiler.setInvocation(invocation);
  compiler.createDiagnostics(
      new clang::TextDiagnosticPrinter(diagnostics.stream, &invocation->getDiagnosticOpts()),
      /*ShouldOwnClient=*/true);
  auto context = std::make_unique<llvm::LLVMContext>();
  clang::EmitLLVMOnlyAction action(context.get());
  std::unique_ptr<llvm::Module> module;
  if (compiler.ExecuteAction(action)) module = action.takeModule();
  if (!module)
    throw InternalError("--engine jit: " + file_name + " does not compile:\n" +
                        diagnostics.str().substr(0, 4000));

  auto machine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine) throw JitUnavailable("--engine jit: " + to_string(machine.takeError()));
  machine->setRelocationModel(llvm::Reloc::PIC_);
  machine->setCodeModel(llvm::CodeModel::Small);
  // -O0 (t2s-run --jit-opt 0) is for programs whose compile time is their cost: LLVM's fast
  // instruction selector as well as no IR optimization.
  machine->setCodeGenOptLevel(invocation->getCodeGenOpts().OptimizationLevel == 0
                                  ? llvm::CodeGenOpt::None
                                  : llvm::CodeGenOpt::Default);
  machine->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;  // as -ffp-contract=off
  machine->getOptions().EmulatedTLS = true;                          // as -femulated-tls
  machine->getOptions().ExplicitEmulatedTLS = true;
  // JITLink, not RuntimeDyld: position-independent code's GOT and DW.ref.* personality
  // references, and exception frames registered with the process's unwinder.
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*machine))
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession& session,
                 const llvm::Triple&) -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto memory = llvm::jitlink::InProcessMemoryManager::Create();
                if (!memory) return memory.takeError();
                auto layer =
                    std::make_unique<llvm::orc::ObjectLinkingLayer>(session, std::move(*memory));
                layer->addPlugin(std::make_unique<llvm::orc::EHFrameRegistrationPlugin>(
                    session, std::make_unique<llvm::jitlink::InProcessEHFrameRegistrar>()));
                return std::unique_ptr<llvm::orc::ObjectLayer>(std::move(layer));
              })
          .create();
  if (!jit) throw InternalError("--engine jit: " + to_string(jit.takeError()));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) throw InternalError("--engine jit: " + to_string(process.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  if (llvm::Error e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    throw InternalError("--engine jit: " + to_string(std::move(e)));
  auto state = std::make_unique<CompiledUnit::State>();
  state->jit = std::move(*jit);
  if (llvm::Error e = state->jit->initialize(state->jit->getMainJITDylib()))
    throw InternalError("--engine jit: static constructors: " + to_string(std::move(e)));
  return std::unique_ptr<CompiledUnit>(new CompiledUnit(std::move(state)));
}

}  // namespace t2s::jit
