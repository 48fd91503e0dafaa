// sum over axis 2 of a 2-D tile.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reduce_axis_out_of_range) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t = tl::full({8, 16}, 1.0f, DType::F32);
    // expect-error: sum: axis 2 is out of range for a tile of rank 2; use an axis from -2 to 1 (negative counts
    //+ from the end)
    tl::Tile s = tl::sum(t, 2);
    tl::store(x + tl::arange(0, 8), s);
  }).status();
}
