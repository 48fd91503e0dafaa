// reshape that changes the number of elements (64 to 8 x 4).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reshape_count) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 64));
    // expect-error: reshape of a tile of 64 x f32 to [8 x 4]: 64 elements cannot become 32; the new shape must
    //+ hold the same number of elements
    tl::Tile r = tl::reshape(v, {8, 4});
    tl::store(x + tl::arange(0, 8), tl::sum(r, 1));
  }).status();
}
