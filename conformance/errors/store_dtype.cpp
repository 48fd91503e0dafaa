// Storing i32 values into a float buffer.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(store_dtype) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: store of i32 values into a buffer of f32; the element types must match (convert with
    //+ tl::cast(values, tessera::DType::...))
    tl::store(x + offs, offs);
  }).status();
}
