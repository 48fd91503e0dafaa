// permute with an order that names dimension 0 twice.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(permute_bad_order) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t = tl::full({4, 8}, 1.0f, DType::F32);
    // expect-error: permute: order must be a permutation of 0..1; list each dimension exactly once (result
    //+ dimension i is source dimension order[i])
    tl::Tile p = tl::permute(t, {0, 0});
    tl::store(x + tl::arange(0, 4), tl::sum(p, 1));
  }).status();
}
