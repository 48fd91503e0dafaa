// A tile length that is not a power of two.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(arange_not_power_of_two) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 100); // expect-error: tile lengths must be powers of two (mask the tail instead
    tl::store(x + offs, 0.0f * tl::cast(offs, DType::F32));
  }).status();
}
