// full() of 3 elements.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(full_not_power_of_two) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    // expect-error: full: shape [3] has a dimension that is not a power of two; pad it to the next power of two
    //+ and mask the tail
    tl::Tile t = tl::full({3}, 1.0f, DType::F32);
    tl::store(x + tl::arange(0, 4), tl::sum(t));
  }).status();
}
