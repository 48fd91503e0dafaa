// specializedArgs names an argument the kernel does not have.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(specialized_arg_unknown) {
  auto k = [](tl::Ptr<float> x, tl::Scalar<int32_t> n) {
    tl::Tile i = tl::arange(0, 64);
    tl::store(x + i, tl::load(x + i, i < n, 0.0f), i < n);
  };
  // expect-error: specializedArgs names 'm', which is not one of the kernel's argNames
  return tessera::trace("k", k, {.argNames = {"x", "n"}, .specializedArgs = {"m"}}).status();
}
