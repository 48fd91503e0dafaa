// Reducing a 2-D tile over axis 2.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(reduce_axis_out_of_range) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile t = tl::full({8, 16}, 1.0f, DType::F32);
    tl::Tile s = tl::sum(t, 2); // expect-error: sum: axis 2 is out of range for a tile of rank 2 (valid: -2 to 1)
    tl::store(x + tl::arange(0, 8), s);
  }).status();
}
