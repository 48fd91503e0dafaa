// Using a default-constructed tl::Tile that no operation produced.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(default_tile) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t;
    // expect-error: this tile was not produced by the kernel being traced (a default-constructed tl::Tile, or
    //+ one kept from another trace); make it with a tile-language operation inside this kernel
    tl::store(x + tl::arange(0, 64), t + 1.0f);
  }).status();
}
