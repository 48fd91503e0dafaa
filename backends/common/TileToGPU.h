// The shared tile -> gpu lowering: type conversion, pattern sets and the pass.
#pragma once

#include "Layout.h"
#include "TargetInfo.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tessera::backend {

/// What every lowering pattern of one kernel shares.
struct TileLowering {
  const TargetInfo &target;
  int64_t threads;       // threads per program
  mlir::Value threadId;  // i32, this thread's index in the program
  BlockedLayout layoutOf(mlir::RankedTensorType type) const {
    return BlockedLayout::get(type.getDimSize(0), threads);
  }
};

/// Does `op` take or produce a tile (and so still need lowering)?
inline bool touchesTiles(mlir::Operation *op) {
  auto isTile = [](mlir::Type t) { return mlir::isa<mlir::RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) || llvm::any_of(op->getResultTypes(), isTile);
}

/// Converts a tile type to the scalars one thread holds (1:N); other types stay.
class TileTypeConverter : public mlir::TypeConverter {
public:
  explicit TileTypeConverter(const TileLowering &lowering);
};

void populateGridOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateElementwiseOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);
void populateLoadStoreOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

#define GEN_PASS_DECL
#include "common/Passes.h.inc"

/// Registers the passes of backends/ with the global registry (for tessera-opt).
void registerBackendPasses();

} // namespace tessera::backend
