// A kernel file the C++ compiler rejects: `tessera compile` passes its diagnostic through.
#include "tessera/aot.hpp"

namespace tl = tessera::tl;

void copy(tl::Ptr<float> x, tl::Ptr<float> out) {
  tl::Tile offs = tl::arange(0, 64)
  tl::store(out + offs, tl::load(x + offs));
}
TESSERA_EXPORT_KERNEL(copy);
