// Random numbers from a float seed.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(random_float_seed) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::rand(0.5, offs)); // expect-error: the random seed must be an integer
  }).status();
}
