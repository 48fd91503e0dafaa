// full() with a dimension that is not a power of two.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(full_not_power_of_two) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t = tl::full({4, 3}, 1.0f, DType::F32); // expect-error: full: shape [4 x 3] has a dimension that is not a power of two; pad it
    tl::store(x + tl::arange(0, 4), tl::sum(t, 1));
  }).status();
}
