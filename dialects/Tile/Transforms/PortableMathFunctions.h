// Expansions of f32 math into IEEE-pinned operations (f64 + - *, compares, selects, integer and
// bit operations, extf/truncf), shared by tile-expand-portable-math.
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <map>
#include <utility>

namespace tessera::tile::portable_math {

/// A double-double value hi + lo with |lo| <= ulp(hi) (or an unevaluated exact sum).
struct DoubleDouble {
  mlir::Value hi, lo;
};

/// Builds the pinned operations of one expansion at one insertion point. Every value has the
/// shape of the expanded op's operand: an f32 scalar or a `tensor<S x f32>`, whose siblings
/// `tensor<S x f64>`, `tensor<S x i64>`, ... this builder creates (constants are splats).
class MathBuilder {
public:
  MathBuilder(mlir::OpBuilder &builder, mlir::Location loc, mlir::Type f32Like);

  mlir::Type f32Type() const { return f32Ty; }
  mlir::Type f64Type() const { return f64Ty; }

  // Constants of this shape.
  mlir::Value f64(double v);
  mlir::Value f32(float v);
  mlir::Value i64(int64_t v);
  mlir::Value i32(int32_t v);
  mlir::Value boolean(bool v);

  // Float arithmetic (no fast-math flags: each op rounds once, to nearest even).
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value sub(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  mlir::Value neg(mlir::Value a);
  mlir::Value add(mlir::Value a, double b) { return add(a, f64(b)); }
  mlir::Value sub(mlir::Value a, double b) { return sub(a, f64(b)); }
  mlir::Value sub(double a, mlir::Value b) { return sub(f64(a), b); }
  mlir::Value mul(mlir::Value a, double b) { return mul(a, f64(b)); }

  // Float compares (ordered: false when either side is NaN) and the NaN test.
  mlir::Value lt(mlir::Value a, mlir::Value b);
  mlir::Value le(mlir::Value a, mlir::Value b);
  mlir::Value gt(mlir::Value a, mlir::Value b);
  mlir::Value ge(mlir::Value a, mlir::Value b);
  mlir::Value eq(mlir::Value a, mlir::Value b);
  mlir::Value ne(mlir::Value a, mlir::Value b); // ordered and unequal

  // Classification of an f32 or f64 value by integer tests on its bits, which no driver's
  // float optimizations (no-NaN assumptions, folding x != x) can change.
  mlir::Value isNaN(mlir::Value a);
  mlir::Value isInf(mlir::Value a);      // +-inf
  mlir::Value isFinite(mlir::Value a);
  mlir::Value isPlusInf(mlir::Value a);

  // Integer and i1 operations (i64 or i32, signed compares).
  mlir::Value iadd(mlir::Value a, mlir::Value b);
  mlir::Value isub(mlir::Value a, mlir::Value b);
  mlir::Value iand(mlir::Value a, mlir::Value b);
  mlir::Value ior(mlir::Value a, mlir::Value b);
  mlir::Value ixor(mlir::Value a, mlir::Value b);
  mlir::Value shl(mlir::Value a, mlir::Value b);
  mlir::Value lshr(mlir::Value a, mlir::Value b);
  mlir::Value ieq(mlir::Value a, mlir::Value b);
  mlir::Value ine(mlir::Value a, mlir::Value b);
  mlir::Value ilt(mlir::Value a, mlir::Value b);
  mlir::Value igt(mlir::Value a, mlir::Value b);
  mlir::Value both(mlir::Value a, mlir::Value b) { return iand(a, b); }
  mlir::Value either(mlir::Value a, mlir::Value b) { return ior(a, b); }
  mlir::Value negate(mlir::Value a); // logical not of an i1

  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value b);
  mlir::Value select(mlir::Value cond, double a, double b) { return select(cond, f64(a), f64(b)); }

  // Conversions and reinterpretation.
  mlir::Value extend(mlir::Value f32Value);   // f32 -> f64, exact
  mlir::Value truncate(mlir::Value f64Value); // f64 -> f32, round to nearest even
  mlir::Value bits64(mlir::Value f64Value);
  mlir::Value fromBits64(mlir::Value i64Value);
  mlir::Value bits32(mlir::Value f32Value);
  mlir::Value fromBits32(mlir::Value i32Value);
  mlir::Value toInt(mlir::Value integralF64); // f64 -> i64, for in-range integral values only
  mlir::Value toFloat(mlir::Value i64Value);  // i64 -> f64, exact for |v| < 2^53

  // Composite helpers.
  mlir::Value abs(mlir::Value f64Value);                // clears the sign bit
  mlir::Value signBit32(mlir::Value f32Value);          // i1: the sign bit is set (also -0, -NaN)
  mlir::Value withSignOf(mlir::Value f32Magnitude, mlir::Value f32SignSource);
  mlir::Value withSignBits(mlir::Value f32Magnitude, mlir::Value i32SignSource); // its bit 31
  mlir::Value roundToInt(mlir::Value f64Value);         // nearest integer (even on ties), |v| < 2^51
  mlir::Value pow2(mlir::Value i64Exponent);            // 2^k for k in [-1022, 1023], exact
  mlir::Value horner(mlir::Value x, llvm::ArrayRef<double> coeffs); // c0 + x (c1 + x (c2 + ...))
  DoubleDouble twoSum(mlir::Value a, mlir::Value b);    // a + b = hi + lo exactly (Knuth)

private:
  mlir::Type shaped(mlir::Type element) const;
  /// The bits of an f32/f64 value with the sign cleared, and the bits of +inf.
  std::pair<mlir::Value, mlir::Value> magnitudeBits(mlir::Value a);
  mlir::Value constant(mlir::Type element, mlir::TypedAttr scalar, uint64_t key);

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type f32Ty, f64Ty, i32Ty, i64Ty, i1Ty;
  std::map<std::pair<const void *, uint64_t>, mlir::Value> constants;
};

// The expansions: each takes f32-shaped operands and returns the f32-shaped result.
mlir::Value expandExp(MathBuilder &m, mlir::Value x);
mlir::Value expandExp2(MathBuilder &m, mlir::Value x);
mlir::Value expandLog(MathBuilder &m, mlir::Value x);
mlir::Value expandLog2(MathBuilder &m, mlir::Value x);
mlir::Value expandRsqrt(MathBuilder &m, mlir::Value x);
mlir::Value expandSin(MathBuilder &m, mlir::Value x);
mlir::Value expandCos(MathBuilder &m, mlir::Value x);
mlir::Value expandTanh(MathBuilder &m, mlir::Value x);
mlir::Value expandErf(MathBuilder &m, mlir::Value x);
mlir::Value expandPow(MathBuilder &m, mlir::Value x, mlir::Value y);
// Correctly rounded basics (for targets whose / sqrt fma are not).
mlir::Value expandDiv(MathBuilder &m, mlir::Value a, mlir::Value b);
mlir::Value expandSqrt(MathBuilder &m, mlir::Value x);
mlir::Value expandFma(MathBuilder &m, mlir::Value a, mlir::Value b, mlir::Value c);

} // namespace tessera::tile::portable_math
