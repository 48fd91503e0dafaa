// tile-pipeline-loads: the loads of a loop issued one iteration ahead (num_stages = 2); see
// Passes.td for what moves and why results are unchanged.
#include "Tile/IR/TileDialect.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace tessera::tile {

#define GEN_PASS_DEF_TILEPIPELINELOADS
#include "Tile/Transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// A load that can be issued an iteration early, and the body ops its operands come from (in
/// body order; they are cloned for the other iteration).
struct Candidate {
  LoadOp load;
  SmallVector<Operation *> slice;
};

/// Collects into `slice` the body ops that `v` comes from; false where it depends on an
/// iter_arg, on a load, or on an op with effects or regions.
bool collect(Value v, scf::ForOp loop, llvm::SetVector<Operation *> &slice) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner()->getParentOp() != loop) return true; // from outside the loop
    return arg == loop.getInductionVar();
  }
  Operation *def = v.getDefiningOp();
  if (!loop->isProperAncestor(def)) return true; // defined outside
  if (def->getBlock() != loop.getBody() || isa<LoadOp>(def) || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  if (slice.contains(def)) return true;
  for (Value operand : def->getOperands())
    if (!collect(operand, loop, slice)) return false;
  slice.insert(def);
  return true;
}

/// Whether the loop is innermost and its body writes no memory (then no load can be moved
/// across a write it depends on).
bool bodyOnlyReads(scf::ForOp loop) {
  bool ok = true;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp>(op) || (!isa<LoadOp>(op) && !isMemoryEffectFree(op) && !isa<scf::YieldOp>(op)))
      ok = false;
  });
  return ok;
}

/// `mask` (or all-true when null) of `shape` and-ed with the scalar `cond`.
Value guardedMask(OpBuilder &b, Location loc, Value mask, Value cond, RankedTensorType shape) {
  auto maskType = RankedTensorType::get(shape.getShape(), b.getI1Type());
  Value splat = SplatOp::create(b, loc, maskType, cond);
  return mask ? Value(arith::AndIOp::create(b, loc, mask, splat)) : splat;
}

/// Clones the candidates' slices and loads with the induction variables `loopIvs` (those their
/// ops may use) mapped to `iv`, each load masked also by `cond`; returns the loaded tiles.
SmallVector<Value> loadsAt(OpBuilder &b, ArrayRef<Value> loopIvs, ArrayRef<Candidate> candidates, Value iv, Value cond) {
  SmallVector<Value> out;
  for (const Candidate &c : candidates) {
    IRMapping map;
    for (Value loopIv : loopIvs) map.map(loopIv, iv);
    for (Operation *op : c.slice) b.clone(*op, map);
    LoadOp load = c.load;
    Location loc = load.getLoc();
    Value mask = load.getMask() ? map.lookupOrDefault(load.getMask()) : Value();
    Value other = load.getOther() ? map.lookupOrDefault(load.getOther()) : Value();
    Value offsets = map.lookupOrDefault(load.getOffsets());
    Value guarded = guardedMask(b, loc, mask, cond, cast<RankedTensorType>(load.getOffsets().getType()));
    out.push_back(LoadOp::create(b, loc, load.getType(), load.getPtr(), offsets, guarded, other));
  }
  return out;
}

/// Marks a loop whose loads this pass has issued ahead: a second run (tessera compile of
/// --emit=tile-opt output, whose kernel keeps tile.num_stages) leaves it as it is.
constexpr const char *kPipelinedAttr = "tile.loads_pipelined";

void pipeline(scf::ForOp loop) {
  if (loop->hasAttr(kPipelinedAttr) || !bodyOnlyReads(loop)) return;
  SmallVector<Candidate> candidates;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<LoadOp>(&op);
    if (!load) continue;
    llvm::SetVector<Operation *> slice;
    if (!llvm::all_of(load->getOperands(), [&](Value v) { return collect(v, loop, slice); })) continue;
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    candidates.push_back({load, ordered});
  }
  if (candidates.empty()) return;

  Location loc = loop.getLoc();
  const Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  const Value oldIv = loop.getInductionVar();
  const arith::CmpIPredicate less = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  IRRewriter rewriter(loop.getContext());
  // Before the loop: the first iteration's tiles, where there is a first iteration.
  rewriter.setInsertionPoint(loop);
  Value first = arith::CmpIOp::create(rewriter, loc, less, lb, ub);
  SmallVector<Value> initial = loadsAt(rewriter, {oldIv}, candidates, lb, first);

  auto yieldNext = [&](OpBuilder &b, Location, ArrayRef<BlockArgument> carried) -> SmallVector<Value> {
    Block *body = carried.front().getOwner();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    // The new loop's body (the old body's ops join it after this call, and then use its
    // induction variable): its start, ahead of all of them.
    Value iv = body->getArgument(0);
    Value next = arith::AddIOp::create(b, loc, iv, step);
    Value forward = arith::CmpIOp::create(b, loc, less, iv, next); // false where i + step wrapped around
    Value inside = arith::CmpIOp::create(b, loc, less, next, ub);
    Value cond = arith::AndIOp::create(b, loc, forward, inside);
    return loadsAt(b, {oldIv, iv}, candidates, next, cond);
  };
  FailureOr<LoopLikeOpInterface> replaced =
      cast<LoopLikeOpInterface>(loop.getOperation()).replaceWithAdditionalYields(rewriter, initial, /*replaceInitOperandUsesInLoop=*/false, yieldNext);
  if (failed(replaced)) return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  newLoop->setAttr(kPipelinedAttr, rewriter.getUnitAttr());
  // The body's own loads become the tiles carried in.
  const unsigned firstCarried = newLoop.getNumRegionIterArgs() - candidates.size();
  for (auto [i, c] : llvm::enumerate(candidates)) {
    rewriter.replaceAllUsesWith(c.load.getResult(), newLoop.getRegionIterArgs()[firstCarried + i]);
    rewriter.eraseOp(c.load);
  }
}

struct TilePipelineLoads final : impl::TilePipelineLoadsBase<TilePipelineLoads> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      auto stages = f->getAttrOfType<IntegerAttr>(kNumStagesAttr);
      if (!stages || stages.getInt() < 2) return;
      SmallVector<scf::ForOp> loops;
      f.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) pipeline(loop);
    });
  }
};

} // namespace

} // namespace tessera::tile
