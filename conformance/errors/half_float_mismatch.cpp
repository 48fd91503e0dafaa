// Adding an f16 tile to an f32 tile.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(half_float_mismatch) {
  return tessera::trace("k", [](tl::Ptr<tessera::f16> h, tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::load(h + offs) + tl::load(x + offs)); // expect-error: type mismatch in '+': f16 and f32
  }).status();
}
