// Software f32 denormals for portable SPIR-V on drivers that flush them (NVIDIA's Vulkan
// driver promises no shaderDenormPreserveFloat32 and flushes f32 denormals in every float
// instruction). Runs on the gpu.module, at the arith level, before the SPIR-V conversion: no
// f32 value ever reaches a float instruction; f32 arithmetic happens in f64, where every f32
// value, denormals included, is a normal number, and the conversions in and out are integer
// operations that no float mode can touch.
//
//   f32 x                          => bits(x) decoded: m * 2^(e-150) in f64 (exact), NaN/inf
//                                     built on the bits, the sign or'ed in
//   addf/subf/mulf a, b            => round(f64(a) op f64(b))       (exact product; a sum rounded
//   minimumf/maximumf/minnumf/...     twice is still correctly rounded: 53 >= 2 * 24 + 2)
//   floor/ceil/trunc/round...      => round(op(f64(x)))             (exact)
//   cmpf p, a, b                   => cmpf p, f64(a), f64(b)
//   negf/absf/copysign             => integer operations on the sign bit
//   extf f32 -> f64, truncf f64 -> f32 => the decoding / the integer rounding itself
//   round(d)                       => f32 bits by integer round-to-nearest-even, denormals,
//                                     overflow to inf and NaN included
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
  Type i1() const { return like(b.getI1Type()); }

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
  Value subi(Value x, Value y) const { return arith::SubIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) const { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) const { return arith::ShRUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const { return arith::CmpIOp::create(b, loc, p, x, y); }
  Value select(Value c, Value x, Value y) const { return arith::SelectOp::create(b, loc, c, x, y); }
  Value zext(Type t, Value v) const { return arith::ExtUIOp::create(b, loc, t, v); }
  Value trunc(Type t, Value v) const { return arith::TruncIOp::create(b, loc, t, v); }

  /// The f64 holding exactly the value of f32 `x`, built without a float instruction on f32.
  Value widen(Value x) const {
    using P = arith::CmpIPredicate;
    Value bits = bitcast(i32(), x);
    Value exponent = andi(shr(bits, c32(23)), c32(0xff));
    Value mantissa = andi(bits, c32(0x7fffff));
    Value denormal = cmp(P::eq, exponent, c32(0));
    // |x| = significand * 2^(max(e, 1) - 150); 2^k as f64 bits is (k + 1023) << 52.
    Value significand = select(denormal, mantissa, ori(mantissa, c32(0x800000)));
    Value scaleExponent = addi(zext(i64(), select(denormal, c32(1), exponent)), c64(1023 - 150));
    Value scale = bitcast(f64(), shl(scaleExponent, c64(52)));
    Value magnitude = arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f64(), significand), scale);
    // inf and NaN: the f64 exponent all ones, the f32 payload at the top of the f64 fraction.
    Value special = ori(c64(0x7ff0000000000000ull), shl(zext(i64(), mantissa), c64(29)));
    Value finite = cmp(P::ne, exponent, c32(0xff));
    Value magnitudeBits = select(finite, bitcast(i64(), magnitude), special);
    Value sign = shl(zext(i64(), shr(bits, c32(31))), c64(63));
    return bitcast(f64(), ori(magnitudeBits, sign));
  }

  /// f64 `d` rounded to the nearest f32 (ties to even), with gradual underflow, overflow to
  /// infinity and NaN kept, in integer operations only.
  Value narrow(Value d) const {
    using P = arith::CmpIPredicate;
    Value bits = bitcast(i64(), d);
    Value sign = andi(trunc(i32(), shr(bits, c64(32))), c32(0x80000000u));
    Value exponent = trunc(i32(), andi(shr(bits, c64(52)), c64(0x7ff)));
    Value fraction = andi(bits, c64((1ull << 52) - 1));
    Value significand = ori(fraction, c64(1ull << 52));
    // The f32 exponent field; below 1 the result is denormal and the significand shifts further.
    Value e = subi(exponent, c32(1023 - 127));
    Value normal = cmp(P::sge, e, c32(1));
    Value denormalShift = arith::MinSIOp::create(b, loc, subi(c32(30), e), c32(63));
    Value shift = zext(i64(), select(normal, c32(29), denormalShift));
    Value base = select(normal, shl(subi(e, c32(1)), c32(23)), c32(0));
    Value kept = shr(significand, shift);
    Value rest = andi(significand, subi(shl(c64(1), shift), c64(1)));
    Value half = shl(c64(1), subi(shift, c64(1)));
    Value odd = cmp(P::ne, andi(kept, c64(1)), c64(0));
    Value up = arith::OrIOp::create(b, loc, cmp(P::ugt, rest, half),
                                    arith::AndIOp::create(b, loc, cmp(P::eq, rest, half), odd));
    // The implicit bit in `kept` adds one to `base`'s exponent; a carry out of the mantissa
    // moves to the next binade (or to infinity) by itself.
    Value magnitude = addi(addi(base, trunc(i32(), kept)), zext(i32(), up));
    Value overflow = cmp(P::sge, e, c32(0xff));
    magnitude = select(overflow, c32(0x7f800000u), magnitude);
    Value nan = arith::AndIOp::create(b, loc, cmp(P::eq, exponent, c32(0x7ff)), cmp(P::ne, fraction, c64(0)));
    Value quietNan = ori(c32(0x7fc00000u), trunc(i32(), shr(fraction, c64(29))));
    magnitude = select(nan, quietNan, magnitude);
    return bitcast(f32(), ori(sign, magnitude));
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

/// The replacement of `op`, or null when it is not one the emulation rewrites.
Value emulate(Operation *op) {
  OpBuilder b(op);
  Emitter e(b, op->getLoc(), op->getNumResults() ? op->getResult(0).getType() : Type());
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    if (!isF32(cmp.getLhs().getType()))
      return nullptr;
    Emitter in(b, op->getLoc(), cmp.getLhs().getType());
    return arith::CmpFOp::create(b, op->getLoc(), cmp.getPredicate(), in.widen(cmp.getLhs()), in.widen(cmp.getRhs()));
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
    return isF32(ext.getIn().getType()) && isF64(ext.getType()) ? Emitter(b, op->getLoc(), ext.getIn().getType()).widen(ext.getIn())
                                                               : nullptr;
  if (auto tr = dyn_cast<arith::TruncFOp>(op))
    return isF64(tr.getIn().getType()) && isF32(tr.getType()) ? e.narrow(tr.getIn()) : nullptr;
  // Exact in f64, or rounded once more from a result that is good to 53 bits.
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::MinimumFOp, arith::MaximumFOp, arith::MinNumFOp,
          arith::MaxNumFOp, math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp, math::RoundEvenOp>(op) &&
      isF32(op->getResult(0).getType())) {
    IRMapping map;
    for (Value v : op->getOperands())
      map.map(v, e.widen(v));
    Operation *wide = b.clone(*op, map);
    wide->getResult(0).setType(e.f64());
    return e.narrow(wide->getResult(0));
  }
  return nullptr;
}

} // namespace

LogicalResult emulateF32Denormals(gpu::GPUModuleOp module) {
  SmallVector<Operation *> ops;
  bool unknown = false;
  module.walk([&](Operation *op) {
    if (!touchesF32(op) || leftAlone(op))
      return;
    ops.push_back(op);
  });
  for (Operation *op : ops) {
    Value replacement = emulate(op);
    if (!replacement) {
      op->emitOpError("has f32 operands or results that software f32 denormals do not handle");
      unknown = true;
      continue;
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  return failure(unknown);
}

} // namespace tessera::backend
