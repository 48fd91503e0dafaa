// Tiles computed from coordinates alone, recomputed per thread in any layout.
#pragma once

#include "TileToGPU.h"

#include <functional>
#include <map>

namespace tessera::backend {

/// Tiles whose elements are functions of their coordinates alone: arange, splat, splat
/// constants, and element-wise arith ops, broadcast, expand_dims and trans over them. A thread
/// computes any element of such a tile where it needs it, in any layout, with no shared memory
/// or barrier (what Triton's slice layouts give its offsets and masks). The scalars that splats
/// take are the leaves: a caller may check them (computable's `leafOk`) and give them other
/// values (`scalar`: a load issued for a later iteration of its loop reads its offsets with the
/// induction variable advanced).
class Rematerializer {
public:
  /// Most ops of a tile's definition to recompute per element.
  static constexpr int kBudget = 24;

  /// `scalar` gives the value of a splat's scalar at the insertion point (null: the value the
  /// conversion maps it to).
  Rematerializer(mlir::ConversionPatternRewriter &r, mlir::Location loc, const TileLowering &lw,
                 std::function<mlir::Value(mlir::Value)> scalar = nullptr)
      : r(r), loc(loc), lw(lw), scalar(std::move(scalar)) {}

  /// Is `v` such a tile, defined by at most `budget` ops (counted along every path), with every
  /// splat's scalar accepted by `leafOk` (when given)?
  static bool computable(mlir::Value v, int &budget, const std::function<bool(mlir::Value)> &leafOk = nullptr);

  /// This thread's elements of `v` (computable) in layout `l`.
  llvm::SmallVector<mlir::Value> elements(mlir::Value v, const BlockedLayout &l);

private:
  mlir::Value coordinate(const BlockedLayout &l, int64_t k, int64_t s);
  mlir::Value at(mlir::Value v, llvm::ArrayRef<mlir::Value> coords);
  mlir::Value zero();

  mlir::ConversionPatternRewriter &r;
  mlir::Location loc;
  const TileLowering &lw;
  std::function<mlir::Value(mlir::Value)> scalar;
  std::map<std::pair<int64_t, int64_t>, mlir::Value> coords;
  std::map<std::vector<const void *>, mlir::Value> memo;
  mlir::Value zeroValue;
};

} // namespace tessera::backend
