// A prefix sum of a scalar.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(cumsum_of_scalar) {
  return tessera::trace("k", [](tl::Ptr<int32_t> x) {
    // expect-error: cumsum of a scalar; scans run along an axis of a tile (the prefix sum of one value is the
    //+ value itself)
    tl::Tile c = tl::cumsum(tl::program_id(0));
    tl::store(x + tl::arange(0, 64), c);
  }).status();
}
