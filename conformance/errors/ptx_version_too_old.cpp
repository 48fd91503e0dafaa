// Compiling for sm_90 in PTX ISA 6.0, which predates the chip. Target options carry no source
// line, so the error is unlocated.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(ptx_version_too_old) {
  auto k = tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::store(x + offs, tl::load(x + offs) * 2.0f);
  });
  // expect-error(invalid-argument, unlocated): PTX ISA 6.0 cannot target sm_90; sm_90 needs PTX ISA 7.8 or newer
  return tessera::errors::compileStatus(k, tessera::nvptxTarget("sm_90", 60));
}
