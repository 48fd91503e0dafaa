// Software f32 denormals for portable SPIR-V on drivers that flush them (NVIDIA's Vulkan
// driver promises no shaderDenormPreserveFloat32 and flushes f32 denormals in every float
// instruction). Runs on the gpu.module, at the arith level, before the SPIR-V conversion: no f32
// value ever reaches a float instruction as an operand of arithmetic; f32 arithmetic happens in
// f64, where every f32 value, denormals included, is a normal number.
//
//   f32 x (widen)                  => normal, inf, NaN: extf (exact; no float mode touches a
//                                     normal value); denormal: mantissa * 2^-149, the sign copied
//   addf/subf/mulf a, b            => roundToF32(f64(a) op f64(b))  (exact product; a sum rounded
//   minimumf/maximumf/minnumf/...     twice is still correctly rounded: 53 >= 2 * 24 + 2)
//   floor/ceil/trunc/round...      => roundToF32(op(f64(x)))        (exact)
//   cmpf p, a, b                   => cmpf p, f64(a), f64(b)
//   negf/absf/copysign             => integer operations on the sign bit
//   extf f32 -> f64, truncf f64 -> f32 => widen / roundToF32
//   roundToF32(d)                  => (d + C) - C in f64, C = 1.5 * 2^52 * (the f32 spacing at d):
//                                     ties to even, gradual underflow; overflow to inf, NaN kept
//   its f32 bits (toF32)           => truncf of a value that is already an f32 one (exact), or
//                                     for a denormal its mantissa (r * 2^149) with the sign
//
// An emulated op's result stays available as its rounded f64, which the ops using it take
// directly (through selects and subgroup shuffles too, which then move the f64); its f32 bits
// are made for ops that move bits and erased where nothing needs them. f16 -> f32 -> f64 is one
// exact extf from f16, and f32 -> f16 of an emulated result one truncf from its f64.
//
// Operations that move f32 bits (loads, stores, select, bitcast, shuffles, constants) and
// conversions whose result cannot differ (f32 -> f16: an f32 denormal rounds to a signed zero
// either way; int <-> f32) are left alone. Any other op on f32 is an internal error, so a new
// op cannot slip past the emulation. The portable expansion has already replaced `/`, sqrt,
// fma and the transcendentals by + - * and integer operations.
#include "SPIRVTarget.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

using namespace mlir;

namespace tessera::backend {

namespace {

/// Integer and float constants and casts for scalars or vectors of one shape.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, Type shapeOf) : b(b), loc(loc), shape(dyn_cast<VectorType>(shapeOf)) {}

  Type like(Type element) const { return shape ? Type(VectorType::get(shape.getShape(), element)) : element; }
  Type i32() const { return like(b.getI32Type()); }
  Type i64() const { return like(b.getI64Type()); }
  Type f64() const { return like(b.getF64Type()); }
  Type f32() const { return like(b.getF32Type()); }

  Value constant(Type type, uint64_t value) const {
    TypedAttr attr = b.getIntegerAttr(getElementTypeOrSelf(type), APInt(getElementTypeOrSelf(type).getIntOrFloatBitWidth(), value));
    if (auto v = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(v, attr);
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value c32(uint32_t v) const { return constant(i32(), v); }
  Value c64(uint64_t v) const { return constant(i64(), v); }

  Value bitcast(Type t, Value v) const { return arith::BitcastOp::create(b, loc, t, v); }
  Value andi(Value x, Value y) const { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) const { return arith::OrIOp::create(b, loc, x, y); }
  Value xori(Value x, Value y) const { return arith::XOrIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) const { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) const { return arith::ShRUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const { return arith::CmpIOp::create(b, loc, p, x, y); }
  Value select(Value c, Value x, Value y) const { return arith::SelectOp::create(b, loc, c, x, y); }
  Value trunc(Type t, Value v) const { return arith::TruncIOp::create(b, loc, t, v); }

  Value f64Const(double v) const {
    TypedAttr attr = b.getF64FloatAttr(v);
    if (shape)
      attr = DenseElementsAttr::get(cast<ShapedType>(f64()), attr);
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) const { return arith::CmpFOp::create(b, loc, p, x, y); }

  /// The f64 holding exactly the value of f32 `x`. A normal f32 (or inf, NaN) converts exactly
  /// (no float mode touches a normal value); a denormal is its mantissa times 2^-149 (the
  /// conversion's result is not used for it: a flushing driver would make it zero).
  Value widen(Value x) const {
    using P = arith::CmpIPredicate;
    Value bits = bitcast(i32(), x);
    Value denormal = cmp(P::eq, andi(bits, c32(0x7f800000u)), c32(0));
    Value mantissa = arith::UIToFPOp::create(b, loc, f64(), andi(bits, c32(0x7fffff)));
    Value tiny = arith::MulFOp::create(b, loc, mantissa, f64Const(0x1p-149));
    tiny = select(cmp(P::slt, bits, c32(0)), arith::NegFOp::create(b, loc, tiny), tiny); // -0 from -0
    return select(denormal, tiny, arith::ExtFOp::create(b, loc, f64(), x));
  }

  /// f64 `d` rounded to the nearest f32 value (ties to even, gradual underflow, overflow to
  /// infinity, NaN kept), still in f64: with u the f32 spacing at d (2^(max(E, -126) - 23) for
  /// 2^E <= |d|), C = 1.5 * 2^52 * u puts d + C in a binade whose f64 spacing is u, so
  /// (d + C) - C is d rounded to a multiple of u, ties to even, by the f64 addition itself.
  Value roundToF32(Value d) const {
    Value bits = bitcast(i64(), d);
    Value field = andi(shr(bits, c64(52)), c64(0x7ff));
    Value scaleField = arith::MaxSIOp::create(b, loc, field, c64(1023 - 126));
    Value c = bitcast(f64(), ori(shl(addi(scaleField, c64(29)), c64(52)), c64(1ull << 51)));
    Value rounded = arith::SubFOp::create(b, loc, arith::AddFOp::create(b, loc, d, c), c);
    // The sign of d (a tiny negative d rounds to -0, and -0 stays -0).
    rounded = bitcast(f64(), ori(bitcast(i64(), rounded), andi(bits, c64(0x8000000000000000ull))));
    // From 2^128 - 2^103 (half an ulp above the largest f32, a tie that goes to the even 2^128)
    // the result is infinite; so is an infinite d. A NaN goes through the sum as a NaN.
    Value overflow = cmpf(arith::CmpFPredicate::OGE, math::AbsFOp::create(b, loc, d), f64Const(0x1p128 - 0x1p103));
    return select(overflow, arith::MulFOp::create(b, loc, d, f64Const(INFINITY)), rounded);
  }

  /// The f32 whose value is f64 `r`, which roundToF32 made an f32 value: a normal one (or inf,
  /// NaN) converts exactly; a denormal one is built from its mantissa, r * 2^149.
  Value toF32(Value r) const {
    Value magnitude = math::AbsFOp::create(b, loc, r);
    Value tiny = cmpf(arith::CmpFPredicate::OLT, magnitude, f64Const(0x1p-126));
    Value mantissa = arith::FPToUIOp::create(b, loc, i32(), arith::MulFOp::create(b, loc, magnitude, f64Const(0x1p149)));
    Value sign = andi(trunc(i32(), shr(bitcast(i64(), r), c64(32))), c32(0x80000000u));
    Value normal = bitcast(i32(), arith::TruncFOp::create(b, loc, f32(), r));
    return bitcast(f32(), select(tiny, ori(sign, mantissa), normal));
  }

  /// f32 bits with the sign bit changed by `op` (and / xor) with `mask`.
  Value signBits(Value x, uint32_t mask, bool flip) const {
    Value bits = bitcast(i32(), x);
    return bitcast(f32(), flip ? xori(bits, c32(mask)) : andi(bits, c32(mask)));
  }

  OpBuilder &b;
  Location loc;
  VectorType shape;
};

bool isF32(Type t) { return getElementTypeOrSelf(t).isF32(); }
bool isF64(Type t) { return getElementTypeOrSelf(t).isF64(); }

bool touchesF32(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isF32) || llvm::any_of(op->getResultTypes(), isF32);
}

/// Ops that only move f32 bits, or whose f32 side cannot see a denormal difference.
bool leftAlone(Operation *op) {
  if (isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp, arith::FPToSIOp, arith::FPToUIOp, arith::SIToFPOp,
          arith::UIToFPOp>(op))
    return true;
  // Float % is outside the portable promise on every Vulkan target (OpFRem is not pinned down;
  // docs/numerics.md): it stays the driver's here too.
  if (isa<arith::RemFOp>(op))
    return true;
  if (auto t = dyn_cast<arith::TruncFOp>(op)) // f32 -> f16: a denormal rounds to a signed zero either way
    return isF32(t.getIn().getType());
  if (auto e = dyn_cast<arith::ExtFOp>(op)) // f16 -> f32: never a denormal result
    return isF32(e.getType()) && !isF32(e.getIn().getType());
  Dialect *d = op->getDialect();
  StringRef ns = d ? d->getNamespace() : "";
  // Memory, control flow, vector shuffling and subgroup shuffles carry bits unchanged.
  if (ns == "memref" || ns == "scf" || ns == "vector" || ns == "cf" ||
      isa<gpu::ShuffleOp, gpu::YieldOp, tile::BufferLoadRunOp, tile::BufferStoreRunOp>(op))
    return true;
  return false;
}

/// The emulation of one function's f32 arithmetic. Each f32 result an emulated op produces is
/// kept as the f64 holding its value (`exact`), so the ops that use it skip the decoding; its f32
/// bits are built too, for the ops that move bits (stores, selects, shuffles), and vanish where
/// nothing uses them.
class Emulation {
public:
  /// The replacement of `op`, or null when it is not one the emulation rewrites.
  Value emulate(Operation *op) {
    OpBuilder b(op);
    Emitter e(b, op->getLoc(), op->getNumResults() ? op->getResult(0).getType() : Type());
    if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
      if (!isF32(cmp.getLhs().getType()))
        return nullptr;
      Emitter in(b, op->getLoc(), cmp.getLhs().getType());
      return arith::CmpFOp::create(b, op->getLoc(), cmp.getPredicate(), wide(in, cmp.getLhs()), wide(in, cmp.getRhs()));
    }
    if (isa<arith::NegFOp>(op))
      return e.signBits(op->getOperand(0), 0x80000000u, true);
    if (isa<math::AbsFOp>(op))
      return e.signBits(op->getOperand(0), 0x7fffffffu, false);
    if (isa<math::CopySignOp>(op)) {
      Value magnitude = e.andi(e.bitcast(e.i32(), op->getOperand(0)), e.c32(0x7fffffffu));
      Value sign = e.andi(e.bitcast(e.i32(), op->getOperand(1)), e.c32(0x80000000u));
      return e.bitcast(e.f32(), e.ori(magnitude, sign));
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(op))
      return isF32(ext.getIn().getType()) && isF64(ext.getType()) ? wide(Emitter(b, op->getLoc(), ext.getIn().getType()), ext.getIn())
                                                                 : nullptr;
    if (auto tr = dyn_cast<arith::TruncFOp>(op))
      return isF64(tr.getIn().getType()) && isF32(tr.getType()) ? narrow(e, tr.getIn()) : nullptr;
    // Exact in f64, or rounded once more from a result that is good to 53 bits.
    if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::MinimumFOp, arith::MaximumFOp, arith::MinNumFOp,
            arith::MaxNumFOp, math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp, math::RoundEvenOp>(op) &&
        isF32(op->getResult(0).getType())) {
      IRMapping map;
      for (Value v : op->getOperands())
        map.map(v, wide(e, v));
      Operation *w = b.clone(*op, map);
      w->getResult(0).setType(e.f64());
      return narrow(e, w->getResult(0));
    }
    return nullptr;
  }

  /// f32 -> f16 of an emulated result: f64 -> f16 of its f64, one rounding of the same value
  /// (the f32 bits are not needed for it).
  void narrowToHalf(gpu::GPUModuleOp module) {
    SmallVector<arith::TruncFOp> truncs;
    module.walk([&](arith::TruncFOp t) {
      if (isF32(t.getIn().getType()) && getElementTypeOrSelf(t.getType()).isF16() && exact.count(t.getIn()))
        truncs.push_back(t);
    });
    for (arith::TruncFOp t : truncs) {
      OpBuilder b(t);
      t.getResult().replaceAllUsesWith(arith::TruncFOp::create(b, t.getLoc(), t.getType(), exact[t.getIn()]).getResult());
      t.erase();
    }
  }

private:
  /// The f64 of f32 `v`: an emulated op's rounded result; for a select or a subgroup shuffle of
  /// such results, the same select or shuffle on their f64s (built once, after it); else `v`
  /// widened where it is used.
  Value wide(const Emitter &e, Value v) {
    if (auto it = exact.find(v); it != exact.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    auto select = dyn_cast_or_null<arith::SelectOp>(def);
    auto shuffle = dyn_cast_or_null<gpu::ShuffleOp>(def);
    auto fromHalf = dyn_cast_or_null<arith::ExtFOp>(def);
    const bool viaSelect = select && (exact.count(select.getTrueValue()) || exact.count(select.getFalseValue()));
    const bool viaShuffle = shuffle && v == shuffle.getShuffleResult() && exact.count(shuffle.getValue());
    const bool viaHalf = fromHalf && getElementTypeOrSelf(fromHalf.getIn().getType()).isF16();
    if (!viaSelect && !viaShuffle && !viaHalf)
      return e.widen(v);
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    Emitter after(b, def->getLoc(), v.getType());
    Value f64;
    if (viaHalf) // f16 -> f64 is exact, f16 denormals included (the module keeps them)
      f64 = arith::ExtFOp::create(b, def->getLoc(), after.f64(), fromHalf.getIn());
    else if (viaSelect)
      f64 = arith::SelectOp::create(b, def->getLoc(), select.getCondition(), wide(after, select.getTrueValue()),
                                    wide(after, select.getFalseValue()));
    else
      f64 = gpu::ShuffleOp::create(b, def->getLoc(), exact[shuffle.getValue()], shuffle.getOffset(), shuffle.getWidth(),
                                   shuffle.getMode())
                .getShuffleResult();
    exact[v] = f64;
    return f64;
  }
  Value narrow(const Emitter &e, Value d) {
    Value rounded = e.roundToF32(d);
    Value bits = e.toF32(rounded);
    exact[bits] = rounded;
    return bits;
  }

  llvm::DenseMap<Value, Value> exact; // an emulated op's f32 result -> the f64 of its value
};

} // namespace

LogicalResult emulateF32Denormals(gpu::GPUModuleOp module) {
  SmallVector<Operation *> ops;
  bool unknown = false;
  module.walk([&](Operation *op) {
    if (!touchesF32(op) || leftAlone(op))
      return;
    ops.push_back(op);
  });
  Emulation emulation;
  for (Operation *op : ops) {
    Value replacement = emulation.emulate(op);
    if (!replacement) {
      op->emitOpError("has f32 operands or results that software f32 denormals do not handle");
      unknown = true;
      continue;
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  emulation.narrowToHalf(module);
  // The f32 bits of results that only emulated ops used, and the decodings those ops no longer
  // need, are dead: erase them (uses first).
  SmallVector<Operation *> all;
  module.walk([&](Operation *op) { all.push_back(op); });
  for (Operation *op : llvm::reverse(all))
    if (isOpTriviallyDead(op))
      op->erase();
  return failure(unknown);
}

} // namespace tessera::backend
