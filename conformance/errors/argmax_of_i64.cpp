// argmax of an i64 tile (64-bit reductions are not implemented).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(argmax_of_i64) {
  return tessera::trace("k", [](tl::Ptr<int64_t> x, tl::Ptr<int32_t> out) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: argmax of i64 tiles is not supported yet; reduce i32 or f32 values (tl::cast the tile first
    //+ if its values fit)
    tl::Tile i = tl::argmax(tl::load(x + offs));
    tl::store(out + offs, i);
  }).status();
}
