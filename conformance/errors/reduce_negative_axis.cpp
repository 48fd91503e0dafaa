// A negative axis beyond the rank.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reduce_negative_axis) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t = tl::full({8, 16}, 1.0f, DType::F32);
    tl::Tile m = tl::max(t, -3); // expect-error: max: axis -3 is out of range for a tile of rank 2
    tl::store(x + tl::arange(0, 8), m);
  }).status();
}
