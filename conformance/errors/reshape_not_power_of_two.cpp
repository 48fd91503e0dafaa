// reshape to [6, 2]: every dimension of a tile is a power of two.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reshape_not_power_of_two) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 16));
    // expect-error: reshape: shape [6 x 2] has a dimension that is not a power of two; pad it to the next power
    //+ of two and mask the tail
    tl::Tile r = tl::reshape(v, {6, 2});
    tl::store(x + tl::arange(0, 2), tl::sum(r, 0));
  }).status();
}
