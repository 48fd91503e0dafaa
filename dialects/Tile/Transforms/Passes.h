// Passes on tile IR (tile-expand-portable-math, tile-hoist-loads, tile-pipeline-loads), generated from Passes.td.
#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::tile {

#define GEN_PASS_DECL
#include "Tile/Transforms/Passes.h.inc"

/// Registers every pass of Passes.td with the global registry (tessera-opt).
void registerTileTransformsPasses();

} // namespace tessera::tile
