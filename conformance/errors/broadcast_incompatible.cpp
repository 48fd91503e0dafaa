// broadcast_to from 64 elements to [4, 32].
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(broadcast_incompatible) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile v = tl::load(x + tl::arange(0, 64));
    // expect-error: cannot broadcast a tile of 64 x f32 to [4 x 32] in broadcast_to: dimension 1 is 64; only
    //+ dimensions of size 1 repeat: reshape or expand_dims the tile so its dimensions line up
    tl::Tile b = tl::broadcast_to(v, {4, 32});
    tl::store(x + tl::arange(0, 4), tl::sum(b, 1));
  }).status();
}
