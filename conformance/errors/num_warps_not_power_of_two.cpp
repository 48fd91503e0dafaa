// numWarps = 3: threads per program must be a power of two; the error points at the trace() call.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(num_warps_not_power_of_two) {
  auto k = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 64), tl::load(x + tl::arange(0, 64))); };
  // expect-error: numWarps = 3 must be a power of two from 1 to 32; use 1, 2, 4, 8, 16 or 32 (4 is the default)
  return tessera::trace("k", k, {.numWarps = 3}).status();
}
