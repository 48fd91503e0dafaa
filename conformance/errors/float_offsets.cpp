// Pointer offsets that are floats.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(float_offsets) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile f = tl::cast(tl::arange(0, 64), DType::F32);
    tl::store(x + f, f); // expect-error: pointer offsets must be an i32 tile, got a tile of 64 x f32
  }).status();
}
