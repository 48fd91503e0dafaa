// Compiled with -fsyntax-only by the tests: with AOT_WRONG_TYPE the call passes a double where
// the kernel's scalar is f32 and must not compile; without it, the same call compiles.
#include "aot_test_kernels.hpp"

tessera::Status launch(const aot_test_kernels::Kernels &k, const tessera::Buffer &x, const tessera::Buffer &out) {
#ifdef AOT_WRONG_TYPE
  return k.scale({1, 1, 1}, x, out, 2.0, 64);
#else
  return k.scale({1, 1, 1}, x, out, 2.0f, 64);
#endif
}
