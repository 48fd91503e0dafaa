// where() with an f32 condition.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(where_not_mask) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile v = tl::load(x + offs);
    // expect-error: where: the condition must be a mask (bool tile), got a tile of 64 x f32; compare to make
    //+ one
    tl::store(x + offs, tl::where(v, v, 0.0f));
  }).status();
}
