// Adding 300 to an i8 tile: the constant does not fit in i8.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(constant_out_of_range) {
  return tessera::trace("k", [](tl::Ptr<int8_t> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: the constant 300 does not fit in i8; use a constant in its range, or tl::cast the tile to a
    //+ wider type first
    tl::store(x + offs, tl::load(x + offs) + 300);
  }).status();
}
