// Traced element-wise operations: operators, casts, where/minimum/maximum/abs/clamp/fma and
// the math functions. Narrow types compute in f32 / i32 and round or wrap back, which gives
// the correctly rounded result for + - * / sqrt on f16 and bf16.
#include "TraceState.hpp"

using namespace mlir;
using tessera::tl::BinaryOp;

namespace tessera::tracer {
namespace {

/// fmod's result: |r| < |y| with the sign of x, a zero too. SPIR-V's OpFRem leaves a zero's sign
/// open, and NVIDIA's Vulkan driver computes it through a rounded quotient, so it may be off by
/// one multiple of y (fmod(-908, -14.1875) gave -14.1875 instead of -0). The true remainder is
/// representable, so stepping back by |y| is exact:
///   t = |r|;  t = r and x differ in sign (r != 0) ? |y| - t : t;  t = t >= |y| ? t - |y| : t
///   result = copysign(t, x)
mlir::Value fmodFixup(mlir::OpBuilder &b, mlir::Location l, mlir::Value r, mlir::Value x, mlir::Value y) {
  using namespace mlir;
  Value ay = math::AbsFOp::create(b, l, y);
  Value t = math::AbsFOp::create(b, l, r);
  Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(r.getType()));
  Value rNeg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, r, zero);
  Value rPos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, r, zero);
  Value one = arith::ConstantOp::create(b, l, b.getOneAttr(r.getType()));
  Value xNeg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, math::CopySignOp::create(b, l, one, x), zero);
  Value opposite = arith::SelectOp::create(b, l, xNeg, rPos, rNeg);
  t = arith::SelectOp::create(b, l, opposite, arith::SubFOp::create(b, l, ay, t), t);
  Value over = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, t, ay);
  t = arith::SelectOp::create(b, l, over, arith::SubFOp::create(b, l, t, ay), t);
  return math::CopySignOp::create(b, l, t, x);
}


const char *binaryName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::And: return "&";
  case BinaryOp::Or: return "|";
  case BinaryOp::Xor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  }
  return "?";
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt; }
bool isBitwise(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor; }
bool isShift(BinaryOp op) { return op == BinaryOp::Shl || op == BinaryOp::Shr; }

TVal emitBinary(TraceState &st, BinaryOp op, TVal a, TVal b, SourceLoc sl) {
  const char *name = binaryName(op);
  if (a.dtype != b.dtype)
    fail(sl, std::string("type mismatch in '") + name + "': " + dtypeName(a.dtype) + " and " + dtypeName(b.dtype) +
                 "; both operands must have the same element type (convert one with tl::cast)");
  DType t = a.dtype;
  bool mask = t == DType::Bool, flt = isFloat(t), uns = isUnsigned(t);
  if (mask && !isBitwise(op) && op != BinaryOp::Eq && op != BinaryOp::Ne)
    fail(sl, std::string("'") + name + "' is not defined on masks; use &, |, ^ and ! to combine masks");
  if (flt && (isBitwise(op) || isShift(op)))
    fail(sl, std::string("'") + name + (isBitwise(op) ? "' needs integers or masks, got " : "' needs integers, got ") +
                 dtypeName(t) +
                 (isBitwise(op) ? "; to combine conditions, compare values first, e.g. (offs < n) & (offs >= 0)"
                                : "; shift an integer tile (tl::cast to tessera::DType::I32 first), or multiply a float "
                                  "by a power of two"));
  std::vector<int64_t> shape = broadcastShape(a, b, name, sl);
  a = broadcastTo(st, a, shape, sl, name);
  b = broadcastTo(st, b, shape, sl, name);
  if (!mask) {
    a = widen(st, a, sl);
    b = widen(st, b, sl);
  }
  Location l = st.loc(sl);
  OpBuilder &bld = st.builder;
  Value x = a.value, y = b.value, r;
  DType ct = a.dtype;
  if (isComparison(op)) {
    if (flt) {
      // Ordered comparisons (false with a NaN) except !=, which is true with a NaN, as in C++.
      arith::CmpFPredicate p = op == BinaryOp::Lt ? arith::CmpFPredicate::OLT
                             : op == BinaryOp::Le ? arith::CmpFPredicate::OLE
                             : op == BinaryOp::Gt ? arith::CmpFPredicate::OGT
                             : op == BinaryOp::Ge ? arith::CmpFPredicate::OGE
                             : op == BinaryOp::Eq ? arith::CmpFPredicate::OEQ
                                                  : arith::CmpFPredicate::UNE;
      return {arith::CmpFOp::create(bld, l, p, x, y), DType::Bool};
    }
    using P = arith::CmpIPredicate;
    P p = op == BinaryOp::Lt ? (uns ? P::ult : P::slt)
        : op == BinaryOp::Le ? (uns ? P::ule : P::sle)
        : op == BinaryOp::Gt ? (uns ? P::ugt : P::sgt)
        : op == BinaryOp::Ge ? (uns ? P::uge : P::sge)
        : op == BinaryOp::Eq ? P::eq
                             : P::ne;
    return {arith::CmpIOp::create(bld, l, p, x, y), DType::Bool};
  }
  switch (op) {
  case BinaryOp::Add: r = flt ? Value(arith::AddFOp::create(bld, l, x, y)) : Value(arith::AddIOp::create(bld, l, x, y)); break;
  case BinaryOp::Sub: r = flt ? Value(arith::SubFOp::create(bld, l, x, y)) : Value(arith::SubIOp::create(bld, l, x, y)); break;
  case BinaryOp::Mul: r = flt ? Value(arith::MulFOp::create(bld, l, x, y)) : Value(arith::MulIOp::create(bld, l, x, y)); break;
  case BinaryOp::Div:
  case BinaryOp::Rem: {
    bool div = op == BinaryOp::Div;
    if (flt) {
      r = div ? Value(arith::DivFOp::create(bld, l, x, y)) : Value(arith::RemFOp::create(bld, l, x, y));
      if (!div)
        r = fmodFixup(bld, l, r, x, y);
      break;
    }
    // Defined for every input (LLVM and SPIR-V leave these undefined, and LLVM may then assume
    // a masked-off lane never divides by zero): x / 0 = 0, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0.
    Value zero = constant(st, ct, Number(0), shape, sl).value, one = constant(st, ct, Number(1), shape, sl).value;
    Value byZero = arith::CmpIOp::create(bld, l, arith::CmpIPredicate::eq, y, zero);
    Value special = byZero, byMinusOne;
    if (!uns) {
      byMinusOne = arith::CmpIOp::create(bld, l, arith::CmpIPredicate::eq, y, constant(st, ct, Number(-1), shape, sl).value);
      special = arith::OrIOp::create(bld, l, byZero, byMinusOne);
    }
    Value safe = arith::SelectOp::create(bld, l, special, one, y);
    if (div) {
      r = uns ? Value(arith::DivUIOp::create(bld, l, x, safe)) : Value(arith::DivSIOp::create(bld, l, x, safe));
      if (!uns)
        r = arith::SelectOp::create(bld, l, byMinusOne, arith::SubIOp::create(bld, l, zero, x), r);
      r = arith::SelectOp::create(bld, l, byZero, zero, r);
    } else {
      r = uns ? Value(arith::RemUIOp::create(bld, l, x, safe)) : Value(arith::RemSIOp::create(bld, l, x, safe));
      if (!uns)
        r = arith::SelectOp::create(bld, l, byMinusOne, zero, r);
      r = arith::SelectOp::create(bld, l, byZero, x, r);
    }
    break;
  }
  case BinaryOp::And: r = arith::AndIOp::create(bld, l, x, y); break;
  case BinaryOp::Or: r = arith::OrIOp::create(bld, l, x, y); break;
  case BinaryOp::Xor: r = arith::XOrIOp::create(bld, l, x, y); break;
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    // Shifts by the width or more are defined: 0, or the sign for an arithmetic right shift.
    int w = bitWidth(ct);
    Value limit = constant(st, ct, Number(w - 1), shape, sl).value;
    Value big = arith::CmpIOp::create(bld, l, arith::CmpIPredicate::ugt, y, limit);
    Value clampedShift = arith::SelectOp::create(bld, l, big, limit, y);
    if (op == BinaryOp::Shl) {
      r = arith::ShLIOp::create(bld, l, x, clampedShift);
      r = arith::SelectOp::create(bld, l, big, constant(st, ct, Number(0), shape, sl).value, r);
    } else if (uns) {
      r = arith::ShRUIOp::create(bld, l, x, clampedShift);
      r = arith::SelectOp::create(bld, l, big, constant(st, ct, Number(0), shape, sl).value, r);
    } else {
      r = arith::ShRSIOp::create(bld, l, x, clampedShift); // w-1 already gives the sign
    }
    break;
  }
  default: break;
  }
  return mask ? TVal{r, t} : narrow(st, {r, ct}, t, sl);
}

/// A float operand for a math function (f16/bf16 widened to f32), or a user error.
TVal floatOperand(TraceState &st, const TVal &v, const char *fn, SourceLoc loc) {
  if (!isFloat(v.dtype))
    fail(loc, std::string(fn) + " needs a float tile, got " + describe(v) + "; convert it first, e.g. tl::cast(x, "
                                "tessera::DType::F32)");
  return widen(st, v, loc);
}

template <class MathOp> tl::Tile unaryMath(const tl::Tile &x, const char *fn, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  TVal f = floatOperand(st, v, fn, loc);
  Value r = MathOp::create(st.builder, st.loc(loc), f.value);
  return tl::Tile(st.add(narrow(st, {r, DType::F32}, v.dtype, loc)));
}

/// Two operands of one dtype and shape (numbers adapt to the tile's dtype).
std::pair<TVal, TVal> pairOf(TraceState &st, const TVal &a, const TVal &b, const char *fn, SourceLoc loc) {
  if (a.dtype != b.dtype)
    fail(loc, std::string(fn) + ": operands are " + dtypeName(a.dtype) + " and " + dtypeName(b.dtype) +
                  "; they must have the same element type (use tl::cast)");
  std::vector<int64_t> shape = broadcastShape(a, b, fn, loc);
  return {broadcastTo(st, a, shape, loc, fn), broadcastTo(st, b, shape, loc, fn)};
}

TVal minMax(TraceState &st, TVal a, TVal b, bool isMax, SourceLoc loc) {
  const char *fn = isMax ? "maximum" : "minimum";
  if (a.dtype == DType::Bool)
    fail(loc, std::string(fn) + " is not defined on masks; use | or &");
  std::tie(a, b) = pairOf(st, a, b, fn, loc);
  DType t = a.dtype;
  TVal x = widen(st, a, loc), y = widen(st, b, loc);
  Location l = st.loc(loc);
  OpBuilder &bld = st.builder;
  Value r;
  if (isFloat(t))
    r = isMax ? Value(arith::MaximumFOp::create(bld, l, x.value, y.value)) : Value(arith::MinimumFOp::create(bld, l, x.value, y.value));
  else if (isUnsigned(t))
    r = isMax ? Value(arith::MaxUIOp::create(bld, l, x.value, y.value)) : Value(arith::MinUIOp::create(bld, l, x.value, y.value));
  else
    r = isMax ? Value(arith::MaxSIOp::create(bld, l, x.value, y.value)) : Value(arith::MinSIOp::create(bld, l, x.value, y.value));
  return narrow(st, {r, x.dtype}, t, loc);
}

} // namespace
} // namespace tessera::tracer

namespace tessera::tl {
using namespace tessera::tracer;

namespace detail {

uint32_t binary(BinaryOp op, uint32_t lhs, uint32_t rhs, SourceLoc loc) {
  auto &st = state(loc);
  return st.add(emitBinary(st, op, st.get(lhs, loc), st.get(rhs, loc), loc));
}

uint32_t binaryConst(BinaryOp op, uint32_t lhs, Number rhs, bool constOnLeft, SourceLoc loc) {
  auto &st = state(loc);
  TVal t = st.get(lhs, loc);
  TVal c = constant(st, t.dtype, rhs, {}, loc);
  return st.add(constOnLeft ? emitBinary(st, op, c, t, loc) : emitBinary(st, op, t, c, loc));
}

uint32_t logicalNot(uint32_t value, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(value, loc);
  if (v.dtype == DType::Bool) {
    Value one = arith::ConstantOp::create(st.builder, st.loc(loc), st.builder.getBoolAttr(true));
    return st.add(emitBinary(st, BinaryOp::Xor, v, {one, DType::Bool}, loc));
  }
  if (isFloat(v.dtype))
    fail(loc, "'!' needs a mask (bool tile) or integers, got " + describe(v) + "; for floats, compare instead, e.g. x == 0");
  int64_t ones = isUnsigned(v.dtype) ? int64_t((uint64_t(1) << bitWidth(v.dtype)) - 1) : -1;
  return st.add(emitBinary(st, BinaryOp::Xor, v, constant(st, v.dtype, Number(ones), {}, loc), loc)); // bitwise not
}

uint32_t negate(uint32_t value, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(value, loc);
  if (v.dtype == DType::Bool)
    fail(loc, "unary '-' is not defined on masks; use '!'");
  if (isFloat(v.dtype)) {
    TVal w = widen(st, v, loc);
    return st.add(narrow(st, {arith::NegFOp::create(st.builder, st.loc(loc), w.value), w.dtype}, v.dtype, loc));
  }
  return st.add(emitBinary(st, BinaryOp::Sub, constant(st, v.dtype, Number(0), {}, loc), v, loc));
}

uint32_t checkOffsets(uint32_t offsets, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(offsets, loc);
  if (v.dtype != DType::I32)
    fail(loc, "pointer offsets must be an i32 tile, got " + describe(v) +
                  (v.dtype == DType::I64 ? "; cast them with tl::cast(offs, tessera::DType::I32)"
                                          : "; offsets count elements: build them from tl::arange and "
                                            "program_id, or tl::cast them to tessera::DType::I32"));
  return offsets; // a scalar offset is fine here (x + row + cols); loads and stores need a tile
}

uint32_t constantOffset(int64_t value, SourceLoc loc) {
  auto &st = state(loc);
  return st.add(constant(st, DType::I32, Number(value), {}, loc));
}

DType dtypeOf(uint32_t value) {
  auto loc = SourceLoc::current();
  return state(loc).get(value, loc).dtype;
}

std::vector<int64_t> shapeOf(uint32_t value) {
  auto loc = SourceLoc::current();
  return state(loc).get(value, loc).shape();
}

} // namespace detail

Tile cast(const Tile &x, DType dtype, SourceLoc loc) {
  auto &st = state(loc);
  return Tile(st.add(convert(st, st.get(x.id(), loc), dtype, loc)));
}

static Tile whereImpl(TraceState &st, TVal m, TVal a, TVal b, SourceLoc loc) {
  if (m.dtype != DType::Bool)
    fail(loc, "where: the condition must be a mask (bool tile), got " + describe(m) + "; compare to make one");
  std::tie(a, b) = pairOf(st, a, b, "where", loc);
  std::vector<int64_t> shape = broadcastShape(m, a, "where", loc);
  m = broadcastTo(st, m, shape, loc, "where");
  a = broadcastTo(st, a, shape, loc, "where");
  b = broadcastTo(st, b, shape, loc, "where");
  return Tile(st.add(arith::SelectOp::create(st.builder, st.loc(loc), m.value, a.value, b.value), a.dtype));
}

Tile where(const Tile &mask, const Tile &a, const Tile &b, SourceLoc loc) {
  auto &st = state(loc);
  return whereImpl(st, st.get(mask.id(), loc), st.get(a.id(), loc), st.get(b.id(), loc), loc);
}
Tile where(const Tile &mask, const Tile &a, Number b, SourceLoc loc) {
  auto &st = state(loc);
  TVal av = st.get(a.id(), loc);
  return whereImpl(st, st.get(mask.id(), loc), av, constant(st, av.dtype, b, {}, loc), loc);
}
Tile where(const Tile &mask, Number a, const Tile &b, SourceLoc loc) {
  auto &st = state(loc);
  TVal bv = st.get(b.id(), loc);
  return whereImpl(st, st.get(mask.id(), loc), constant(st, bv.dtype, a, {}, loc), bv, loc);
}

Tile minimum(const Tile &a, const Tile &b, SourceLoc loc) {
  auto &st = state(loc);
  return Tile(st.add(minMax(st, st.get(a.id(), loc), st.get(b.id(), loc), false, loc)));
}
Tile minimum(const Tile &a, Number b, SourceLoc loc) {
  auto &st = state(loc);
  TVal av = st.get(a.id(), loc);
  return Tile(st.add(minMax(st, av, constant(st, av.dtype, b, {}, loc), false, loc)));
}
Tile maximum(const Tile &a, const Tile &b, SourceLoc loc) {
  auto &st = state(loc);
  return Tile(st.add(minMax(st, st.get(a.id(), loc), st.get(b.id(), loc), true, loc)));
}
Tile maximum(const Tile &a, Number b, SourceLoc loc) {
  auto &st = state(loc);
  TVal av = st.get(a.id(), loc);
  return Tile(st.add(minMax(st, av, constant(st, av.dtype, b, {}, loc), true, loc)));
}
Tile clamp(const Tile &x, Number lo, Number hi, SourceLoc loc) { return minimum(maximum(x, lo, loc), hi, loc); }
Tile clamp(const Tile &x, const Tile &lo, const Tile &hi, SourceLoc loc) { return minimum(maximum(x, lo, loc), hi, loc); }

Tile abs(const Tile &x, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  if (v.dtype == DType::Bool)
    fail(loc, "abs is not defined on masks; a mask has no sign: use it as it is, or tl::cast it to an integer type");
  if (isUnsigned(v.dtype))
    return x;
  TVal w = widen(st, v, loc);
  Location l = st.loc(loc);
  Value r;
  if (isFloat(v.dtype)) {
    r = math::AbsFOp::create(st.builder, l, w.value);
  } else { // x < 0 ? 0 - x : x (wraps for the minimum, as two's complement does)
    Value zero = constant(st, w.dtype, Number(0), w.shape(), loc).value;
    Value neg = arith::CmpIOp::create(st.builder, l, arith::CmpIPredicate::slt, w.value, zero);
    r = arith::SelectOp::create(st.builder, l, neg, arith::SubIOp::create(st.builder, l, zero, w.value), w.value);
  }
  return Tile(st.add(narrow(st, {r, w.dtype}, v.dtype, loc)));
}

Tile fma(const Tile &a, const Tile &b, const Tile &c, SourceLoc loc) {
  auto &st = state(loc);
  TVal x = st.get(a.id(), loc), y = st.get(b.id(), loc), z = st.get(c.id(), loc);
  if (x.dtype != y.dtype || x.dtype != z.dtype)
    fail(loc, "fma: operands must have one element type, got " + std::string(dtypeName(x.dtype)) + ", " +
                  dtypeName(y.dtype) + " and " + dtypeName(z.dtype) + "; convert them to one float type with tl::cast");
  DType t = x.dtype;
  std::vector<int64_t> shape = broadcastShape(x, y, "fma", loc);
  shape = broadcastShape(broadcastTo(st, x, shape, loc, "fma"), z, "fma", loc);
  TVal fx = floatOperand(st, broadcastTo(st, x, shape, loc, "fma"), "fma", loc);
  TVal fy = floatOperand(st, broadcastTo(st, y, shape, loc, "fma"), "fma", loc);
  TVal fz = floatOperand(st, broadcastTo(st, z, shape, loc, "fma"), "fma", loc);
  Value r = math::FmaOp::create(st.builder, st.loc(loc), fx.value, fy.value, fz.value);
  return Tile(st.add(narrow(st, {r, DType::F32}, t, loc)));
}

Tile exp(const Tile &x, SourceLoc loc) { return unaryMath<math::ExpOp>(x, "exp", loc); }
Tile exp2(const Tile &x, SourceLoc loc) { return unaryMath<math::Exp2Op>(x, "exp2", loc); }
Tile log(const Tile &x, SourceLoc loc) { return unaryMath<math::LogOp>(x, "log", loc); }
Tile log2(const Tile &x, SourceLoc loc) { return unaryMath<math::Log2Op>(x, "log2", loc); }
Tile sqrt(const Tile &x, SourceLoc loc) { return unaryMath<math::SqrtOp>(x, "sqrt", loc); }
Tile rsqrt(const Tile &x, SourceLoc loc) { return unaryMath<math::RsqrtOp>(x, "rsqrt", loc); }
Tile sin(const Tile &x, SourceLoc loc) { return unaryMath<math::SinOp>(x, "sin", loc); }
Tile cos(const Tile &x, SourceLoc loc) { return unaryMath<math::CosOp>(x, "cos", loc); }
Tile tanh(const Tile &x, SourceLoc loc) { return unaryMath<math::TanhOp>(x, "tanh", loc); }
Tile erf(const Tile &x, SourceLoc loc) { return unaryMath<math::ErfOp>(x, "erf", loc); }
Tile floor(const Tile &x, SourceLoc loc) { return unaryMath<math::FloorOp>(x, "floor", loc); }
Tile ceil(const Tile &x, SourceLoc loc) { return unaryMath<math::CeilOp>(x, "ceil", loc); }

Tile sigmoid(const Tile &x, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  TVal f = floatOperand(st, v, "sigmoid", loc);
  Location l = st.loc(loc);
  // e = exp(-|x|); x >= 0: 1 / (1 + e), else e / (1 + e). The one form 1 / (1 + exp(-x)) gives 0
  // below x = -88.7, where exp(-x) overflows but the result is still a (denormal) number.
  Value e = math::ExpOp::create(st.builder, l,
                                arith::NegFOp::create(st.builder, l, math::AbsFOp::create(st.builder, l, f.value)));
  Value one = constant(st, DType::F32, Number(1.0), f.shape(), loc).value;
  Value zero = constant(st, DType::F32, Number(0.0), f.shape(), loc).value;
  Value positive = arith::CmpFOp::create(st.builder, l, arith::CmpFPredicate::OGE, f.value, zero);
  Value numerator = arith::SelectOp::create(st.builder, l, positive, one, e);
  Value r = arith::DivFOp::create(st.builder, l, numerator, arith::AddFOp::create(st.builder, l, one, e));
  return Tile(st.add(narrow(st, {r, DType::F32}, v.dtype, loc)));
}

Tile pow(const Tile &x, const Tile &y, SourceLoc loc) {
  auto &st = state(loc);
  auto [a, b] = pairOf(st, st.get(x.id(), loc), st.get(y.id(), loc), "pow", loc);
  TVal fa = floatOperand(st, a, "pow", loc), fb = floatOperand(st, b, "pow", loc);
  Value r = math::PowFOp::create(st.builder, st.loc(loc), fa.value, fb.value);
  return Tile(st.add(narrow(st, {r, DType::F32}, a.dtype, loc)));
}
Tile pow(const Tile &x, Number y, SourceLoc loc) {
  auto &st = state(loc);
  TVal xv = st.get(x.id(), loc);
  return pow(x, Tile(st.add(constant(st, xv.dtype, y, {}, loc))), loc);
}

} // namespace tessera::tl
