// The environment variables that change what compile() makes (Compiler.cpp reads them), each
// with the name it takes in a kernel cache key (KernelCache.cpp). One list: compile() reads a
// variable only through compileVariable, which takes only a name on the list (checked as the
// compiler is built), so the cache keys on every variable that changes the code.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <string_view>

namespace tessera::backend {

struct CompileVariable {
  std::string_view variable, key;
};

inline constexpr CompileVariable kCompileVariables[] = {
    {"TESSERA_FAULT", "fault"},
    {"TESSERA_TENSOR_COPIES_A", "tensor-copies-a"},
    {"TESSERA_TENSOR_COPY_ISSUE", "tensor-copy-issue"},
    {"TESSERA_TENSOR_COPY_RELEASE", "tensor-copy-release"},
    {"TESSERA_PINGPONG", "pingpong"},
    {"TESSERA_PRODUCER_WARP", "producer-warp"},
    {"TESSERA_STAGING_BARRIER", "staging-barrier"},
    {"TESSERA_ASYNC_COPY_FENCE", "async-copy-fence"},
    {"TESSERA_COPIES_AFTER_MMA", "copies-after-mma"},
    {"TESSERA_STORE_STAGING", "store-staging"},
    {"TESSERA_FMA_LAYOUT", "fma-layout"},
    {"TESSERA_FMA_VECTOR_A", "fma-vector-a"},
    {"TESSERA_COOP_HOIST_A", "coop-hoist-a"},
    {"TESSERA_COOP_A_LANES", "coop-a-lanes"},
    {"TESSERA_FMA_HALVES", "fma-halves"},
    {"TESSERA_FMA_ASYNC_COPIES", "fma-async-copies"},
    {"TESSERA_FMA_UNROLL", "fma-unroll"},
    {"TESSERA_WAIT_BEFORE_COPIES", "wait-before-copies"},
    {"TESSERA_SPECIALIZE_SIZES", "specialize-sizes"}};

/// A name on kCompileVariables, found as the program compiles: any other name does not compile.
struct CompileVariableName {
  std::size_t index;
  consteval CompileVariableName(const char *name) : index(std::size(kCompileVariables)) {
    for (std::size_t i = 0; i < std::size(kCompileVariables); ++i)
      if (kCompileVariables[i].variable == name)
        index = i;
    if (index == std::size(kCompileVariables))
      throw "not on kCompileVariables (backends/CompileVariables.h)";
  }
};

/// The variable's value, or null where it is not set.
inline const char *compileVariable(CompileVariableName name) {
  return std::getenv(kCompileVariables[name.index].variable.data());
}

} // namespace tessera::backend
