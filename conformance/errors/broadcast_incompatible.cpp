// broadcast_to a shape the tile cannot stretch to.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(broadcast_incompatible) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 64));
    tl::Tile b = tl::broadcast_to(v, {4, 32}); // expect-error: cannot broadcast a tile of 64 x f32 to [4 x 32] in broadcast_to: dimension 1 is 64
    tl::store(x + tl::arange(0, 4), tl::sum(b, 1));
  }).status();
}
