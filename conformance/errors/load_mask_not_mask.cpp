// A load whose mask is an i32 tile.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(load_mask_not_mask) {
  return tessera::trace("k", [](tl::Ptr<float> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: load mask must be a mask (bool tile), got a tile of 64 x i32; compare to make one, e.g.
    //+ offs < n
    tl::Tile v = tl::load(x + offs, offs);
    tl::store(x + offs, v, offs < n);
  }).status();
}
