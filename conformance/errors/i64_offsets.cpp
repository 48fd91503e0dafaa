// Addressing a buffer with i64 offsets.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(i64_offsets) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::cast(tl::arange(0, 64), DType::I64);
    // expect-error: pointer offsets must be an i32 tile, got a tile of 64 x i64; cast them with tl::cast(offs,
    //+ tessera::DType::I32)
    tl::Tile v = tl::load(x + offs);
    tl::store(x + tl::arange(0, 64), v);
  }).status();
}
