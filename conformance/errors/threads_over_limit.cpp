// 32 warps on a device whose subgroups have 64 lanes: 2048 threads per program, more than the
// 1024 Vulkan and CUDA allow. Only the compile for that target can tell; the error points at
// the trace() call that set numWarps.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(threads_over_limit) {
  auto kernel = [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::load(x + offs) * 2.0f);
  };
  // expect-error: num_warps 32 x subgroup size 64 = 2048 threads per program; the limit is 1024
  auto k = tessera::trace("k", kernel, {.numWarps = 32});
  return tessera::errors::compileStatus(k, tessera::spirvTarget(64));
}
