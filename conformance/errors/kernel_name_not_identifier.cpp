// A kernel name with a space: names become PTX and SPIR-V entry points.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(kernel_name_not_identifier) {
  auto k = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 64), tl::load(x + tl::arange(0, 64))); };
  // expect-error: kernel name 'my kernel' is not an identifier; use letters, digits and '_'
  return tessera::trace("my kernel", k).status();
}
