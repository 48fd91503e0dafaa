// arange of 100 elements: tile lengths are powers of two.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(arange_not_power_of_two) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    // expect-error: arange(0, 100) has 100 elements; tile lengths must be powers of two (mask the tail instead,
    //+ e.g. arange(0, 1024) with offs < n)
    tl::Tile offs = tl::arange(0, 100);
    tl::store(x + offs, tl::cast(offs, DType::F32));
  }).status();
}
