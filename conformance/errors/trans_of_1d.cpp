// Transposing a 1-D tile.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(trans_of_1d) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 64));
    // expect-error: trans needs a 2-D tile, got a tile of 64 x f32; use permute for other ranks
    tl::Tile t = tl::trans(v);
    tl::store(x + tl::arange(0, 64), t);
  }).status();
}
