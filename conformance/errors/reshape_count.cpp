// reshape to a shape with another element count.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reshape_count) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 64));
    tl::Tile r = tl::reshape(v, {8, 4}); // expect-error: 64 elements cannot become 32
    tl::store(x + tl::arange(0, 8), tl::sum(r, 1));
  }).status();
}
