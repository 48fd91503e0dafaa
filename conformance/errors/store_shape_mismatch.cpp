// Storing a 2-D tile of values through 1-D offsets.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(store_shape_mismatch) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    // expect-error: shape mismatch in store: the offsets are a tile of 64 x i32 but the values are a tile of 4
    //+ x 64 x f32; the values must broadcast to the offsets (a scalar, or a tile of the offsets' shape)
    tl::store(x + tl::arange(0, 64), tl::full({4, 64}, 1.0f, DType::F32));
  }).status();
}
