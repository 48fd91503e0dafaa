// Compiling for a chip LLVM does not know; the error lists the chips that would work.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(unknown_chip) {
  auto k = tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::load(x + offs) * 2.0f);
  });
  // expect-error(invalid-argument, unlocated): unknown NVPTX chip 'sm_99'; known chips: sm_50, sm_52
  return tessera::errors::compileStatus(k, tessera::nvptxTarget("sm_99"));
}
