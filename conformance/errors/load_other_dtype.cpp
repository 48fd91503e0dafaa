// A load whose 'other' tile is i32 on a float buffer.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(load_other_dtype) {
  return tessera::trace("k", [](tl::Ptr<float> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: load 'other' is i32 but the buffer holds f32; they must match (use tl::cast)
    tl::Tile v = tl::load(x + offs, offs < n, offs);
    tl::store(x + offs, v, offs < n);
  }).status();
}
