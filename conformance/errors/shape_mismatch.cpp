// Adding tiles whose shapes do not broadcast: [64, 32] + [32, 64].
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(shape_mismatch) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile a = tl::full({64, 32}, 1.0f, DType::F32), b = tl::full({32, 64}, 2.0f, DType::F32);
    // expect-error: shape mismatch in '+': a tile of 64 x 32 x f32 and a tile of 32 x 64 x f32; each dimension
    //+ must match or be 1 (Triton's broadcasting rules): reshape or expand_dims one operand so its dimensions
    //+ line up
    tl::Tile c = a + b;
    tl::store(x + tl::arange(0, 32), tl::sum(c, 0));
  }).status();
}
