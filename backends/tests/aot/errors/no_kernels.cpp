// A kernel file that defines a kernel but exports none.
#include "tessera/aot.hpp"

namespace tl = tessera::tl;

void forgotten(tl::Ptr<float> x) { tl::store(x + tl::arange(0, 64), tl::load(x + tl::arange(0, 64)) + 1.0f); }
