// Adding f16 and f32 tiles: 16-bit floats are not promoted implicitly.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(half_float_mismatch) {
  return tessera::trace("k", [](tl::Ptr<tessera::f16> h, tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: type mismatch in '+': f16 and f32; both operands must have the same element type (convert
    //+ one with tl::cast)
    tl::store(x + offs, tl::load(h + offs) + tl::load(x + offs));
  }).status();
}
