// Tessera, everything at once: the tile language, the compiler and the runtime.
#pragma once

#include "tessera/aot.hpp"
#include "tessera/autotune.hpp"
#include "tessera/compiler.hpp"
#include "tessera/kernel_cache.hpp"
#include "tessera/runtime/Runtime.hpp"
#include "tessera/tl.hpp"
