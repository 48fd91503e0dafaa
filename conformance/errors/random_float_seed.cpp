// Random numbers from a float seed.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(random_float_seed) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: the random seed must be an integer; pass an integer constant (42, not 42.0) or an integer
    //+ tl::Scalar argument
    tl::store(x + offs, tl::rand(0.5, offs));
  }).status();
}
