// '&' of f32 tiles.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(bitwise_on_float) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile v = tl::load(x + offs);
    // expect-error: '&' needs integers or masks, got f32; to combine conditions, compare values first, e.g.
    //+ (offs < n) & (offs >= 0)
    tl::store(x + offs, v & v);
  }).status();
}
