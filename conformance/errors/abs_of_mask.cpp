// abs of a mask.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(abs_of_mask) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: abs is not defined on masks; a mask has no sign: use it as it is, or tl::cast it to an
    //+ integer type
    tl::Tile a = tl::abs(offs < n);
    tl::store(x + offs, offs, a);
  }).status();
}
