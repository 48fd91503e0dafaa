// A kernel whose argument name is a C++ keyword: it traces, but the header cannot use it.
#include "tessera/aot.hpp"

namespace tl = tessera::tl;

void fill(tl::Ptr<float> x, tl::Scalar<float> v) {
  tl::Tile offs = tl::arange(0, 64);
  tl::store(x + offs, tl::load(x + offs) * v);
}
TESSERA_EXPORT_KERNEL(fill, {.argNames = {"x", "default"}});
