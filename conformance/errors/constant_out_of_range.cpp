// A constant that does not fit the tile's type.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(constant_out_of_range) {
  return tessera::trace("k", [](tl::Ptr<int8_t> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::load(x + offs) + 300); // expect-error: the constant 300 does not fit in i8
  }).status();
}
