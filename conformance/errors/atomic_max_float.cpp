// atomic_max on a float buffer (not portable to every Vulkan device yet).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(atomic_max_float) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    // expect-error: atomic_max works on i32 and u32 buffers, not f32; float max/min atomics are not available on
    //+ every Vulkan device yet: keep the values as ordered integers, or reduce with tl::max first and store once
    //+ per program
    tl::atomic_max(x + offs * 0, tl::load(x + offs));
  }).status();
}
