// One must-fail kernel per file: TESSERA_ERROR_CASE(name) { return <trace or compile status>; }
// with a `// expect-error: <text>` comment on the line the error must point at.
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

} // namespace tessera::errors

namespace tl = tessera::tl;
using tessera::DType;

#define TESSERA_ERROR_CASE(NAME)                                                                   \
  static tessera::Status NAME##_case();                                                            \
  static tessera::errors::Register NAME##_register(#NAME, __FILE__, NAME##_case);                  \
  static tessera::Status NAME##_case()
