// The pieces of `tessera compile` shared by the command (CompilerMain.cpp) and the tracer program
// it builds for C++ kernel files (KernelFiles.cpp).
#pragma once

#include "CompileOptions.h"

#include <span>
#include <string>
#include <vector>

/// `tessera compile`, called by the CLI.
extern "C" int tessera_compiler_main(int argc, char **argv);
/// The same, as the main of the tracer program built from C++ kernel files: it traces the
/// kernels the files exported instead of building itself again.
extern "C" int tessera_aot_main(int argc, char **argv);

namespace tessera::cli {

/// Prints "tessera compile: error: <message>" and returns the exit code 1.
int fail(const std::string &message);

/// Writes what the options ask for from traced kernels: a package (and, for kernel files, the
/// header), or one stage's text. `exportedAt` is each kernel's "file:line" for kernel files
/// (empty for tile IR). Returns the exit code.
int emitKernels(const CompileOptions &options, std::span<const TracedKernel> kernels,
                const std::vector<std::string> &exportedAt);

/// Builds the tracer program from the C++ kernel files and runs it with these arguments.
int compileKernelFiles(const CompileOptions &options, int argc, char **argv);

/// In the tracer program: traces every exported kernel and emits them (emitKernels).
int traceKernelFiles(const CompileOptions &options);

} // namespace tessera::cli
