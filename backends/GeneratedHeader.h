// The C++ header `tessera compile --header` writes for kernel files: typed launch functions for
// each exported kernel and the package embedded as bytes, so an app needs only the runtime.
#pragma once

#include "tessera/compiler.hpp"

#include <string>
#include <vector>

namespace tessera::cli {

/// One exported kernel as the header presents it.
struct HeaderKernel {
  std::string name;
  std::vector<ArgSpec> args;
  std::string exportedAt; // "edges_kernels.cpp:42", for the comment
};

struct HeaderSpec {
  std::string fileName;             // the header's own name, for its comments and errors
  std::string nameSpace;            // "edges_kernels" or "app::kernels"
  std::vector<std::string> sources; // the kernel files
  std::string targets;              // "PTX sm_80; SPIR-V subgroup 8, 16, 32, 64"
  std::vector<HeaderKernel> kernels;
  std::vector<uint8_t> package; // serializePackage of the kernels
};

/// Whether every kernel and argument name can be a C++ name in the header (not a keyword, not a
/// name the generated class uses itself, no kernel twice); the error names the kernel and where
/// it was exported.
Status checkHeaderNames(const std::vector<HeaderKernel> &kernels);

/// The header's text.
std::string generateHeader(const HeaderSpec &spec);

/// "PTX sm_80; SPIR-V subgroup 8, 16, 32, 64 (native and software denormals)" for the comment.
std::string describeTargets(const Package &package);

} // namespace tessera::cli
