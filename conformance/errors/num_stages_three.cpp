// numStages = 3: loads are issued at most one loop iteration ahead; the error points at the trace() call.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(num_stages_three) {
  auto k = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 64), tl::load(x + tl::arange(0, 64))); };
  // expect-error: numStages = 3 is not supported; use 1 (loads where written) or 2 (loop loads one iteration ahead)
  return tessera::trace("k", k, {.numStages = 3}).status();
}
