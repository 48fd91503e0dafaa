// A 2048 x 1024 tile: more than the 2^20 elements a tile may hold.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(tile_too_large) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    // expect-error: a tile of 2097152 elements is larger than the 2^20 a tile may hold; split the work over
    //+ more programs
    tl::Tile t = tl::zeros({2048, 1024}, DType::F32);
    tl::store(x + tl::arange(0, 1024), tl::sum(t, 0));
  }).status();
}
