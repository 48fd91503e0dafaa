// MathBuilder: the pinned scalar/tile operations that the portable math expansions are made of.
#include "PortableMathFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <bit>

using namespace mlir;

namespace tessera::tile::portable_math {

MathBuilder::MathBuilder(OpBuilder &builder, Location loc, Type f32Like) : b(builder), loc(loc) {
  f32Ty = f32Like;
  f64Ty = shaped(b.getF64Type());
  i32Ty = shaped(b.getI32Type());
  i64Ty = shaped(b.getI64Type());
  i1Ty = shaped(b.getI1Type());
}

Type MathBuilder::shaped(Type element) const {
  if (auto tensor = dyn_cast<RankedTensorType>(f32Ty))
    return RankedTensorType::get(tensor.getShape(), element);
  return element;
}

Value MathBuilder::constant(Type element, TypedAttr scalar, uint64_t key) {
  auto [it, inserted] = constants.try_emplace({element.getAsOpaquePointer(), key});
  if (!inserted)
    return it->second;
  Type type = shaped(element);
  TypedAttr attr = scalar;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    attr = SplatElementsAttr::get(tensor, scalar);
  it->second = arith::ConstantOp::create(b, loc, type, attr);
  return it->second;
}

Value MathBuilder::f64(double v) {
  return constant(b.getF64Type(), b.getF64FloatAttr(v), std::bit_cast<uint64_t>(v));
}
Value MathBuilder::f32(float v) {
  return constant(b.getF32Type(), b.getF32FloatAttr(v), std::bit_cast<uint32_t>(v));
}
Value MathBuilder::i64(int64_t v) {
  return constant(b.getI64Type(), b.getI64IntegerAttr(v), uint64_t(v));
}
Value MathBuilder::i32(int32_t v) {
  return constant(b.getI32Type(), b.getI32IntegerAttr(v), uint32_t(v));
}
Value MathBuilder::boolean(bool v) {
  return constant(b.getI1Type(), b.getBoolAttr(v), v);
}

Value MathBuilder::add(Value a, Value c) { return arith::AddFOp::create(b, loc, a, c); }
Value MathBuilder::sub(Value a, Value c) { return arith::SubFOp::create(b, loc, a, c); }
Value MathBuilder::mul(Value a, Value c) { return arith::MulFOp::create(b, loc, a, c); }
Value MathBuilder::neg(Value a) { return arith::NegFOp::create(b, loc, a); }

static Value cmpf(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value a, Value c) {
  return arith::CmpFOp::create(b, loc, p, a, c);
}
Value MathBuilder::lt(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::OLT, a, c); }
Value MathBuilder::le(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::OLE, a, c); }
Value MathBuilder::gt(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::OGT, a, c); }
Value MathBuilder::ge(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::OGE, a, c); }
Value MathBuilder::eq(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::OEQ, a, c); }
Value MathBuilder::ne(Value a, Value c) { return cmpf(b, loc, arith::CmpFPredicate::ONE, a, c); }

std::pair<Value, Value> MathBuilder::magnitudeBits(Value a) {
  if (getElementTypeOrSelf(a.getType()).isF32())
    return {iand(bits32(a), i32(INT32_MAX)), i32(0x7f800000)};
  return {iand(bits64(a), i64(INT64_MAX)), i64(0x7ff0000000000000)};
}
Value MathBuilder::isNaN(Value a) {
  auto [magnitude, inf] = magnitudeBits(a);
  return igt(magnitude, inf);
}
Value MathBuilder::isInf(Value a) {
  auto [magnitude, inf] = magnitudeBits(a);
  return ieq(magnitude, inf);
}
Value MathBuilder::isFinite(Value a) {
  auto [magnitude, inf] = magnitudeBits(a);
  return ilt(magnitude, inf);
}
Value MathBuilder::isPlusInf(Value a) {
  if (getElementTypeOrSelf(a.getType()).isF32())
    return ieq(bits32(a), i32(0x7f800000));
  return ieq(bits64(a), i64(0x7ff0000000000000));
}

Value MathBuilder::iadd(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
Value MathBuilder::isub(Value a, Value c) { return arith::SubIOp::create(b, loc, a, c); }
Value MathBuilder::iand(Value a, Value c) { return arith::AndIOp::create(b, loc, a, c); }
Value MathBuilder::ior(Value a, Value c) { return arith::OrIOp::create(b, loc, a, c); }
Value MathBuilder::ixor(Value a, Value c) { return arith::XOrIOp::create(b, loc, a, c); }
Value MathBuilder::shl(Value a, Value c) { return arith::ShLIOp::create(b, loc, a, c); }
Value MathBuilder::lshr(Value a, Value c) { return arith::ShRUIOp::create(b, loc, a, c); }

static Value cmpi(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value a, Value c) {
  return arith::CmpIOp::create(b, loc, p, a, c);
}
Value MathBuilder::ieq(Value a, Value c) { return cmpi(b, loc, arith::CmpIPredicate::eq, a, c); }
Value MathBuilder::ine(Value a, Value c) { return cmpi(b, loc, arith::CmpIPredicate::ne, a, c); }
Value MathBuilder::ilt(Value a, Value c) { return cmpi(b, loc, arith::CmpIPredicate::slt, a, c); }
Value MathBuilder::igt(Value a, Value c) { return cmpi(b, loc, arith::CmpIPredicate::sgt, a, c); }
Value MathBuilder::negate(Value a) { return ixor(a, boolean(true)); }

Value MathBuilder::select(Value cond, Value a, Value c) {
  return arith::SelectOp::create(b, loc, cond, a, c);
}

Value MathBuilder::extend(Value v) { return arith::ExtFOp::create(b, loc, f64Ty, v); }
Value MathBuilder::truncate(Value v) { return arith::TruncFOp::create(b, loc, f32Ty, v); }
Value MathBuilder::bits64(Value v) { return arith::BitcastOp::create(b, loc, i64Ty, v); }
Value MathBuilder::fromBits64(Value v) { return arith::BitcastOp::create(b, loc, f64Ty, v); }
Value MathBuilder::bits32(Value v) { return arith::BitcastOp::create(b, loc, i32Ty, v); }
Value MathBuilder::fromBits32(Value v) { return arith::BitcastOp::create(b, loc, f32Ty, v); }
Value MathBuilder::toInt(Value v) { return arith::FPToSIOp::create(b, loc, i64Ty, v); }
Value MathBuilder::toFloat(Value v) { return arith::SIToFPOp::create(b, loc, f64Ty, v); }

Value MathBuilder::abs(Value v) {
  return fromBits64(iand(bits64(v), i64(INT64_MAX)));
}

Value MathBuilder::signBit32(Value v) { return ilt(bits32(v), i32(0)); }

Value MathBuilder::withSignOf(Value magnitude, Value signSource) {
  return withSignBits(magnitude, bits32(signSource));
}

Value MathBuilder::withSignBits(Value magnitude, Value signSource) {
  Value sign = iand(signSource, i32(INT32_MIN));
  return fromBits32(ior(iand(bits32(magnitude), i32(INT32_MAX)), sign));
}

// Adding 1.5 * 2^52 moves the binary point of |v| < 2^51 to the last place of the sum, so the
// addition itself rounds to an integer (ties to even); the subtraction is then exact.
Value MathBuilder::roundToInt(Value v) {
  constexpr double kShifter = 0x1.8p52;
  return sub(add(v, f64(kShifter)), f64(kShifter));
}

Value MathBuilder::pow2(Value k) {
  return fromBits64(shl(iadd(k, i64(1023)), i64(52)));
}

Value MathBuilder::horner(Value x, llvm::ArrayRef<double> coeffs) {
  Value acc = f64(coeffs.back());
  for (double c : llvm::reverse(coeffs.drop_back()))
    acc = add(mul(acc, x), f64(c));
  return acc;
}

DoubleDouble MathBuilder::twoSum(Value a, Value c) {
  Value s = add(a, c);
  Value cVirtual = sub(s, a);
  Value aVirtual = sub(s, cVirtual);
  Value err = add(sub(a, aVirtual), sub(c, cVirtual));
  return {s, err};
}

} // namespace tessera::tile::portable_math
