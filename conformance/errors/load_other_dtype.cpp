// 'other' of the wrong type.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(load_other_dtype) {
  return tessera::trace("k", [](tl::Ptr<float> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile v = tl::load(x + offs, offs < n, offs); // expect-error: load 'other' is i32 but the buffer holds f32; they must match (use tl::cast)
    tl::store(x + offs, v, offs < n);
  }).status();
}
