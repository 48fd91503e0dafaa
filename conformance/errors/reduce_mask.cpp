// Summing a mask without converting it to numbers.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reduce_mask) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: sum of a mask; convert it first, e.g. tl::cast(mask, tessera::DType::I32)
    tl::Tile count = tl::sum(offs < n);
    tl::store(x + offs, count);
  }).status();
}
