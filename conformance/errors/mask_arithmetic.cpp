// Adding two masks as if they were numbers.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(mask_arithmetic) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: '+' is not defined on masks; use &, |, ^ and ! to combine masks
    tl::Tile both = (offs < n) + (offs > 3);
    tl::store(x + offs, offs, both);
  }).status();
}
