// One must-fail kernel per file: TESSERA_ERROR_CASE(name) { return <trace or compile status>; }
// with an `expect-error` comment at the line the error must point at (see docs/errors.md).
#pragma once

#include "tessera/tessera.hpp"

#include <functional>
#include <string>
#include <vector>

namespace tessera::errors {

struct Case {
  std::string name, file;
  std::function<Status()> run;
};
std::vector<Case> &registry();

struct Register {
  Register(const char *name, const char *file, std::function<Status()> run) { registry().push_back({name, file, run}); }
};

/// The Status of compiling `kernel` for `target`, or the trace's own Status when it failed.
inline Status compileStatus(const Result<TracedKernel> &kernel, const TargetDesc &target) {
  if (!kernel)
    return kernel.status();
  return compile(*kernel, target).status();
}

} // namespace tessera::errors

namespace tl = tessera::tl;
using tessera::DType;

/// Defines case NAME (the file's name without .cpp): a function returning the Status to check.
#define TESSERA_ERROR_CASE(NAME)                                                                   \
  static tessera::Status NAME##_case();                                                            \
  static tessera::errors::Register NAME##_register(#NAME, __FILE__, NAME##_case);                  \
  static tessera::Status NAME##_case()
