// Adding an i32 tile to an f32 tile without a cast.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(dtype_mismatch) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 128);
    // expect-error: type mismatch in '+': f32 and i32; both operands must have the same element type (convert
    //+ one with tl::cast)
    tl::Tile v = tl::load(x + offs) + offs;
    tl::store(x + offs, v);
  }).status();
}
