// specializedArgs names a float scalar: only i32 scalars become specialization constants.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(specialized_arg_not_i32) {
  auto k = [](tl::Ptr<float> x, tl::Scalar<float> s) {
    tl::Tile i = tl::arange(0, 64);
    tl::store(x + i, tl::load(x + i) * s);
  };
  // expect-error: specializedArgs names 's', which is an f32 scalar; only i32 scalars can be specialized
  return tessera::trace("k", k, {.argNames = {"x", "s"}, .specializedArgs = {"s"}}).status();
}
