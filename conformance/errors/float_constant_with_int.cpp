// Multiplying an i32 tile by 1.5.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(float_constant_with_int) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: the floating-point constant 1.5 is combined with an i32 tile; write an integer constant, or
    //+ tl::cast the tile to a float type
    tl::store(x + offs, offs * 1.5);
  }).status();
}
