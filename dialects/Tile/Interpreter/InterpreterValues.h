// Values of the reference interpreter and its element-wise op table (shared by Interpreter.cpp
// and InterpreterOps.cpp; internal to the compiler library).
#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace tessera::interp {

/// Element types the interpreter computes with (MLIR integers are signless: u32 is I32).
enum class Elem : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };

inline bool isFloatElem(Elem e) { return e >= Elem::F16; }
inline int widthOf(Elem e) {
  switch (e) {
  case Elem::I1: return 1;
  case Elem::I8: return 8;
  case Elem::I16:
  case Elem::F16:
  case Elem::BF16: return 16;
  case Elem::I32:
  case Elem::F32: return 32;
  case Elem::I64:
  case Elem::F64: return 64;
  }
  return 0;
}
/// The Elem of an MLIR scalar or tensor type, or nothing for a type the interpreter lacks.
std::optional<Elem> elemOf(mlir::Type t);
const char *elemName(Elem e);

/// A scalar (shape {}) or a tile, row-major. Each element is its bit pattern in the low
/// widthOf(elem) bits of a uint64_t, the rest zero. `shadow`, when not empty, holds the float64
/// shadow of every element of a float value.
struct TileValue {
  Elem elem = Elem::I32;
  std::vector<int64_t> shape;
  std::vector<uint64_t> bits;
  std::vector<double> shadow;
  size_t size() const { return bits.size(); }
};

// ---- bits <-> numbers ------------------------------------------------------------------------

inline uint64_t lowMask(int w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }
inline int64_t signExtend(uint64_t bits, int w) {
  if (w >= 64)
    return int64_t(bits);
  uint64_t sign = uint64_t(1) << (w - 1);
  return int64_t(((bits & lowMask(w)) ^ sign) - sign);
}
inline float f32Of(uint64_t bits) { return std::bit_cast<float>(uint32_t(bits)); }
inline double f64Of(uint64_t bits) { return std::bit_cast<double>(bits); }
inline uint64_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bitsOf(double d) { return std::bit_cast<uint64_t>(d); }

/// A float element (F16, BF16, F32) as f32, exactly; F64 elements are read with f64Of.
float floatOf(Elem e, uint64_t bits);
/// An element of any float type as a double, exactly.
double doubleOf(Elem e, uint64_t bits);
/// `f` rounded (to nearest even) into float type `e` (F16, BF16, F32, F64).
uint64_t encodeFloat(Elem e, float f);
/// `d` rounded once (to nearest even) into float type `e`: no double rounding through f32.
uint64_t encodeDouble(Elem e, double d);
/// The shadow of element i: the value's own shadow, or the element itself.
inline double shadowAt(const TileValue &v, size_t i) {
  return v.shadow.empty() ? doubleOf(v.elem, v.bits[i]) : v.shadow[i];
}

/// IEEE 754-2019 maximum/minimum (arith.maximumf/minimumf, LLVM's llvm.maximum): a NaN operand
/// gives that NaN (the first one), and -0 < +0.
template <class T> T maximumOf(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
template <class T> T minimumOf(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return b < a ? b : a;
}

// ---- element-wise ops ------------------------------------------------------------------------

/// An arith or math op prepared for evaluation: which function, and its attribute (a compare
/// predicate) read once.
struct ElementwiseOp {
  enum Kind : uint16_t;
  Kind kind;
  int predicate = 0;
};

/// The element-wise op `op` is, or nothing when it is not one the table knows.
std::optional<ElementwiseOp> elementwiseOpFor(mlir::Operation *op);

/// Evaluates `op` on `operands` (all the result's shape, except a select's condition, which may
/// be a scalar) into `results` (one per op result; element types and shape already set).
/// With `shadow`, float results get a shadow. A false return leaves the reason in `*error`.
bool evalElementwise(const ElementwiseOp &op, const std::vector<const TileValue *> &operands,
                     std::vector<TileValue *> &results, bool shadow, std::string *error);

} // namespace tessera::interp
