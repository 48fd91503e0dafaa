// A kernel file whose second kernel fails to trace: the error names the kernel, where it was
// exported and the line of the mistake.
#include "tessera/aot.hpp"

namespace tl = tessera::tl;

void fine(tl::Ptr<float> x) { tl::store(x + tl::arange(0, 64), tl::load(x + tl::arange(0, 64)) + 1.0f); }
TESSERA_EXPORT_KERNEL(fine);

void bitwise(tl::Ptr<float> x) {
  tl::Tile v = tl::load(x + tl::arange(0, 64));
  tl::store(x + tl::arange(0, 64), v & v);
}
TESSERA_EXPORT_KERNEL(bitwise, {.argNames = {"x"}});
