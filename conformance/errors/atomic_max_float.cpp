// atomic_max on a float buffer (not portable to every Vulkan device yet).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(atomic_max_float) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::atomic_max(x + offs * 0, tl::load(x + offs)); // expect-error: atomic_max works on i32 and u32 buffers, not f32; float max/min atomics
  }).status();
}
