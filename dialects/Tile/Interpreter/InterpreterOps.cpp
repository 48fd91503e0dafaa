// The interpreter's element-wise op table: every arith and math op on scalars and tiles, with
// a defined result wherever LLVM or SPIR-V leave one undefined (docs/interpreter.md). Compiled
// with -ffp-contract=off: a * b + c is never fused here.
#include "InterpreterValues.h"

#include "tessera/runtime/Half.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cfloat>
#include <cmath>

using namespace mlir;

namespace tessera::interp {

// ---- types and conversions ------------------------------------------------------------------

std::optional<Elem> elemOf(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    t = tensor.getElementType();
  if (t.isF32()) return Elem::F32;
  if (t.isF16()) return Elem::F16;
  if (t.isBF16()) return Elem::BF16;
  if (t.isF64()) return Elem::F64;
  if (t.isSignlessInteger(1)) return Elem::I1;
  if (t.isSignlessInteger(8)) return Elem::I8;
  if (t.isSignlessInteger(16)) return Elem::I16;
  if (t.isSignlessInteger(32)) return Elem::I32;
  if (t.isSignlessInteger(64)) return Elem::I64;
  return std::nullopt;
}

const char *elemName(Elem e) {
  static const char *names[] = {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return names[int(e)];
}

float floatOf(Elem e, uint64_t bits) {
  switch (e) {
  case Elem::F16: return f16::fromBits(uint16_t(bits)).toFloat();
  case Elem::BF16: return bf16::fromBits(uint16_t(bits)).toFloat();
  case Elem::F64: return float(f64Of(bits));
  default: return f32Of(bits);
  }
}

double doubleOf(Elem e, uint64_t bits) { return e == Elem::F64 ? f64Of(bits) : double(floatOf(e, bits)); }

uint64_t encodeFloat(Elem e, float f) {
  switch (e) {
  case Elem::F16: return f16::fromFloat(f).bits;
  case Elem::BF16: return bf16::fromFloat(f).bits;
  case Elem::F64: return bitsOf(double(f));
  default: return bitsOf(f);
  }
}

namespace {

/// `d` rounded to f32 toward zero with the last bit set when inexact ("round to odd"): a second
/// rounding to nearest even into a format of 11 or fewer significand bits (f16, bf16) then
/// equals one correct rounding of `d`.
float roundToOddFloat(double d) {
  float f = float(d);
  if (std::isnan(d) || double(f) == d)
    return f;
  if (std::isinf(f))
    return std::copysign(FLT_MAX, f); // truncation of a finite value beyond FLT_MAX (odd)
  uint32_t b = std::bit_cast<uint32_t>(f);
  if (b & 1u)
    return f;
  // The even neighbour came out; the odd one is on the other side of d.
  b = std::fabs(d) > std::fabs(double(f)) ? b + 1 : b - 1;
  return std::bit_cast<float>(b);
}

/// An integer (sign and magnitude) rounded to f32 toward zero, last bit set when inexact.
float intToFloatOdd(bool negative, uint64_t magnitude) {
  float f;
  if (magnitude < (uint64_t(1) << 24)) {
    f = float(magnitude);
  } else {
    int shift = (64 - std::countl_zero(magnitude)) - 24;
    uint64_t kept = magnitude >> shift;
    if (magnitude & lowMask(shift))
      kept |= 1;
    f = std::ldexp(float(kept), shift);
  }
  return negative ? -f : f;
}

} // namespace

uint64_t encodeDouble(Elem e, double d) {
  switch (e) {
  case Elem::F64: return bitsOf(d);
  case Elem::F32: return bitsOf(float(d));
  default: return encodeFloat(e, roundToOddFloat(d));
  }
}

// ---- the op table ---------------------------------------------------------------------------

enum ElementwiseOp::Kind : uint16_t {
  // integers
  AddI, SubI, MulI, DivSI, DivUI, RemSI, RemUI, CeilDivSI, CeilDivUI, FloorDivSI, AndI, OrI, XOrI,
  ShLI, ShRSI, ShRUI, MaxSI, MaxUI, MinSI, MinUI, CmpI, AbsI, CountLeadingZeros, CountTrailingZeros,
  CountOnes, MulSIExtended, MulUIExtended, AddUIExtended,
  // floats: bit operations
  NegF, AbsF, CopySign,
  // floats: arithmetic
  AddF, SubF, MulF, DivF, RemF, MaximumF, MinimumF, MaxNumF, MinNumF, PowF, Atan2, Fma, CmpF,
  Sqrt, Rsqrt, Exp, Exp2, ExpM1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Tanh, Sinh, Cosh, Asin,
  Acos, Atan, Asinh, Acosh, Atanh, Erf, Erfc, Cbrt, Floor, Ceil, Trunc, Round, RoundEven,
  IsNaN, IsInf, IsFinite, IsNormal,
  // everything
  Select, ExtSI, ExtUI, TruncI, ExtF, TruncF, SIToFP, UIToFP, FPToSI, FPToUI, Bitcast,
  Unknown
};

std::optional<ElementwiseOp> elementwiseOpFor(Operation *op) {
  using K = ElementwiseOp::Kind;
  K k = llvm::StringSwitch<K>(op->getName().getStringRef())
            .Case("arith.addi", K::AddI).Case("arith.subi", K::SubI).Case("arith.muli", K::MulI)
            .Case("arith.divsi", K::DivSI).Case("arith.divui", K::DivUI).Case("arith.remsi", K::RemSI)
            .Case("arith.remui", K::RemUI).Case("arith.ceildivsi", K::CeilDivSI)
            .Case("arith.ceildivui", K::CeilDivUI).Case("arith.floordivsi", K::FloorDivSI)
            .Case("arith.andi", K::AndI).Case("arith.ori", K::OrI).Case("arith.xori", K::XOrI)
            .Case("arith.shli", K::ShLI).Case("arith.shrsi", K::ShRSI).Case("arith.shrui", K::ShRUI)
            .Case("arith.maxsi", K::MaxSI).Case("arith.maxui", K::MaxUI).Case("arith.minsi", K::MinSI)
            .Case("arith.minui", K::MinUI).Case("arith.cmpi", K::CmpI).Case("math.absi", K::AbsI)
            .Case("math.ctlz", K::CountLeadingZeros).Case("math.cttz", K::CountTrailingZeros)
            .Case("math.ctpop", K::CountOnes).Case("arith.mulsi_extended", K::MulSIExtended)
            .Case("arith.mului_extended", K::MulUIExtended).Case("arith.addui_extended", K::AddUIExtended)
            .Case("arith.negf", K::NegF).Case("math.absf", K::AbsF).Case("math.copysign", K::CopySign)
            .Case("arith.addf", K::AddF).Case("arith.subf", K::SubF).Case("arith.mulf", K::MulF)
            .Case("arith.divf", K::DivF).Case("arith.remf", K::RemF).Case("arith.maximumf", K::MaximumF)
            .Case("arith.minimumf", K::MinimumF).Case("arith.maxnumf", K::MaxNumF)
            .Case("arith.minnumf", K::MinNumF).Case("math.powf", K::PowF).Case("math.atan2", K::Atan2)
            .Case("math.fma", K::Fma).Case("arith.cmpf", K::CmpF).Case("math.sqrt", K::Sqrt)
            .Case("math.rsqrt", K::Rsqrt).Case("math.exp", K::Exp).Case("math.exp2", K::Exp2)
            .Case("math.expm1", K::ExpM1).Case("math.log", K::Log).Case("math.log2", K::Log2)
            .Case("math.log10", K::Log10).Case("math.log1p", K::Log1p).Case("math.sin", K::Sin)
            .Case("math.cos", K::Cos).Case("math.tan", K::Tan).Case("math.tanh", K::Tanh)
            .Case("math.sinh", K::Sinh).Case("math.cosh", K::Cosh).Case("math.asin", K::Asin)
            .Case("math.acos", K::Acos).Case("math.atan", K::Atan).Case("math.asinh", K::Asinh)
            .Case("math.acosh", K::Acosh).Case("math.atanh", K::Atanh).Case("math.erf", K::Erf)
            .Case("math.erfc", K::Erfc).Case("math.cbrt", K::Cbrt).Case("math.floor", K::Floor)
            .Case("math.ceil", K::Ceil).Case("math.trunc", K::Trunc).Case("math.round", K::Round)
            .Case("math.roundeven", K::RoundEven).Case("math.isnan", K::IsNaN).Case("math.isinf", K::IsInf)
            .Case("math.isfinite", K::IsFinite).Case("math.isnormal", K::IsNormal)
            .Case("arith.select", K::Select).Case("arith.extsi", K::ExtSI).Case("arith.extui", K::ExtUI)
            .Case("arith.trunci", K::TruncI).Case("arith.extf", K::ExtF).Case("arith.truncf", K::TruncF)
            .Case("arith.sitofp", K::SIToFP).Case("arith.uitofp", K::UIToFP).Case("arith.fptosi", K::FPToSI)
            .Case("arith.fptoui", K::FPToUI).Case("arith.bitcast", K::Bitcast)
            .Default(K::Unknown);
  if (k == K::Unknown)
    return std::nullopt;
  ElementwiseOp e{k};
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    e.predicate = int(cmp.getPredicate());
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    e.predicate = int(cmp.getPredicate());
  return e;
}

namespace {

// ---- integer helpers ------------------------------------------------------------------------
// Elements are the low w bits of a uint64_t; results are masked back to w bits by the caller.

uint64_t divSigned(uint64_t a, uint64_t b, int w) {
  int64_t x = signExtend(a, w), y = signExtend(b, w);
  if (y == 0)
    return 0; // defined: x / 0 = 0
  if (y == -1)
    return 0 - a; // -x, which wraps MIN / -1 to MIN (C++ would overflow)
  return uint64_t(x / y);
}
uint64_t remSigned(uint64_t a, uint64_t b, int w) {
  int64_t x = signExtend(a, w), y = signExtend(b, w);
  if (y == 0 || y == -1)
    return 0; // defined: x % 0 = 0 here (the language's % selects x), MIN % -1 = 0
  return uint64_t(x % y);
}
uint64_t floorOrCeilDivSigned(uint64_t a, uint64_t b, int w, bool ceil) {
  int64_t x = signExtend(a, w), y = signExtend(b, w);
  if (y == 0)
    return 0;
  if (y == -1)
    return 0 - a;
  int64_t q = x / y;
  if (x % y != 0 && ((x < 0) == (y < 0)) == ceil)
    q += ceil ? 1 : -1;
  return uint64_t(q);
}
uint64_t shiftLeft(uint64_t a, uint64_t b, int w) { return b >= uint64_t(w) ? 0 : a << b; }
uint64_t shiftRightUnsigned(uint64_t a, uint64_t b, int w) { return b >= uint64_t(w) ? 0 : a >> b; }
uint64_t shiftRightSigned(uint64_t a, uint64_t b, int w) {
  return b >= uint64_t(w) ? 0 : uint64_t(signExtend(a, w) >> b); // C++20: arithmetic shift
}

bool compareInts(arith::CmpIPredicate p, uint64_t a, uint64_t b, int w) {
  int64_t x = signExtend(a, w), y = signExtend(b, w);
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq: return a == b;
  case P::ne: return a != b;
  case P::slt: return x < y;
  case P::sle: return x <= y;
  case P::sgt: return x > y;
  case P::sge: return x >= y;
  case P::ult: return a < b;
  case P::ule: return a <= b;
  case P::ugt: return a > b;
  case P::uge: return a >= b;
  }
  return false;
}

bool compareFloats(arith::CmpFPredicate p, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse: return false;
  case P::OEQ: return !unordered && x == y;
  case P::OGT: return !unordered && x > y;
  case P::OGE: return !unordered && x >= y;
  case P::OLT: return !unordered && x < y;
  case P::OLE: return !unordered && x <= y;
  case P::ONE: return !unordered && x != y;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || x == y;
  case P::UGT: return unordered || x > y;
  case P::UGE: return unordered || x >= y;
  case P::ULT: return unordered || x < y;
  case P::ULE: return unordered || x <= y;
  case P::UNE: return unordered || x != y;
  case P::UNO: return unordered;
  case P::AlwaysTrue: return true;
  }
  return false;
}

// ---- float helpers (templates over float and double) ----------------------------------------

/// maxNum/minNum (arith.maxnumf): a NaN operand gives the other one.
template <class T> T maxNumOf(T a, T b) { return std::isnan(a) ? b : std::isnan(b) ? a : maximumOf(a, b); }
template <class T> T minNumOf(T a, T b) { return std::isnan(a) ? b : std::isnan(b) ? a : minimumOf(a, b); }

/// Applies `fn` to every element of the float tile(s) `a` (`b`, `c`): in float for F32 (and in
/// float, rounded back, for F16/BF16), in double for F64; the shadow always in double.
template <class Fn> void floatMap(const TileValue &a, TileValue &r, bool shadow, Fn fn) {
  size_t n = a.size();
  r.bits.resize(n);
  if (a.elem == Elem::F64)
    for (size_t i = 0; i < n; ++i) r.bits[i] = bitsOf(double(fn(f64Of(a.bits[i]))));
  else if (a.elem == Elem::F32)
    for (size_t i = 0; i < n; ++i) r.bits[i] = bitsOf(float(fn(f32Of(a.bits[i]))));
  else
    for (size_t i = 0; i < n; ++i) r.bits[i] = encodeFloat(r.elem, float(fn(floatOf(a.elem, a.bits[i]))));
  if (shadow) {
    r.shadow.resize(n);
    for (size_t i = 0; i < n; ++i) r.shadow[i] = double(fn(shadowAt(a, i)));
  }
}
template <class Fn> void floatMap(const TileValue &a, const TileValue &b, TileValue &r, bool shadow, Fn fn) {
  size_t n = a.size();
  r.bits.resize(n);
  if (a.elem == Elem::F64)
    for (size_t i = 0; i < n; ++i) r.bits[i] = bitsOf(double(fn(f64Of(a.bits[i]), f64Of(b.bits[i]))));
  else if (a.elem == Elem::F32)
    for (size_t i = 0; i < n; ++i) r.bits[i] = bitsOf(float(fn(f32Of(a.bits[i]), f32Of(b.bits[i]))));
  else
    for (size_t i = 0; i < n; ++i)
      r.bits[i] = encodeFloat(r.elem, float(fn(floatOf(a.elem, a.bits[i]), floatOf(b.elem, b.bits[i]))));
  if (shadow) {
    r.shadow.resize(n);
    for (size_t i = 0; i < n; ++i) r.shadow[i] = double(fn(shadowAt(a, i), shadowAt(b, i)));
  }
}
template <class Fn>
void floatMap(const TileValue &a, const TileValue &b, const TileValue &c, TileValue &r, bool shadow, Fn fn) {
  size_t n = a.size();
  r.bits.resize(n);
  if (a.elem == Elem::F64)
    for (size_t i = 0; i < n; ++i) r.bits[i] = bitsOf(double(fn(f64Of(a.bits[i]), f64Of(b.bits[i]), f64Of(c.bits[i]))));
  else
    for (size_t i = 0; i < n; ++i)
      r.bits[i] = encodeFloat(r.elem, float(fn(floatOf(a.elem, a.bits[i]), floatOf(b.elem, b.bits[i]),
                                               floatOf(c.elem, c.bits[i]))));
  if (shadow) {
    r.shadow.resize(n);
    for (size_t i = 0; i < n; ++i) r.shadow[i] = double(fn(shadowAt(a, i), shadowAt(b, i), shadowAt(c, i)));
  }
}

/// A float predicate (isnan ...) into an i1 tile; no shadow.
template <class Fn> void floatTest(const TileValue &a, TileValue &r, Fn fn) {
  r.bits.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) r.bits[i] = fn(doubleOf(a.elem, a.bits[i])) ? 1 : 0;
}

/// Sign-bit operations, exact on the bits of any float type (NaNs included).
uint64_t signBitOf(Elem e) { return uint64_t(1) << (widthOf(e) - 1); }

template <class Fn> void intMap(const TileValue &a, const TileValue &b, TileValue &r, Fn fn) {
  int w = widthOf(a.elem);
  uint64_t mask = lowMask(widthOf(r.elem));
  r.bits.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) r.bits[i] = uint64_t(fn(a.bits[i], b.bits[i], w)) & mask;
}
template <class Fn> void intMap(const TileValue &a, TileValue &r, Fn fn) {
  int w = widthOf(a.elem);
  uint64_t mask = lowMask(widthOf(r.elem));
  r.bits.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) r.bits[i] = uint64_t(fn(a.bits[i], w)) & mask;
}

/// float -> integer of width w: truncation toward zero, saturating, NaN -> 0.
uint64_t floatToSigned(double d, int w) {
  if (std::isnan(d))
    return 0;
  double limit = std::ldexp(1.0, w - 1); // 2^(w-1), exact
  if (d >= limit)
    return lowMask(w - 1);
  if (d < -limit)
    return uint64_t(1) << (w - 1); // MIN
  return uint64_t(int64_t(d));
}
uint64_t floatToUnsigned(double d, int w) {
  if (!(d > 0)) // NaN, zero, negative
    return 0;
  if (d >= std::ldexp(1.0, w))
    return lowMask(w);
  return uint64_t(d);
}

/// An integer (as a sign and magnitude) in float type `e`, rounded once to nearest even.
uint64_t intToFloat(Elem e, bool negative, uint64_t magnitude) {
  switch (e) {
  case Elem::F64: {
    double d = double(magnitude); // one correct rounding
    return bitsOf(negative ? -d : d);
  }
  case Elem::F32: {
    float f = float(magnitude);
    return bitsOf(negative ? -f : f);
  }
  default: return encodeFloat(e, intToFloatOdd(negative, magnitude));
  }
}

void clearShadow(std::vector<TileValue *> &results) {
  for (TileValue *r : results) r->shadow.clear();
}

} // namespace

bool evalElementwise(const ElementwiseOp &op, const std::vector<const TileValue *> &in,
                     std::vector<TileValue *> &results, bool shadow, std::string *error) {
  using K = ElementwiseOp::Kind;
  TileValue &r = *results[0];
  const TileValue &a = *in[0];
  const TileValue *b = in.size() > 1 ? in[1] : nullptr;
  clearShadow(results);
  bool floatOut = isFloatElem(r.elem);
  bool shadowOut = shadow && floatOut;
  switch (op.kind) {
  // ---- integers ----
  case K::AddI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x + y; }); break;
  case K::SubI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x - y; }); break;
  case K::MulI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x * y; }); break;
  case K::DivSI: intMap(a, *b, r, divSigned); break;
  case K::DivUI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return y ? x / y : 0; }); break;
  case K::RemSI: intMap(a, *b, r, remSigned); break;
  case K::RemUI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return y ? x % y : 0; }); break;
  case K::CeilDivSI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int w) { return floorOrCeilDivSigned(x, y, w, true); }); break;
  case K::FloorDivSI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int w) { return floorOrCeilDivSigned(x, y, w, false); }); break;
  case K::CeilDivUI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return y ? x / y + (x % y != 0) : 0; }); break;
  case K::AndI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x & y; }); break;
  case K::OrI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x | y; }); break;
  case K::XOrI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x ^ y; }); break;
  case K::ShLI: intMap(a, *b, r, shiftLeft); break;
  case K::ShRSI: intMap(a, *b, r, shiftRightSigned); break;
  case K::ShRUI: intMap(a, *b, r, shiftRightUnsigned); break;
  case K::MaxSI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int w) { return signExtend(x, w) < signExtend(y, w) ? y : x; }); break;
  case K::MinSI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int w) { return signExtend(y, w) < signExtend(x, w) ? y : x; }); break;
  case K::MaxUI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return x < y ? y : x; }); break;
  case K::MinUI: intMap(a, *b, r, [](uint64_t x, uint64_t y, int) { return y < x ? y : x; }); break;
  case K::CmpI: {
    auto p = arith::CmpIPredicate(op.predicate);
    intMap(a, *b, r, [p](uint64_t x, uint64_t y, int w) { return uint64_t(compareInts(p, x, y, w)); });
    break;
  }
  case K::AbsI: intMap(a, r, [](uint64_t x, int w) { return signExtend(x, w) < 0 ? 0 - x : x; }); break;
  case K::CountLeadingZeros: intMap(a, r, [](uint64_t x, int w) { return uint64_t(std::countl_zero(x) - (64 - w)); }); break;
  case K::CountTrailingZeros: intMap(a, r, [](uint64_t x, int w) { return x ? uint64_t(std::countr_zero(x)) : uint64_t(w); }); break;
  case K::CountOnes: intMap(a, r, [](uint64_t x, int) { return uint64_t(std::popcount(x)); }); break;
  case K::MulSIExtended:
  case K::MulUIExtended: {
    int w = widthOf(a.elem);
    bool isSigned = op.kind == K::MulSIExtended;
    TileValue &high = *results[1];
    r.bits.resize(a.size());
    high.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      unsigned __int128 p; // the 2w-bit product, two's complement
      if (isSigned) // |x * y| <= 2^126: no overflow
        p = (unsigned __int128)(__int128(signExtend(a.bits[i], w)) * __int128(signExtend(b->bits[i], w)));
      else
        p = (unsigned __int128)a.bits[i] * (unsigned __int128)b->bits[i];
      r.bits[i] = uint64_t(p) & lowMask(w);
      high.bits[i] = uint64_t(p >> w) & lowMask(w);
    }
    break;
  }
  case K::AddUIExtended: {
    int w = widthOf(a.elem);
    TileValue &carry = *results[1];
    r.bits.resize(a.size());
    carry.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      uint64_t s = (a.bits[i] + b->bits[i]) & lowMask(w);
      r.bits[i] = s;
      carry.bits[i] = s < a.bits[i] ? 1 : 0;
    }
    break;
  }

  // ---- floats: exact bit operations ----
  case K::NegF:
  case K::AbsF:
  case K::CopySign: {
    uint64_t sign = signBitOf(a.elem);
    r.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      uint64_t x = a.bits[i];
      r.bits[i] = op.kind == K::NegF ? x ^ sign : op.kind == K::AbsF ? x & ~sign : (x & ~sign) | (b->bits[i] & sign);
    }
    if (shadowOut) {
      r.shadow.resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        double s = shadowAt(a, i);
        r.shadow[i] = op.kind == K::NegF ? -s : op.kind == K::AbsF ? std::fabs(s) : std::copysign(s, shadowAt(*b, i));
      }
    }
    break;
  }

  // ---- floats: arithmetic (f32 in float, f64 in double, the shadow in double) ----
  case K::AddF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return x + y; }); break;
  case K::SubF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return x - y; }); break;
  case K::MulF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return x * y; }); break;
  case K::DivF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return x / y; }); break;
  case K::RemF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return std::fmod(x, y); }); break;
  case K::MaximumF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return maximumOf(x, y); }); break;
  case K::MinimumF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return minimumOf(x, y); }); break;
  case K::MaxNumF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return maxNumOf(x, y); }); break;
  case K::MinNumF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return minNumOf(x, y); }); break;
  case K::PowF: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return std::pow(x, y); }); break;
  case K::Atan2: floatMap(a, *b, r, shadowOut, [](auto x, auto y) { return std::atan2(x, y); }); break;
  case K::Fma: floatMap(a, *b, *in[2], r, shadowOut, [](auto x, auto y, auto z) { return std::fma(x, y, z); }); break;
  case K::CmpF: {
    auto p = arith::CmpFPredicate(op.predicate);
    r.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      r.bits[i] = compareFloats(p, doubleOf(a.elem, a.bits[i]), doubleOf(b->elem, b->bits[i])) ? 1 : 0;
    break;
  }
#define TESSERA_UNARY(KIND, EXPR)                                                                                      \
  case K::KIND: floatMap(a, r, shadowOut, [](auto x) { using T = decltype(x); (void)sizeof(T); return EXPR; }); break;
  TESSERA_UNARY(Sqrt, std::sqrt(x))
  TESSERA_UNARY(Rsqrt, T(1) / std::sqrt(x))
  TESSERA_UNARY(Exp, std::exp(x))
  TESSERA_UNARY(Exp2, std::exp2(x))
  TESSERA_UNARY(ExpM1, std::expm1(x))
  TESSERA_UNARY(Log, std::log(x))
  TESSERA_UNARY(Log2, std::log2(x))
  TESSERA_UNARY(Log10, std::log10(x))
  TESSERA_UNARY(Log1p, std::log1p(x))
  TESSERA_UNARY(Sin, std::sin(x))
  TESSERA_UNARY(Cos, std::cos(x))
  TESSERA_UNARY(Tan, std::tan(x))
  TESSERA_UNARY(Tanh, std::tanh(x))
  TESSERA_UNARY(Sinh, std::sinh(x))
  TESSERA_UNARY(Cosh, std::cosh(x))
  TESSERA_UNARY(Asin, std::asin(x))
  TESSERA_UNARY(Acos, std::acos(x))
  TESSERA_UNARY(Atan, std::atan(x))
  TESSERA_UNARY(Asinh, std::asinh(x))
  TESSERA_UNARY(Acosh, std::acosh(x))
  TESSERA_UNARY(Atanh, std::atanh(x))
  TESSERA_UNARY(Erf, std::erf(x))
  TESSERA_UNARY(Erfc, std::erfc(x))
  TESSERA_UNARY(Cbrt, std::cbrt(x))
  TESSERA_UNARY(Floor, std::floor(x))
  TESSERA_UNARY(Ceil, std::ceil(x))
  TESSERA_UNARY(Trunc, std::trunc(x))
  TESSERA_UNARY(Round, std::round(x))               // halfway cases away from zero
  TESSERA_UNARY(RoundEven, std::nearbyint(x))       // the default rounding mode: to nearest even
#undef TESSERA_UNARY
  case K::IsNaN: floatTest(a, r, [](double x) { return std::isnan(x); }); break;
  case K::IsInf: floatTest(a, r, [](double x) { return std::isinf(x); }); break;
  case K::IsFinite: floatTest(a, r, [](double x) { return std::isfinite(x); }); break;
  case K::IsNormal: {
    // Normal in the operand's own format (a small f32 is subnormal though normal as a double).
    double smallest = a.elem == Elem::F64 ? DBL_MIN : a.elem == Elem::F32 || a.elem == Elem::BF16 ? double(FLT_MIN) : 0x1p-14;
    floatTest(a, r, [smallest](double x) { return std::isfinite(x) && std::fabs(x) >= smallest; });
    break;
  }

  // ---- select and casts ----
  case K::Select: {
    const TileValue &t = *in[1], &f = *in[2];
    bool scalarCond = a.size() == 1 && t.size() != 1;
    r.bits.resize(t.size());
    for (size_t i = 0; i < t.size(); ++i) r.bits[i] = (a.bits[scalarCond ? 0 : i] & 1) ? t.bits[i] : f.bits[i];
    if (shadowOut) {
      r.shadow.resize(t.size());
      for (size_t i = 0; i < t.size(); ++i) r.shadow[i] = (a.bits[scalarCond ? 0 : i] & 1) ? shadowAt(t, i) : shadowAt(f, i);
    }
    break;
  }
  case K::ExtSI: intMap(a, r, [](uint64_t x, int w) { return uint64_t(signExtend(x, w)); }); break;
  case K::ExtUI:
  case K::TruncI: intMap(a, r, [](uint64_t x, int) { return x; }); break;
  case K::ExtF:
  case K::TruncF: {
    r.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      r.bits[i] = a.elem == Elem::F64 ? encodeDouble(r.elem, f64Of(a.bits[i])) : encodeFloat(r.elem, floatOf(a.elem, a.bits[i]));
    if (shadowOut) { // the shadow is not rounded
      r.shadow.resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) r.shadow[i] = shadowAt(a, i);
    }
    break;
  }
  case K::SIToFP:
  case K::UIToFP: {
    int w = widthOf(a.elem);
    r.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      uint64_t x = a.bits[i];
      bool negative = op.kind == K::SIToFP && signExtend(x, w) < 0;
      uint64_t magnitude = negative ? 0 - uint64_t(signExtend(x, w)) : x;
      r.bits[i] = intToFloat(r.elem, negative, magnitude);
    }
    if (shadowOut) { // the exact integer where a double holds it
      r.shadow.resize(a.size());
      for (size_t i = 0; i < a.size(); ++i)
        r.shadow[i] = op.kind == K::SIToFP ? double(signExtend(a.bits[i], w)) : double(a.bits[i]);
    }
    break;
  }
  case K::FPToSI:
  case K::FPToUI: {
    int w = widthOf(r.elem);
    r.bits.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      double d = doubleOf(a.elem, a.bits[i]);
      r.bits[i] = (op.kind == K::FPToSI ? floatToSigned(d, w) : floatToUnsigned(d, w)) & lowMask(w);
    }
    break;
  }
  case K::Bitcast:
    if (widthOf(a.elem) != widthOf(r.elem)) {
      *error = std::string("arith.bitcast from ") + elemName(a.elem) + " to " + elemName(r.elem) + " changes the width";
      return false;
    }
    r.bits = a.bits; // the shadow restarts from the value
    break;
  default:
    *error = "an element-wise op without an implementation";
    return false;
  }
  return true;
}

} // namespace tessera::interp
