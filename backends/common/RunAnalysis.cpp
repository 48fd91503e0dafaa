// What the tile IR proves about the runs of a load's or store's offsets and mask along the last
// dimension: contiguity, divisibility and constancy of integer and mask tiles (uniformRunLengths).
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;

namespace tessera::backend {

namespace {

constexpr int64_t kAny = int64_t(1) << 30; // "every power of two we care about"

/// Along the last dimension of a tile (a scalar: as if splat over any length), all powers of two:
///   contiguity c:   in each aligned group of c elements, each is the previous plus 1;
///   divisibility d: the first element of each such group (every element where c = 1) is a
///                   multiple of d;
///   constancy k:    in each aligned group of k elements, all are equal.
struct Facts {
  int64_t contiguity = 1, divisibility = 1, constancy = 1;
};

int64_t lowBit(int64_t v) { return v == 0 ? kAny : std::min<int64_t>(kAny, int64_t(uint64_t(v) & (~uint64_t(v) + 1))); }

/// Divisibility of the elements at positions that are multiples of g (a power of two, at most
/// the contiguity or a multiple of it).
int64_t divisibilityAt(const Facts &f, int64_t g) {
  if (f.contiguity == 1 || g >= f.contiguity)
    return f.divisibility;
  return std::min(f.divisibility, g);
}
int64_t everyElement(const Facts &f) { return divisibilityAt(f, 1); }

class RunAnalysis {
public:
  explicit RunAnalysis(Operation *kernel) {
    auto fn = cast<FunctionOpInterface>(kernel);
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto d = fn.getArgAttrOfType<IntegerAttr>(i, tile::kArgDivisibilityAttr))
        facts[fn.getArgument(i)] = {1, lowBit(d.getInt()), kAny};
    kernel->walk([&](Operation *op) { visit(op); });
  }

  Facts get(Value v) {
    if (auto it = facts.find(v); it != facts.end())
      return it->second;
    Facts f{1, 1, isa<ShapedType>(v.getType()) ? 1 : kAny};
    // A loop's induction variable: lower bound + i * step.
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()); loop && arg == loop.getInductionVar())
        f.divisibility = std::min(everyElement(get(loop.getLowerBound())), everyElement(get(loop.getStep())));
    return f;
  }

  /// The longest run length L (a power of two) such that every aligned group of L elements of the
  /// access has offsets o, o + 1, ..., o + L - 1 with o a multiple of L, and one mask value.
  int64_t uniformRun(Value offsets, Value mask) {
    const Facts o = get(offsets);
    int64_t run = std::min(o.contiguity, o.divisibility);
    if (mask)
      run = std::min(run, get(mask).constancy);
    if (auto t = dyn_cast<RankedTensorType>(offsets.getType()); t && t.getRank() > 0)
      run = std::min(run, t.getShape().back());
    return run;
  }

private:
  static int64_t lastDim(Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.getRank() > 0 ? r.getShape().back() : kAny;
  }

  void visit(Operation *op) {
    if (op->getNumResults() != 1)
      return;
    Value result = op->getResult(0);
    const int64_t n = lastDim(result.getType());
    Facts f;
    APInt c;
    if (matchPattern(result, m_ConstantInt(&c)) && c.getBitWidth() <= 64) {
      f = {1, lowBit(c.getSExtValue()), n};
    } else if (auto arange = dyn_cast<tile::ArangeOp>(op)) {
      f = {n, lowBit(arange.getStart()), 1};
    } else if (auto splat = dyn_cast<tile::SplatOp>(op)) {
      f = {1, everyElement(get(splat.getValue())), n};
    } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      const Facts src = get(expand.getSrc());
      // A new last dimension (of size 1) holds single elements; otherwise the last stays.
      f = int64_t(expand.getAxis()) == cast<RankedTensorType>(result.getType()).getRank() - 1
              ? Facts{1, everyElement(src), 1}
              : src;
    } else if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
      const Facts src = get(broadcast.getSrc());
      f = lastDim(broadcast.getSrc().getType()) == 1 && n > 1 ? Facts{1, everyElement(src), n} : src;
    } else if (isa<arith::AddIOp, arith::SubIOp>(op)) {
      const Facts a = get(op->getOperand(0)), b = get(op->getOperand(1));
      // contiguous + constant (or constant + contiguous for a sum) is contiguous.
      int64_t g = std::min(a.contiguity, b.constancy);
      if (isa<arith::AddIOp>(op))
        g = std::max(g, std::min(b.contiguity, a.constancy));
      f = {g, std::min(divisibilityAt(a, g), divisibilityAt(b, g)), std::min(a.constancy, b.constancy)};
    } else if (isa<arith::MulIOp>(op)) {
      const Facts a = get(op->getOperand(0)), b = get(op->getOperand(1));
      f = {1, std::min(kAny, everyElement(a) * everyElement(b)), std::min(a.constancy, b.constancy)};
    } else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      f = get(op->getOperand(0));
    } else if (auto trunc = dyn_cast<arith::TruncIOp>(op)) {
      f = get(trunc.getIn());
      const unsigned bits = getElementTypeOrSelf(trunc.getType()).getIntOrFloatBitWidth();
      if (bits < 31)
        f.divisibility = std::min(f.divisibility, int64_t(1) << bits);
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      f = compare(cmp, n);
    } else if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
      const Facts a = get(op->getOperand(0)), b = get(op->getOperand(1));
      f = {1, 1, std::min(a.constancy, b.constancy)};
    } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
      const Facts p = get(select.getCondition()), x = get(select.getTrueValue()), y = get(select.getFalseValue());
      const int64_t g = std::min({p.constancy, x.contiguity, y.contiguity});
      f = {g, std::min(divisibilityAt(x, g), divisibilityAt(y, g)), std::min({p.constancy, x.constancy, y.constancy})};
    } else {
      return;
    }
    if (isa<ShapedType>(result.getType())) {
      f.contiguity = std::min(f.contiguity, n);
      f.constancy = std::min(f.constancy, n);
    }
    facts[result] = f;
  }

  /// A comparison is one value over each aligned group of g elements where one side runs
  /// v, v + 1, ..., v + g - 1 from a multiple v of g and the other is one multiple B of g there:
  /// v + i < B for all i or for none. So `x < B` and `x >= B` (and `B > x`, `B <= x`) are; `x <= B`
  /// is not (it turns at B itself).
  Facts compare(arith::CmpIOp cmp, int64_t n) {
    const Facts a = get(cmp.getLhs()), b = get(cmp.getRhs());
    int64_t k = a.contiguity == 1 && b.contiguity == 1 ? std::min(a.constancy, b.constancy) : 1;
    auto runs = [](const Facts &x, const Facts &bound) {
      return std::min({x.contiguity, x.divisibility, bound.constancy, everyElement(bound)});
    };
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::slt:
    case P::ult:
    case P::sge:
    case P::uge:
      if (b.contiguity == 1)
        k = std::max(k, runs(a, b));
      break;
    case P::sgt:
    case P::ugt:
    case P::sle:
    case P::ule:
      if (a.contiguity == 1)
        k = std::max(k, runs(b, a));
      break;
    default:
      break;
    }
    return {1, 1, std::min(k, n)};
  }

  llvm::DenseMap<Value, Facts> facts;
};

} // namespace

std::map<Operation *, int64_t> uniformRunLengths(Operation *kernel) {
  RunAnalysis analysis(kernel);
  std::map<Operation *, int64_t> runs;
  kernel->walk([&](Operation *op) {
    if (auto load = dyn_cast<tile::LoadOp>(op))
      runs[op] = analysis.uniformRun(load.getOffsets(), load.getMask());
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      runs[op] = analysis.uniformRun(store.getOffsets(), store.getMask());
  });
  return runs;
}

} // namespace tessera::backend
