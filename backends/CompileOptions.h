// The options of `tessera compile`, parsed and checked once up front: by the command itself and,
// for C++ kernel files, again by the tracer program it builds (which receives the same arguments).
#pragma once

#include "tessera/compiler.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tessera::cli {

struct CompileOptions {
  std::vector<std::string> inputs;      // one .mlir (or '-'), or C++ kernel files
  bool kernelFiles = false;             // the inputs are C++ (.cpp, .cc, .cxx, .C)
  std::string output;                   // -o
  std::string header;                   // --header (C++ kernel files)
  std::string nameSpace;                // --namespace (default: the header's file name)
  std::string depfile;                  // --depfile (C++ kernel files, for build systems)
  std::string emitName = "package";     // --emit
  std::optional<Stage> stage;           // unset for a package
  std::vector<std::string> targetNames; // --target, resolved to the defaults
  std::vector<std::string> chips;       // --chip, comma separated
  uint32_t ptxVersion = 0;
  std::vector<uint32_t> subgroups;                // --subgroup-size
  std::optional<std::vector<bool>> softDenormals; // --denormals; unset: chosen per kernel
  // BF16*: bf16 dots on them too; *Workgroup: block matmuls on workgroup-scope matrices (a variant)
  enum class CoopMatrix { None, Staged, Lanes, BF16, BF16Lanes, LanesWorkgroup, BF16LanesWorkgroup };
  std::vector<CoopMatrix> coopMatrix{CoopMatrix::None}; // --coopmat (portable kernels: never)
  std::vector<std::string> cxxFlags;              // -I... and -D... for the C++ compiler

  bool package() const { return !stage; }
};

/// The usage text of `tessera compile`.
extern const char *const kCompileUsage;

/// Parses and checks everything that can be checked before reading the inputs; an error says
/// what to change. Sets `help` for -h / --help (then nothing else is checked).
Result<CompileOptions> parseCompileOptions(int argc, char **argv, bool &help);

/// The targets `kernel` is compiled for. Unless --denormals says otherwise, a portable kernel
/// gets native and software-denormal SPIR-V (the runtime picks per device) and a fast kernel
/// only native code (it never depends on denormals).
std::vector<TargetDesc> targetsFor(const CompileOptions &options, const TracedKernel &kernel);

} // namespace tessera::cli
