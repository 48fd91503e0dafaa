// Software f32 denormals for portable SPIR-V on drivers that flush them (NVIDIA's Vulkan
// driver promises no shaderDenormPreserveFloat32 and flushes f32 denormals in every float
// instruction). Runs on the gpu.module, at the arith level, before the SPIR-V conversion.
//
// Each f32 operation runs natively first; a flushing driver computes it exactly as IEEE does
// unless a denormal goes in or should come out, and every such case leaves a mark on the native
// result (or inputs) that a few integer operations test. Only then does the operation run again
// in software, in f64, where every f32 value, denormals included, is a normal number: behind one
// branch (scf.if) for the ops of one kind in a row (a tile operation's elements), whose results
// meet in phis (kPhiBranchAttr, GPUToSPIRV.cpp). Random data never takes the branches; the
// results are the IEEE ones either way.
//
//   addf/subf a, b    native r; software when |r| < 2^-100 (exponent field < 27). A flushed
//                     denormal input d only matters against |other| < 2^-101: beyond that
//                     |d| < half an ulp of the other, whose sum rounds to it anyway; a tiny or
//                     zero sum shows as |r| < 2^-126
//   mulf a, b         native r; software when r is zero, denormal or NaN (a flushed input makes
//                     the product zero, or NaN against an infinity)
//   min/max a, b      native r; software when r is zero or denormal (r is one of the inputs; a
//                     flushed one only wins where it should have lost to or tied a tiny value)
//   cmpf p, a, b      native; software when both exponent fields are zero (a normal number
//                     compares with a denormal as with zero)
//   floor/ceil/trunc/round(x)  native; software when x's exponent field is zero
//   truncf f64 -> f32 native r, except where |d| < 2^-126: d's sign and roundeven(|d| 2^149)
//                     (no branch)
//   extf f32 -> f64   native (exact for normal values, inf, NaN), except for a denormal x: the
//                     mantissa times 2^-149, the sign copied (no branch)
//   negf/absf/copysign  integer operations on the sign bit
//
//   software path     roundToF32(f64(a) op f64(b)) (the product is exact, a sum rounded twice
//                     is still correctly rounded: 53 >= 2 * 24 + 2), then its f32 bits
//   roundToF32(d)     (d + C) - C in f64, C = 1.5 * 2^52 * (the f32 spacing at d): ties to
//                     even, gradual underflow; overflow to inf, NaN kept
//   its f32 bits      truncf of a value that is already an f32 one (exact), or for a
//                     denormal its mantissa (r * 2^149) with the sign
//
// Operations that move f32 bits (loads, stores, select, bitcast, shuffles, constants) and
// conversions whose result cannot differ (f32 -> f16: an f32 denormal rounds to a signed zero
// either way; int <-> f32) are left alone. Any other op on f32 is an internal error, so a new
// op cannot slip past the emulation. The portable expansion has already replaced `/`, sqrt,
// fma and the transcendentals by + - * and integer operations.
//
// The suite's self-tests (docs/numerics.md): TESSERA_FAULT=flush-f32-denormals flushes every
// native operation's denormal inputs and results explicitly, as such a driver does, so a device
// that keeps denormals (lavapipe) checks the tests above; =flush-f32-denormals-unguarded also
// never takes the software path, which the suite must then catch.
#include "SPIRVTarget.h"

#include "Registration.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <functional>
#include <optional>

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
  /// NaN) converts exactly; a denormal one is built from its mantissa, r * 2^149 (an integer
  /// there, which narrowDenormal's rounding keeps).
  Value toF32(Value r) const { return narrowDenormal(r, arith::TruncFOp::create(b, loc, f32(), r)); }

  /// f64 `d` as f32, given `converted`, its conversion by a driver that may flush: right
  /// unless |d| < 2^-126, where the f32 is the denormal (or 2^-126) nearest d, ties to even:
  /// its bits are d's sign and roundeven(|d| * 2^149) (exact: a power-of-two scaling).
  Value narrowDenormal(Value d, Value converted) const {
    Value magnitude = math::AbsFOp::create(b, loc, d);
    Value tiny = cmpf(arith::CmpFPredicate::OLT, magnitude, f64Const(0x1p-126));
    Value steps = math::RoundEvenOp::create(b, loc, arith::MulFOp::create(b, loc, magnitude, f64Const(0x1p149)));
    Value sign = andi(trunc(i32(), shr(bitcast(i64(), d), c64(32))), c32(0x80000000u));
    Value denormal = ori(sign, arith::FPToUIOp::create(b, loc, i32(), steps));
    return bitcast(f32(), select(tiny, denormal, bitcast(i32(), converted)));
  }

  /// The bits of f32 `x` without its sign.
  Value magnitudeBits(Value x) const { return andi(bitcast(i32(), x), c32(0x7fffffffu)); }

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
      isa<gpu::ShuffleOp, gpu::YieldOp, tile::BufferLoadRunOp, tile::BufferStoreRunOp, tile::StoreComponentOp>(op))
    return true;
  return false;
}

constexpr uint32_t kMinNormalBits = 0x00800000u; // 2^-126
constexpr uint32_t kInfBits = 0x7f800000u;

/// When a native f32 operation's result may differ from IEEE's on a flushing driver (above;
/// cmpf has its own test: both inputs' exponent fields zero).
enum class Check {
  SmallResult,      // add, sub: |r| < 2^-100
  ZeroOrNaNResult,  // mul: r zero, denormal or NaN
  ZeroResult,       // min, max: r zero or denormal
  TinyInput,        // floor and friends: the input's exponent field zero
};

/// A native operation and what decides its software path, not yet joined to others.
struct Guarded {
  Operation *op; // the operation replaced
  Value fast;    // its native result
  Value need;    // i1: the native result may be wrong
  std::function<Value(const Emitter &)> slow; // builds the software result
};

/// The emulation of one function's f32 arithmetic.
class Emulation {
public:
  Emulation(bool flush, bool unguarded) : flush(flush), unguarded(unguarded) {}

  /// The replacement of `op` (null when it is not one the emulation rewrites), or, for an op
  /// that runs natively, null with `pending` set: its software path is joined with those of
  /// the ops like it around it, behind one branch (emulateF32Denormals).
  Value emulate(Operation *op, std::optional<Guarded> &pending) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Emitter e(b, loc, op->getNumResults() ? op->getResult(0).getType() : Type());
    if (isa<arith::NegFOp>(op))
      return e.signBits(op->getOperand(0), 0x80000000u, true);
    if (isa<math::AbsFOp>(op))
      return e.signBits(op->getOperand(0), 0x7fffffffu, false);
    if (isa<math::CopySignOp>(op)) {
      Value magnitude = e.magnitudeBits(op->getOperand(0));
      Value sign = e.andi(e.bitcast(e.i32(), op->getOperand(1)), e.c32(0x80000000u));
      return e.bitcast(e.f32(), e.ori(magnitude, sign));
    }
    // Conversions need no branch: the denormal case is a few operations more, and a branch
    // would keep the f64s of a whole tile operation live up to it (GPU run 59: 254 registers
    // for portable softmax over 4096 columns).
    if (auto ext = dyn_cast<arith::ExtFOp>(op))
      return isF32(ext.getIn().getType()) && isF64(ext.getType())
                 ? Emitter(b, loc, ext.getIn().getType()).widen(ext.getIn())
                 : nullptr;
    if (auto tr = dyn_cast<arith::TruncFOp>(op)) {
      if (!isF64(tr.getIn().getType()) || !isF32(tr.getType()))
        return nullptr;
      return e.narrowDenormal(tr.getIn(), flushed(e, arith::TruncFOp::create(b, loc, e.f32(), tr.getIn())));
    }
    if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
      if (!isF32(cmp.getLhs().getType()))
        return nullptr;
      Emitter in(b, loc, cmp.getLhs().getType());
      Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
      Value fast = arith::CmpFOp::create(b, loc, cmp.getPredicate(), flushed(in, lhs), flushed(in, rhs));
      Value need = below(in, in.bitcast(in.f32(), in.ori(in.bitcast(in.i32(), lhs), in.bitcast(in.i32(), rhs))), kMinNormalBits);
      return guarded(pending, op, fast, need, [lhs, rhs, predicate = cmp.getPredicate()](const Emitter &s) {
        Emitter wide(s.b, s.loc, lhs.getType());
        return arith::CmpFOp::create(s.b, s.loc, predicate, wide.widen(lhs), wide.widen(rhs)).getResult();
      });
    }
    std::optional<Check> check;
    if (isa<arith::AddFOp, arith::SubFOp>(op))
      check = Check::SmallResult;
    else if (isa<arith::MulFOp>(op))
      check = Check::ZeroOrNaNResult;
    else if (isa<arith::MinimumFOp, arith::MaximumFOp, arith::MinNumFOp, arith::MaxNumFOp>(op))
      check = Check::ZeroResult;
    else if (isa<math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp, math::RoundEvenOp>(op))
      check = Check::TinyInput;
    if (!check || !isF32(op->getResult(0).getType()))
      return nullptr;
    IRMapping native;
    for (Value v : op->getOperands())
      native.map(v, flushed(e, v));
    Value fast = flushed(e, b.clone(*op, native)->getResult(0));
    Value need;
    switch (*check) {
    case Check::SmallResult: need = below(e, fast, 27u << 23); break;
    case Check::ZeroOrNaNResult: need = outside(e, fast, kMinNormalBits); break;
    case Check::ZeroResult: need = below(e, fast, kMinNormalBits); break;
    case Check::TinyInput: need = below(e, op->getOperand(0), kMinNormalBits); break;
    }
    return guarded(pending, op, fast, need, [op](const Emitter &s) {
      IRMapping map;
      for (Value v : op->getOperands())
        map.map(v, s.widen(v));
      Operation *w = s.b.clone(*op, map);
      w->getResult(0).setType(s.f64());
      return s.toF32(s.roundToF32(w->getResult(0)));
    });
  }

private:
  /// Whether f32 `x`'s magnitude bits are below `low` (as one condition, for a vector too).
  Value below(const Emitter &e, Value x, uint32_t low) const {
    return any(e, e.cmp(arith::CmpIPredicate::ult, e.magnitudeBits(x), e.c32(low)));
  }
  /// Whether they are below `low` or a NaN's: one unsigned range test.
  Value outside(const Emitter &e, Value x, uint32_t low) const {
    return any(e, e.cmp(arith::CmpIPredicate::ugt, e.addi(e.magnitudeBits(x), e.c32(0u - low)), e.c32(kInfBits - low)));
  }
  /// A vector's lanes joined into one condition.
  Value any(const Emitter &e, Value condition) const {
    auto vec = dyn_cast<VectorType>(condition.getType());
    if (!vec)
      return condition;
    return vector::ReductionOp::create(e.b, e.loc, vector::CombiningKind::OR, condition);
  }
  /// `x` as a flushing driver sees it (the suite's self-test only): a denormal becomes a zero of
  /// its sign.
  Value flushed(const Emitter &e, Value x) const {
    if (!flush)
      return x;
    Value bits = e.bitcast(e.i32(), x);
    Value tiny = e.cmp(arith::CmpIPredicate::ult, e.magnitudeBits(x), e.c32(kMinNormalBits));
    return e.bitcast(x.getType(), e.select(tiny, e.andi(bits, e.c32(0x80000000u)), bits));
  }
  /// The native result `fast` alone (checks off), or null with `pending` recorded.
  Value guarded(std::optional<Guarded> &pending, Operation *op, Value fast, Value need,
                std::function<Value(const Emitter &)> slow) {
    if (unguarded)
      return fast;
    pending = Guarded{op, fast, need, std::move(slow)};
    return nullptr;
  }

  bool flush, unguarded;
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
  const bool unguarded = faultInjected("flush-f32-denormals-unguarded");
  Emulation emulation(unguarded || faultInjected("flush-f32-denormals"), unguarded);
  // Ops of one kind in a row (the elements of one tile operation) share one branch: a branch an
  // operation cost NVIDIA's Vulkan compiler more than the f64 code saved (GPU run 58). The
  // group's results are only used after its last op.
  std::vector<Guarded> group;
  llvm::DenseSet<Value> groupResults;
  auto close = [&] {
    if (group.empty())
      return;
    OpBuilder b(group.back().op);
    b.setInsertionPointAfter(group.back().op);
    Location loc = group.back().op->getLoc();
    Value need = group.front().need;
    SmallVector<Value> fast{group.front().fast};
    for (size_t i = 1; i < group.size(); ++i) {
      need = arith::OrIOp::create(b, loc, need, group[i].need);
      fast.push_back(group[i].fast);
    }
    auto branch = scf::IfOp::create(
        b, loc, need,
        [&](OpBuilder &nb, Location l) {
          SmallVector<Value> slow;
          for (const Guarded &g : group)
            slow.push_back(g.slow(Emitter(nb, l, g.fast.getType())));
          scf::YieldOp::create(nb, l, slow);
        },
        [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, fast); });
    branch->setAttr(kPhiBranchAttr, b.getUnitAttr());
    for (auto [g, result] : llvm::zip_equal(group, branch.getResults())) {
      g.op->getResult(0).replaceAllUsesWith(result);
      g.op->erase();
    }
    group.clear();
    groupResults.clear();
  };
  // Whether `op` (or an op nested in it) uses a result of the open group.
  auto usesGroup = [&](Operation *op) {
    bool uses = false;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        uses |= groupResults.contains(v);
    });
    return uses;
  };
  for (Operation *op : ops) {
    if (!group.empty()) {
      Operation *last = group.back().op;
      bool joins = op->getBlock() == last->getBlock() && op->getName() == last->getName() && !usesGroup(op);
      for (Operation *between = last->getNextNode(); joins && between && between != op; between = between->getNextNode())
        joins = !usesGroup(between);
      if (!joins)
        close();
    }
    std::optional<Guarded> pending;
    Value replacement = emulation.emulate(op, pending);
    if (pending) {
      groupResults.insert(op->getResult(0));
      group.push_back(std::move(*pending));
      continue;
    }
    if (!replacement) {
      op->emitOpError("has f32 operands or results that software f32 denormals do not handle");
      unknown = true;
      continue;
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  close();
  // What the rewritten ops no longer use is dead: erase it (uses first).
  SmallVector<Operation *> all;
  module.walk([&](Operation *op) { all.push_back(op); });
  for (Operation *op : llvm::reverse(all))
    if (isOpTriviallyDead(op))
      op->erase();
  return failure(unknown);
}

} // namespace tessera::backend
