// Addressing a buffer with f32 offsets.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(float_offsets) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile f = tl::cast(tl::arange(0, 64), DType::F32);
    // expect-error: pointer offsets must be an i32 tile, got a tile of 64 x f32; offsets count elements: build
    //+ them from tl::arange and program_id, or tl::cast them to tessera::DType::I32
    tl::store(x + f, f);
  }).status();
}
