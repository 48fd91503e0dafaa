// & between float tiles (a common slip for combining conditions).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(bitwise_on_float) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile v = tl::load(x + offs);
    tl::store(x + offs, v & v); // expect-error: '&' needs integers or masks, got f32; to combine conditions, compare values first
  }).status();
}
