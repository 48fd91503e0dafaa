// The `tile` dialect: dialect, types and ops (generated from the .td files beside this one).
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Tile/IR/TileDialect.h.inc"
#include "Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

namespace tessera::tile {

/// Discardable attributes on a kernel's `func.func`.
inline constexpr llvm::StringLiteral kKernelAttr = "tile.kernel";       // unit
inline constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";  // i32
/// i32, 2: the loads of the kernel's loops are issued one iteration ahead (tile-pipeline-loads);
/// absent or 1: as written.
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
/// The kernel's i32 scalar arguments (indices) that SPIR-V reads as specialization constants
/// (KernelOptions::specializedArgs).
inline constexpr llvm::StringLiteral kSpecializedArgsAttr = "tile.specialized_args";
inline constexpr llvm::StringLiteral kArgNameAttr = "tile.name";        // per-argument string
/// "fast" (also when absent) or "portable": the numerics contract (docs/numerics.md).
inline constexpr llvm::StringLiteral kNumericsAttr = "tile.numerics";
/// Is `kernel` (a func.func) compiled under portable numerics?
inline bool isPortable(mlir::Operation *kernel) {
  auto n = kernel->getAttrOfType<mlir::StringAttr>(kNumericsAttr);
  return n && n.getValue() == "portable";
}
/// Per-argument dtype name ("u8", "u32") where the MLIR type alone (signless) does not say it.
inline constexpr llvm::StringLiteral kArgDTypeAttr = "tile.dtype";
/// Per integer scalar argument, a power of two d: the code may assume the argument is a multiple
/// of d (a variant specialized for such launches: docs/compiler.md, "Argument specialization").
inline constexpr llvm::StringLiteral kArgDivisibilityAttr = "tile.divisibility";

/// Is `n` a positive power of two?
inline bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

} // namespace tessera::tile
