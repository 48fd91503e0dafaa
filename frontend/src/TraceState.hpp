// The tracer's state and the helpers every traced operation uses: value table, dtypes,
// shapes and broadcasting, user errors at the user's line. Internal to the front end.
#pragma once

#include "KernelImpl.hpp"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <string>
#include <vector>

namespace tessera::tracer {

using tl::Number;
using tl::SourceLoc;

/// A mistake in the user's kernel; `trace` turns it into a CompileError Status.
struct UserError {
  std::string message;
  SourceLoc loc;
};

[[noreturn]] void fail(SourceLoc loc, std::string message);

/// A traced value: the MLIR value and the dtype the user sees (MLIR integers are signless,
/// so u8/u32 are only known here).
struct TVal {
  mlir::Value value;
  DType dtype;
  std::vector<int64_t> shape() const;
  int64_t rank() const { return int64_t(shape().size()); }
  bool isScalar() const { return !mlir::isa<mlir::RankedTensorType>(value.getType()); }
};

/// One kernel being traced. Values are referred to from the public API by index.
struct TraceState {
  std::shared_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  mlir::OpBuilder builder;
  std::vector<TVal> values;
  std::vector<mlir::BlockArgument> args;
  std::vector<DType> argDTypes;

  explicit TraceState(std::shared_ptr<mlir::MLIRContext> ctx) : context(std::move(ctx)), builder(context.get()) {}
  mlir::MLIRContext *ctx() { return context.get(); }
  mlir::Location loc(SourceLoc l);
  uint32_t add(mlir::Value v, DType t);
  uint32_t add(const TVal &v) { return add(v.value, v.dtype); }
  const TVal &get(uint32_t id, SourceLoc l);
};

/// The state of the trace running on this thread; a user error when there is none.
TraceState &state(SourceLoc loc);

// ---- dtypes ---------------------------------------------------------------------------------

mlir::Type mlirType(mlir::MLIRContext *ctx, DType t);
/// The dtype arithmetic on `t` runs in: f32 for 16-bit floats, i32 for narrower integers
/// (u8 -> u32), otherwise `t` itself.
DType computeType(DType t);
const char *dtypeName(DType t);
int bitWidth(DType t);

// ---- shapes ---------------------------------------------------------------------------------

std::string describe(const TVal &v);
std::string shapeString(const std::vector<int64_t> &shape);
mlir::Type tileType(mlir::MLIRContext *ctx, const std::vector<int64_t> &shape, DType t);
/// Checks that every dimension is a power of two and the tile is not too large.
void checkShape(const std::vector<int64_t> &shape, SourceLoc loc, const char *what);
/// Broadcasts `v` to `shape` (numpy rules: leading 1s, then size-1 dimensions repeat).
TVal broadcastTo(TraceState &st, const TVal &v, const std::vector<int64_t> &shape, SourceLoc loc, const char *what);
/// The common shape of two operands, or a user error naming both.
std::vector<int64_t> broadcastShape(const TVal &a, const TVal &b, const char *what, SourceLoc loc);

// ---- values ---------------------------------------------------------------------------------

/// A constant of dtype `t` (checked to fit), broadcast to `shape`.
TVal constant(TraceState &st, DType t, Number n, const std::vector<int64_t> &shape, SourceLoc loc);
/// Converts between dtypes with the rules of tl::cast.
TVal convert(TraceState &st, const TVal &v, DType to, SourceLoc loc);
/// `v` converted to its compute type (exact).
TVal widen(TraceState &st, const TVal &v, SourceLoc loc);
/// A compute-type result rounded or wrapped back to `to`.
TVal narrow(TraceState &st, const TVal &v, DType to, SourceLoc loc);

} // namespace tessera::tracer
