// exp of an i32 tile: math functions take floats.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(exp_of_int) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: exp needs a float tile, got a tile of 64 x i32; convert it first, e.g. tl::cast(x,
    //+ tessera::DType::F32)
    tl::Tile e = tl::exp(tl::load(x + offs));
    tl::store(x + offs, e);
  }).status();
}
