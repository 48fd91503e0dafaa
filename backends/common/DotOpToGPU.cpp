// Lowering of tile.dot. On every target: both operands staged through shared memory, then each
// thread accumulates its own elements of the result over k in a loop, loading each row of `a` and
// each column of `b` it needs once per k (register blocking). In fast mode, on a target with
// matrix units for the types, the units instead (lowerWithMatrixUnits), or cooperative matrices
// (lowerWithCoopMatrices). On the units, operands loaded for the dot alone are copied from their
// buffers into shared memory asynchronously, in stages across the loop (planDotStaging).
//
// Portable mode keeps the order of docs/numerics.md: per element, from acc, k = 0, 1, ... adds
// the product rounded to the accumulator type with separate mul and add (the targets keep them
// apart: mul.rn/add.rn, NoContraction). Fast mode uses one fused multiply-add per product, or
// the target's matrix units where it has them (lowerWithMatrixUnits).
#include "Rematerializer.h"
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>
#include <map>

using namespace mlir;

namespace tessera::backend {
namespace {

/// Runs `body` where this thread owns its elements of layout `l` (replicas hold the same values
/// and write nothing): under an scf.if on the owner predicate, or directly when every thread owns.
void forOwners(OpBuilder &b, Location loc, const TileLowering &lw, const BlockedLayout &l,
               llvm::function_ref<void(OpBuilder &, Location)> body) {
  if (Value owner = lw.ownerPredicate(b, loc, l))
    scf::IfOp::create(b, loc, owner, [&](OpBuilder &ib, Location il) {
      body(ib, il);
      scf::YieldOp::create(ib, il);
    });
  else
    body(b, loc);
}

/// Runs `body` under an scf.if on `cond` (no else).
void thenDo(OpBuilder &b, Location loc, Value cond, llvm::function_ref<void(OpBuilder &, Location)> body) {
  auto branch = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  body(b, loc);
}

/// Index i * coef[0] + j * coef[1] of this thread's element e of a 2-D tile of layout `l`, from
/// `base` = lw.threadLinear(l, coef).
Value elementIndex(OpBuilder &b, Location loc, const TileLowering &lw, const BlockedLayout &l, ArrayRef<int64_t> coef,
                   Value base, int64_t e) {
  int64_t offset = l.staticCoord(e, 0) * coef[0] + l.staticCoord(e, 1) * coef[1];
  return offset ? Value(arith::AddIOp::create(b, loc, base, lw.i32(b, loc, offset))) : base;
}

/// Writes this thread's elements of a 2-D tile (layout `l`) to shared memory, element (i, j) at
/// index i * coef[0] + j * coef[1] (row-major: {cols, 1}; transposed: {1, rows}), through
/// `store`. Only owners write (replicas hold the same values).
void writeTile(OpBuilder &b, Location loc, const TileLowering &lw, const BlockedLayout &l, ValueRange values,
               ArrayRef<int64_t> coef, llvm::function_ref<void(OpBuilder &, Location, Value, Value)> store) {
  forOwners(b, loc, lw, l, [&](OpBuilder &wb, Location wl) {
    Value base = lw.threadLinear(wb, wl, l, coef);
    for (int64_t e = 0; e < l.perThread(); ++e)
      store(wb, wl, elementIndex(wb, wl, lw, l, coef, base, e), values[e]);
  });
}

/// The operand and result types of a tile.dot and their sizes: a is M x K, b K x N (N x K with
/// transpose_b: `transB`).
struct DotShape {
  RankedTensorType aType, bType, cType;
  int64_t M, K, N;
  Type in, accElem;
  bool transB;
  explicit DotShape(tile::DotOp op)
      : aType(cast<RankedTensorType>(op.getA().getType())), bType(cast<RankedTensorType>(op.getB().getType())),
        cType(cast<RankedTensorType>(op.getType())), M(aType.getDimSize(0)), K(aType.getDimSize(1)),
        N(cType.getDimSize(1)), in(aType.getElementType()), accElem(cType.getElementType()),
        transB(op.getTransposeB()) {}
  /// Where a staged row-major K x N copy of b takes b's element (i, j) (its own coordinates).
  std::array<int64_t, 2> bCoef() const { return transB ? std::array<int64_t, 2>{1, N} : std::array<int64_t, 2>{N, 1}; }
};

/// The loop a dot operand does not change in: the scf.for directly around the dot when
/// `operand` is defined outside it (attention's queries, a weight tile loaded once). Such an
/// operand is staged once, before the loop, instead of in every iteration. Null otherwise.
Operation *invariantLoop(tile::DotOp op, Value operand) {
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!loop)
    return nullptr;
  // The op that defines it, or holds the block whose argument it is (none for a block the
  // conversion has detached: the loop's own iteration arguments).
  Operation *where = operand.getDefiningOp();
  if (!where)
    where = cast<BlockArgument>(operand).getOwner()->getParentOp();
  return where && !loop->isAncestor(where) ? loop.getOperation() : nullptr;
}

/// Writes a loop-invariant operand's staging before `loop`, behind a barrier (readers in an
/// earlier run of the loop, inside an outer loop, are done). The barrier at the top of the
/// dot's own staging in the loop orders the writes before every read; where nothing is staged
/// in the loop (`last`), a barrier after the writes does.
void writeBeforeLoop(OpBuilder &r, Location loc, const TileLowering &lw, Operation *loop, bool last,
                     llvm::function_ref<void(OpBuilder &, Location)> write) {
  OpBuilder::InsertionGuard guard(r);
  r.setInsertionPoint(loop);
  lw.barrier(r, loc);
  write(r, loc);
  if (last)
    lw.barrier(r, loc);
}

/// For operands staged in two halves in `loop` (iteration t writing half t % 2, one barrier an
/// iteration between its writes and its reads): this iteration's half, t % 2, and a barrier
/// before the loop, which ends the reads of an earlier run of it (inside an outer loop).
Value halfParity(OpBuilder &r, Location loc, const TileLowering &lw, scf::ForOp loop) {
  {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPoint(loop);
    lw.barrier(r, loc);
  }
  Value t = arith::DivUIOp::create(r, loc, arith::SubIOp::create(r, loc, loop.getInductionVar(), loop.getLowerBound()),
                                   loop.getStep());
  return arith::AndIOp::create(r, loc, t, lw.i32(r, loc, 1));
}

/// A tile to stage in shared memory: element (i, j) at index i * coef[0] + j * coef[1], or, with
/// `index`, this thread's element e at index(e); `count` elements (0: the tile's) are allocated.
/// With `before` (invariantLoop), it is written once before that loop. With `storeAs`, the array
/// holds that wider type (floats extended exactly, integers sign-extended). With `copy`, the
/// tile comes from its buffer instead (copyToShared), not from `values`. With `unit` > 1 the
/// array holds vectors of `unit` elements, and each run of `unit` of the thread's elements (a
/// divisor of the layout's run, placed contiguously from a multiple of `unit`) is one store; with
/// `byComponent` too, each element is stored alone instead, into component index % unit of
/// vector index / unit (TargetInfo::storeSharedComponent: a transposed tile, read wide).
struct StagedTile {
  RankedTensorType type;
  ValueRange values; // this thread's elements
  std::array<int64_t, 2> coef;
  std::function<Value(OpBuilder &, Location, int64_t)> index = nullptr;
  int64_t count = 0;
  Operation *before = nullptr;
  Type storeAs = {};
  std::function<void(Value)> copy = nullptr; // issues the copies into the array at the insertion point
  int64_t unit = 1;
  bool byComponent = false;
  Value offset = {}; // added to every index (elements): the half of an array in halves
  Value array = {};  // an array to stage into (room an earlier dot freed: FreedRoom), not a new one
};

/// A shared-memory array of `count` elements of `elem` (a scalar, as it is, 16-bit too, or a
/// vector of them), aligned to `align` bytes, counted in the kernel's shared bytes (with its
/// alignment's padding).
Value allocArray(OpBuilder &r, Location loc, const TileLowering &lw, Type elem, int64_t count, int64_t align = 16) {
  auto vec = dyn_cast<VectorType>(elem);
  const int64_t bytes = vec ? vec.getNumElements() * vec.getElementTypeBitWidth() / 8 : elem.getIntOrFloatBitWidth() / 8;
  lw.sharedBytes = (lw.sharedBytes + align - 1) / align * align + count * bytes;
  return lw.target.allocShared(r, loc, cast<gpu::GPUFuncOp>(lw.kernel), elem, count, align);
}

/// Where a staged operand's element (row, col) goes in its array, for layouts other than rows
/// of `ld` elements (the warpgroup units' swizzled rows).
using Placement = std::function<Value(OpBuilder &, Location, Value row, Value col)>;

/// Stages tiles in shared-memory arrays of their own element type, or `storeAs` (the target's
/// own allocations, counted in the kernel's shared bytes), between two barriers, the first
/// keeping the writes of a dot in a loop from overtaking the reads of the previous iteration.
/// Returns the arrays; the caller has checked that they fit.
/// With `asyncReaders` the readers are the target's asynchronous units (wgmma): each thread
/// fences its writes for them before the last barrier. Without `leadingBarrier` the writes go
/// first (the caller keeps them from overtaking earlier reads: alternating halves).
SmallVector<Value> stageTiles(OpBuilder &r, Location loc, const TileLowering &lw, ArrayRef<StagedTile> tiles,
                              bool asyncReaders = false, int64_t align = 16, bool leadingBarrier = true) {
  auto elemOf = [](const StagedTile &t) { return t.storeAs ? t.storeAs : t.type.getElementType(); };
  SmallVector<Value> buffers;
  for (const StagedTile &t : tiles) {
    const int64_t count = t.count ? t.count : t.type.getNumElements();
    OpBuilder::InsertionGuard guard(r);
    if (t.before) // the buffer's handle must dominate the writes before the loop
      r.setInsertionPoint(t.before);
    const Type elem = t.unit > 1 ? Type(VectorType::get({t.unit}, elemOf(t))) : elemOf(t);
    buffers.push_back(t.array ? t.array : allocArray(r, loc, lw, elem, count / t.unit, align));
  }
  auto write = [&](const StagedTile &t, Value buf, OpBuilder &w, Location wl) {
    const BlockedLayout l = lw.layoutOf(t.type);
    const Type elem = elemOf(t);
    auto widen = [elem](OpBuilder &x, Location xl, Value v) -> Value {
      if (v.getType() == elem)
        return v;
      if (v.getType().getIntOrFloatBitWidth() == elem.getIntOrFloatBitWidth()) // bf16 as its bits (matrixStandIn)
        return arith::BitcastOp::create(x, xl, elem, v);
      return isa<FloatType>(elem) ? Value(arith::ExtFOp::create(x, xl, elem, v)) : Value(arith::ExtSIOp::create(x, xl, elem, v));
    };
    auto shifted = [&t](OpBuilder &x, Location xl, Value idx) -> Value {
      return t.offset ? Value(arith::AddIOp::create(x, xl, idx, t.offset)) : idx;
    };
    auto store = [&lw, &t, buf, &widen, &shifted](OpBuilder &x, Location xl, Value idx, Value v) {
      idx = shifted(x, xl, idx);
      if (!t.byComponent)
        return lw.target.storeShared(x, xl, buf, idx, widen(x, xl, v));
      // Element idx is component idx % unit of vector idx / unit.
      Value vec = arith::ShRUIOp::create(x, xl, idx, lw.i32(x, xl, llvm::Log2_64(t.unit)));
      Value component = arith::AndIOp::create(x, xl, idx, lw.i32(x, xl, t.unit - 1));
      lw.target.storeSharedComponent(x, xl, buf, vec, component, widen(x, xl, v));
    };
    if (t.unit > 1 && !t.byComponent) { // each run of `unit` elements as one vector, at its first element's index / unit
      assert(l.vec % t.unit == 0 && "a vector store spans runs");
      forOwners(w, wl, lw, l, [&](OpBuilder &x, Location xl) {
        Value base = t.index ? Value() : lw.threadLinear(x, xl, l, t.coef);
        for (int64_t e = 0; e < l.perThread(); e += t.unit) {
          Value idx = shifted(x, xl, t.index ? t.index(x, xl, e) : elementIndex(x, xl, lw, l, t.coef, base, e));
          idx = arith::ShRUIOp::create(x, xl, idx, lw.i32(x, xl, llvm::Log2_64(t.unit)));
          SmallVector<Value> run;
          for (int64_t v = 0; v < t.unit; ++v)
            run.push_back(widen(x, xl, t.values[e + v]));
          Value vec = vector::FromElementsOp::create(x, xl, VectorType::get({t.unit}, elem), run);
          lw.target.storeShared(x, xl, buf, idx, vec);
        }
      });
    } else if (t.index)
      forOwners(w, wl, lw, l, [&](OpBuilder &x, Location xl) {
        for (int64_t e = 0; e < l.perThread(); ++e) store(x, xl, t.index(x, xl, e), t.values[e]);
      });
    else
      writeTile(w, wl, lw, l, t.values, t.coef, store);
  };
  const bool allBefore = llvm::all_of(tiles, [](const StagedTile &t) { return t.before; });
  for (auto [t, buf] : llvm::zip(tiles, buffers))
    if (t.before)
      writeBeforeLoop(r, loc, lw, t.before, allBefore, [&](OpBuilder &w, Location wl) { write(t, buf, w, wl); });
  if (allBefore)
    return buffers;
  if (leadingBarrier)
    lw.barrier(r, loc);
  bool copied = false;
  for (auto [t, buf] : llvm::zip(tiles, buffers))
    if (t.copy) {
      t.copy(buf);
      copied = true;
    } else if (!t.before) {
      write(t, buf, r, loc);
    }
  if (copied) { // this thread's copies have landed before the barrier shows them to the others
    lw.target.asyncCommit(r, loc);
    lw.target.asyncWait(r, loc, 0);
  }
  if (asyncReaders)
    lw.target.wgmmaSharedFence(r, loc);
  lw.barrier(r, loc);
  return buffers;
}

/// Does `root`, or anything in it, write memory (ops that declare no effects count as writing)?
bool writesMemory(Operation *root) {
  WalkResult walk = root->walk([](Operation *op) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      return effects.hasEffect<MemoryEffects::Write>() ? WalkResult::interrupt() : WalkResult::advance();
    return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return walk.wasInterrupted();
}

/// The load of a dot operand that can go from its buffer straight into shared memory: `operand`
/// is a tile.load that only the dot uses, in the dot's block with nothing between them that
/// writes memory, of a 2-D tile of 16-bit elements whose rows are whole 16-byte runs, and whose
/// offsets, mask and `other` are computable (Rematerializer) from scalars `leafOk` accepts.
tile::LoadOp directLoad(tile::DotOp dot, Value operand, const std::function<bool(Value)> &leafOk) {
  auto load = operand.getDefiningOp<tile::LoadOp>();
  if (!load || !load->hasOneUse() || load->getBlock() != dot->getBlock())
    return {};
  auto type = cast<RankedTensorType>(load.getType());
  const int64_t bits = type.getElementType().isIntOrFloat() ? type.getElementType().getIntOrFloatBitWidth() : 0;
  if ((bits != 16 && bits != 32) || type.getRank() != 2 || (type.getDimSize(1) * bits) % 128)
    return {};
  for (Value v : {load.getOffsets(), load.getMask(), load.getOther()}) {
    int budget = Rematerializer::kBudget;
    if (v && !Rematerializer::computable(v, budget, leafOk))
      return {};
  }
  for (Operation *op = load->getNextNode(); op != dot.getOperation(); op = op->getNextNode())
    if (writesMemory(op))
      return {};
  return load;
}

/// Issues this thread's copies of a direct operand's tile (directLoad) into shared memory:
/// element (i, j) at index stage + i * ld + j. Each 16-byte run that is whole at run time
/// (wholeRunCondition) is one asynchronous copy; the others go element by element, a masked-off
/// element taking `other` (or zero). The load's offsets, mask and other are recomputed in a
/// layout of 16-byte runs, a splat's scalar s taking the value scalar(s). With `place`, element
/// (i, j) goes to stage + place(i, j) instead (each 16-byte run kept whole).
/// Where the tile IR proves every run contiguous, aligned and under one mask bit
/// (TileLowering::provenWhole: the sizes' divisibility, as in a specialized variant) and a
/// masked-off element reads as +0, each run is one copy that reads its 16 bytes where its mask
/// bit is set and none where it is not (zeros), with no branch and no element-by-element path.
void copyToShared(ConversionPatternRewriter &r, Location loc, const TileLowering &lw, tile::LoadOp load, Value shared,
                  Value stage, int64_t ld, const std::function<Value(Value)> &scalar, const Placement &place = nullptr) {
  auto type = cast<RankedTensorType>(load.getType());
  Type elem = type.getElementType();
  const int64_t vec = 16 / (elem.getIntOrFloatBitWidth() / 8);
  const BlockedLayout l = BlockedLayout::get(type.getShape(), lw.threads, vec, vec);
  OpBuilder::InsertionGuard guard(r);
  if (Value owner = lw.ownerPredicate(r, loc, l)) { // replicas copy nothing
    auto branch = scf::IfOp::create(r, loc, owner, /*withElseRegion=*/false);
    r.setInsertionPoint(branch.thenBlock()->getTerminator());
  }
  Rematerializer values(r, loc, lw, scalar);
  SmallVector<Value> offsets = values.elements(load.getOffsets(), l), mask, other;
  if (load.getMask())
    mask = values.elements(load.getMask(), l);
  if (load.getOther())
    other = values.elements(load.getOther(), l);
  Value buffer = r.getRemappedValue(load.getPtr());
  Value zero = !mask.empty() && other.empty() ? Value(arith::ConstantOp::create(r, loc, r.getZeroAttr(elem))) : Value();
  Value base = arith::AddIOp::create(r, loc, stage, lw.threadLinear(r, loc, l, {ld, 1}));
  auto at = [&](int64_t e) -> Value {
    if (place) {
      const int64_t v = e % vec;
      Value run = arith::AddIOp::create(
          r, loc, stage, place(r, loc, lw.elementCoord(r, loc, l, e - v, 0), lw.elementCoord(r, loc, l, e - v, 1)));
      return v ? Value(arith::AddIOp::create(r, loc, run, lw.i32(r, loc, v))) : run;
    }
    const int64_t offset = l.staticCoord(e, 0) * ld + l.staticCoord(e, 1);
    return offset ? Value(arith::AddIOp::create(r, loc, base, lw.i32(r, loc, offset))) : base;
  };
  if (lw.provenWhole(load.getOperation(), vec) && (!load.getOther() || isZeroSplat(load.getOther()))) {
    Value full = lw.i32(r, loc, 16), none = lw.i32(r, loc, 0);
    Value start = arith::ConstantOp::create(r, loc, r.getZeroAttr(offsets.front().getType())); // (i32 or i64)
    for (int64_t j = 0; j < l.perThread(); j += vec) {
      if (mask.empty()) {
        lw.target.asyncCopy(r, loc, shared, at(j), buffer, offsets[j], elem, 16);
        continue;
      }
      // A masked-off run reads nothing from the start of the buffer (its own offset may lie
      // outside it). Passing its own offset instead, as Triton does, measured 7-9% slower (run 86).
      Value from = arith::SelectOp::create(r, loc, mask[j], offsets[j], start);
      lw.target.asyncCopy(r, loc, shared, at(j), buffer, from, elem, 16,
                          arith::SelectOp::create(r, loc, mask[j], full, none));
    }
    return;
  }
  // One branch for all the thread's runs (as loads take, LoadStoreOpToGPU.cpp): where every run
  // is whole, all the copies in one block; otherwise every element on its own. A branch per run
  // cost the wgmma matmul a fifth of its speed (run 26, docs/bench.md).
  auto branch = scf::IfOp::create(r, loc, allRunsWhole(r, loc, offsets, mask, vec), true);
  OpBuilder::InsertionGuard inner(r);
  r.setInsertionPoint(branch.thenBlock()->getTerminator());
  for (int64_t j = 0; j < l.perThread(); j += vec)
    lw.target.asyncCopy(r, loc, shared, at(j), buffer, offsets[j], elem, 16);
  r.setInsertionPoint(branch.elseBlock()->getTerminator());
  for (int64_t e = 0; e < l.perThread(); ++e)
    lw.target.storeShared(r, loc, shared, at(e),
                          loadMaskedElement(r, loc, lw.target, buffer, offsets[e], mask.empty() ? Value() : mask[e],
                                            other.empty() ? zero : other[e], elem));
}

/// Issues the bulk tensor copies of one operand's tile for one iteration (lowerWithWarpgroupUnits):
/// into `shared` from element `stage` on, signalling barrier `index` of `barriers`; `scalar` gives
/// the tile IR's scalars for that iteration; box b of the iteration (this operand's counted from
/// `firstBox`) goes from lane b % 32 of the first subgroup, or, with `lane` null (the caller's
/// thread alone issues: TileLowering::tensorCopiesOneThread), every box from the caller's thread.
/// `bytes`, `boxes`: what it copies.
/// Empty for an operand copied otherwise.
struct TensorIssue {
  std::function<void(OpBuilder &, Location, Value shared, Value stage, const std::function<Value(Value)> &scalar,
                     Value barriers, Value index, Value lane, int64_t firstBox)>
      issue;
  int64_t bytes = 0;
  int64_t boxes = 0;
};

/// Registers a thread of a producer warpgroup (TileLowering::producerDots) keeps; the other
/// `threads` share the rest of a multiprocessor's (at most 240 each, a multiple of 8: 232 with
/// two warpgroups besides the producer on 64 Ki).
constexpr int64_t kProducerRegisters = 40;
int64_t consumerRegisters(const TargetInfo::WgmmaShape &unit, int64_t threads) {
  return std::min<int64_t>(240, (unit.registersPerProcessor - 128 * kProducerRegisters) / threads / 8 * 8);
}

/// The staging of a pipelined dot on matrix units (DotStaging::maxStages > 1). Each operand copied
/// from its buffer (copyToShared) gets `stages` arrays, which the iterations of the loop around
/// the dot use in turn. Before the loop go the copies for its first stages - 1 iterations. Each
/// iteration waits for its own copies, then, behind a barrier that also ends the previous
/// iteration's reads, issues the copies for the iteration stages - 1 ahead into the arrays those
/// reads used, and computes while they are in flight. An operand from registers has one array:
/// written once before the loop when it does not change in the loop, else in each iteration
/// after the copies are issued, behind one more barrier; an operand of size 0 is not staged.
/// Returns the arrays of A and B and where this iteration's elements start in them.
/// With `place` (the warpgroup units), elements go where it puts them, the arrays are aligned to
/// `align` bytes, and each thread fences its writes and landed copies for the asynchronous units. With
/// `ahead` < stages - 1, the copies run only that many iterations ahead, so that the stages of
/// the iterations before stay untouched while the units may still read them.
/// An operand with a `tensor` issuer comes through bulk tensor copies instead, which the first
/// thread issues for the iteration's stage (expecting the bytes, then copying every box; with
/// TileLowering::tensorCopiesOneThread off, the first subgroup's lanes copy some of the boxes
/// each), signalling that stage's barrier in shared memory (one per stage,
/// initialized before the loop); every thread waits for the phase of its iteration's stage
/// (iteration t uses stage t % stages for the (t / stages)-th time: parity (t / stages) % 2).
/// Where every operand staged in the loop comes so and TileLowering::tensorCopiesProgramBarrier
/// is off (`release` set), no barrier of the program is left in the loop: each stage has a
/// second barrier, on which each subgroup's first lane
/// arrives once the units' reads of it are done (release, after the caller's wait for them),
/// and the first subgroup waits for that phase before it copies into the stage again.
struct PipelinedStaging {
  Value a, b;             // the arrays of A and B
  Value aStart, bStart;   // where this iteration's elements start in them
  /// With tensor copies alone: called after the wait that leaves `lag` batches of the units in
  /// flight (0 or 1), it releases the stage of iteration t - lag.
  std::function<void(OpBuilder &, Location, int64_t lag)> release;
  /// With TileLowering::copiesAfterMma, where only cp.async copies are staged in the loop: this
  /// iteration's copies for the iteration ahead (their branch, then the group's commit), which
  /// the caller moves after its matrix instructions' commit.
  SmallVector<Operation *, 2> copiesAhead;
};
PipelinedStaging stagePipelined(ConversionPatternRewriter &r, Location loc, const TileLowering &lw, tile::DotOp op,
                                std::array<ValueRange, 2> values, const tile::LoadOp (&direct)[2],
                                const int64_t (&sizes)[2], std::array<int64_t, 2> ld, int64_t stages,
                                const Placement (&place)[2] = {nullptr, nullptr}, int64_t align = 16, int64_t ahead = 0,
                                const TensorIssue (&tensor)[2] = {}) {
  if (!ahead)
    ahead = stages - 1;
  auto loop = cast<scf::ForOp>(op->getParentOp());
  const DotShape d(op);
  const RankedTensorType types[2] = {d.aType, d.bType};
  const Value operands[2] = {op.getA(), op.getB()};
  const bool tensorCopies = tensor[0].issue || tensor[1].issue;
  const bool asyncCopies = (direct[0] && !tensor[0].issue) || (direct[1] && !tensor[1].issue);
  bool inLoop[2] = {false, false}; // operands from registers written in every iteration
  for (int i = 0; i < 2; ++i)
    inLoop[i] = sizes[i] && !direct[i] && !invariantLoop(op, operands[i]);
  // Every operand staged in the loop comes by tensor copy.
  const bool tensorOnly = tensorCopies && !asyncCopies && !inLoop[0] && !inLoop[1];
  // A producer warpgroup issues this loop's copies (TileLowering::producerDots; the caller checked
  // that every operand copied comes by tensor copy and that their scalars are known before the loop).
  const bool producer = tensorOnly && lw.producerDots.count(op.getOperation());
  const bool released = tensorOnly && (producer || !lw.tensorCopiesProgramBarrier);
  SmallVector<Operation *, 2> copiesAhead; // PipelinedStaging::copiesAhead
  Value barriers; // `stages` barriers the copies signal, then, where released, `stages` the readers do
  auto c = [&](OpBuilder &x, Location xl, int64_t v) { return lw.i32(x, xl, v); };
  auto eq = [&](OpBuilder &x, Location xl, Value v, int64_t k) {
    return arith::CmpIOp::create(x, xl, arith::CmpIPredicate::eq, v, c(x, xl, k));
  };
  Value iv = loop.getInductionVar(), lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value shared[2];
  auto writeRegisters = [&](int i) {
    const BlockedLayout l = lw.layoutOf(types[i]);
    if (place[i]) { // each element where `place` puts it
      forOwners(r, loc, lw, l, [&](OpBuilder &x, Location xl) {
        for (int64_t e = 0; e < l.perThread(); ++e)
          lw.target.storeShared(
              x, xl, shared[i], place[i](x, xl, lw.elementCoord(x, xl, l, e, 0), lw.elementCoord(x, xl, l, e, 1)), values[i][e]);
      });
      return;
    }
    writeTile(r, loc, lw, l, values[i], {ld[i], 1},
              [&](OpBuilder &x, Location xl, Value idx, Value v) { lw.target.storeShared(x, xl, shared[i], idx, v); });
  };
  // From a stage's second use on (iteration `number` uses stage `stage` for the number / stages-th
  // time), wait until its readers released the previous use.
  auto awaitRelease = [&](OpBuilder &x, Location xl, Value number, Value stage) {
    thenDo(x, xl, arith::CmpIOp::create(x, xl, arith::CmpIPredicate::uge, number, c(x, xl, stages)),
           [&](OpBuilder &y, Location yl) {
             Value parity = arith::AndIOp::create(
                 y, yl, arith::AddIOp::create(y, yl, arith::DivUIOp::create(y, yl, number, c(y, yl, stages)), c(y, yl, 1)),
                 c(y, yl, 1));
             lw.target.waitBarrier(y, yl, barriers, arith::AddIOp::create(y, yl, stage, c(y, yl, stages)), parity);
           });
  };
  // The boxes of every operand by tensor copy into `stage`, for the iteration `at` maps the tile
  // IR's scalars to: from the caller's thread (`lane` null) or spread over the first subgroup's lanes.
  auto issueBoxes = [&](OpBuilder &y, Location yl, Value stage, const std::function<Value(Value)> &at, Value lane) {
    int64_t firstBox = 0;
    for (int i = 0; i < 2; ++i)
      if (tensor[i].issue) {
        tensor[i].issue(y, yl, shared[i], arith::MulIOp::create(y, yl, stage, c(y, yl, sizes[i])), at, barriers, stage,
                        lane, firstBox);
        firstBox += tensor[i].boxes;
      }
  };
  // The copies of iteration j (number `number`: null before the loop, where the stages are
  // fresh) into stage `stage` (none past the loop's end), as one group.
  auto issue = [&](Value j, Value stage, Value number) -> Operation * {
    auto inRange = scf::IfOp::create(r, loc, arith::CmpIOp::create(r, loc, arith::CmpIPredicate::slt, j, ub), false);
    {
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPoint(inRange.thenBlock()->getTerminator());
      auto at = [&](Value s) {
        Value mapped = r.getRemappedValue(s);
        return mapped == iv ? j : mapped;
      };
      for (int i = 0; i < 2; ++i)
        if (direct[i] && !tensor[i].issue)
          copyToShared(r, loc, lw, direct[i], shared[i], arith::MulIOp::create(r, loc, stage, c(r, loc, sizes[i])), ld[i],
                       at, place[i]);
      if (tensorCopies) {
        Value firstWarp = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ult, lw.threadId, c(r, loc, 32));
        thenDo(r, loc, firstWarp, [&](OpBuilder &x, Location xl) {
          Value lane = lw.threadId; // (in the first subgroup)
          if (released && number) // the readers of the stage's previous use are done
            awaitRelease(x, xl, number, stage);
          thenDo(x, xl, eq(x, xl, lane, 0), [&](OpBuilder &y, Location yl) {
            lw.target.expectBytes(y, yl, barriers, stage, tensor[0].bytes + tensor[1].bytes);
            if (lw.tensorCopiesOneThread)
              issueBoxes(y, yl, stage, at, Value());
          });
          if (!lw.tensorCopiesOneThread)
            issueBoxes(x, xl, stage, at, lane);
        });
      }
    }
    if (asyncCopies)
      lw.target.asyncCommit(r, loc);
    return inRange;
  };
  {
    OpBuilder::InsertionGuard guard(r);
    // (Before the producer's branch, where an earlier dot of the loop made it: every thread sets up.)
    auto made = lw.producers.find(loop.getOperation());
    r.setInsertionPoint(made != lw.producers.end() ? made->second.first : loop.getOperation());
    for (int i = 0; i < 2; ++i) // (an operand of size 0 stays in registers: no array)
      if (sizes[i])
        shared[i] = allocArray(r, loc, lw, d.in, (direct[i] ? stages : 1) * sizes[i], align);
    lw.barrier(r, loc); // readers in an earlier run of the loop (inside an outer loop) are done
    if (tensorCopies) { // each run of the loop counts its stages' phases from 0
      barriers = allocArray(r, loc, lw, r.getI64Type(), (released ? 2 : 1) * stages); // 8 bytes each
      thenDo(r, loc, eq(r, loc, lw.launchThreadId, 0), [&](OpBuilder &x, Location xl) {
        for (int64_t s = 0; s < stages; ++s)
          lw.target.initBarrier(x, xl, barriers, c(x, xl, s));
        if (released) // an arrival of each subgroup
          for (int64_t s = 0; s < stages; ++s)
            lw.target.initBarrier(x, xl, barriers, c(x, xl, stages + s), lw.threads / 32);
        lw.target.fenceBarrierInit(x, xl);
      });
      lw.barrier(r, loc);
    }
    bool written = false;
    for (int i = 0; i < 2; ++i)
      if (sizes[i] && !direct[i] && !inLoop[i]) {
        writeRegisters(i);
        written = true;
      }
    if (released && written) { // no barrier in the loop orders these writes before the reads
      if (place[0] || place[1])
        lw.target.wgmmaSharedFence(r, loc);
      lw.barrier(r, loc);
    }
    if (!producer)
      for (int64_t s = 0; s < ahead; ++s)
        issue(arith::AddIOp::create(r, loc, lb, arith::MulIOp::create(r, loc, step, c(r, loc, s))), c(r, loc, s), Value());
  }
  if (producer) {
    // The producer: threads past the program's, in a branch before the loop (made by the loop's
    // first dot) running a loop of their own over the same iterations, then exiting. For
    // iteration j (number n, stage n % stages) each dot's part waits, from the stages' second
    // use on, for the readers' release of the stage's previous use, and its first thread
    // expects the stage's bytes and issues every box.
    auto [made, fresh] = lw.producers.try_emplace(loop.getOperation());
    if (fresh) {
      // The producer is a warpgroup, of which only the first subgroup runs the loop: registers
      // move between warpgroups (40 a thread for it, consumerRegisters for the others, from the
      // 168 that 384 threads start with).
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPoint(loop);
      auto branch = scf::IfOp::create(
          r, loc, arith::CmpIOp::create(r, loc, arith::CmpIPredicate::uge, lw.launchThreadId, c(r, loc, lw.threads)), true);
      r.setInsertionPoint(branch.elseBlock()->getTerminator());
      lw.target.setRegisters(r, loc, consumerRegisters(*lw.target.wgmmaShape(d.in, d.accElem), lw.threads), true);
      r.setInsertionPoint(branch.thenBlock()->getTerminator());
      lw.target.setRegisters(r, loc, kProducerRegisters, false);
      auto first = scf::IfOp::create(
          r, loc, arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ult, lw.launchThreadId, c(r, loc, lw.threads + 32)),
          false);
      lw.target.exitThread(r, loc);
      r.setInsertionPoint(first.thenBlock()->getTerminator());
      auto copies = scf::ForOp::create(r, loc, lb, ub, step);
      made->second = {branch.getOperation(), copies.getBody()};
    }
    OpBuilder::InsertionGuard guard(r);
    Block *body = made->second.second;
    r.setInsertionPoint(body->getTerminator());
    Value j = body->getArgument(0);
    Value n = arith::DivUIOp::create(r, loc, arith::SubIOp::create(r, loc, j, lb), step);
    Value stage = arith::RemUIOp::create(r, loc, n, c(r, loc, stages));
    awaitRelease(r, loc, n, stage);
    auto at = [&](Value s) {
      Value mapped = r.getRemappedValue(s);
      return mapped == iv ? j : mapped;
    };
    thenDo(r, loc, eq(r, loc, lw.launchThreadId, lw.threads), [&](OpBuilder &y, Location yl) {
      lw.target.expectBytes(y, yl, barriers, stage, tensor[0].bytes + tensor[1].bytes);
      issueBoxes(y, yl, stage, at, Value());
    });
  }
  {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPointAfter(loop);
    if (asyncCopies)
      lw.target.asyncWait(r, loc, 0); // nothing stays in flight past the loop
  }
  Value t = arith::DivUIOp::create(r, loc, arith::SubIOp::create(r, loc, iv, lb), step); // this iteration's number
  if (asyncCopies)
    lw.target.asyncWait(r, loc, ahead - 1);
  if (tensorCopies) {
    Value use = arith::DivUIOp::create(r, loc, t, c(r, loc, stages));
    lw.target.waitBarrier(r, loc, barriers, arith::RemUIOp::create(r, loc, t, c(r, loc, stages)),
                          arith::AndIOp::create(r, loc, use, c(r, loc, 1)));
  }
  // A later dot of a loop whose every dot waits for its instructions in each iteration, its
  // operands all by tensor copy: the first dot's barrier (which every thread passes only after
  // the previous iteration's dots are done) frees this dot's stage too, so its copies go right
  // after the first dot's, and this dot needs no barrier of its own (TileLowering::loopCopies).
  // (The scalars its copies read, the induction variable or values from before the loop, are
  // known there.)
  Operation *leader = nullptr;
  const bool sharesBarrier = tensorOnly && !released && ahead == stages - 1;
  if (sharesBarrier)
    if (auto it = lw.loopCopies.find(loop.getOperation()); it != lw.loopCopies.end() && it->second.first != op.getOperation())
      leader = it->second.second;
  if (!released && !leader) {
    // Writes of this thread (copies, registers) before the units read them; bulk tensor copies
    // write as the units read (the async proxy), ordered by the barrier's phase.
    if ((place[0] || place[1]) && ((asyncCopies && lw.asyncCopyFence) || !direct[0] || !direct[1]))
      lw.target.wgmmaSharedFence(r, loc);
    lw.barrier(r, loc);
  }
  auto issueAhead = [&](Value now) -> Operation * { // `now`: this iteration's number
    Value aheadNumber = arith::AddIOp::create(r, loc, now, c(r, loc, ahead));
    return issue(arith::AddIOp::create(r, loc, iv, arith::MulIOp::create(r, loc, step, c(r, loc, ahead))),
                 arith::RemUIOp::create(r, loc, aheadNumber, c(r, loc, stages)), aheadNumber);
  };
  if (leader) {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPointAfter(leader);
    lw.loopCopies[loop.getOperation()].second =
        issueAhead(arith::DivUIOp::create(r, loc, arith::SubIOp::create(r, loc, iv, lb), step));
  } else if (!producer) { // (the producer issues its own)
    Operation *issued = issueAhead(t);
    if (sharesBarrier && !lw.loopCopies.count(loop.getOperation()))
      lw.loopCopies[loop.getOperation()] = {op.getOperation(), issued};
    if (lw.copiesAfterMma && asyncCopies && !tensorCopies && !inLoop[0] && !inLoop[1])
      copiesAhead = {issued, &*std::prev(r.getInsertionPoint())}; // the branch, the commit after it
  }
  if (inLoop[0] || inLoop[1]) {
    for (int i = 0; i < 2; ++i)
      if (inLoop[i])
        writeRegisters(i);
    lw.barrier(r, loc);
  }
  Value current = arith::RemUIOp::create(r, loc, t, c(r, loc, stages));
  auto start = [&](int i) {
    return direct[i] ? Value(arith::MulIOp::create(r, loc, current, c(r, loc, sizes[i]))) : c(r, loc, 0);
  };
  PipelinedStaging out{shared[0], shared[1], start(0), start(1), nullptr, copiesAhead};
  if (released)
    out.release = [&lw, barriers, t, stages](OpBuilder &x, Location xl, int64_t lag) {
      // (self-contained: called after this function returns)
      auto k = [&](int64_t v) { return lw.i32(x, xl, v); };
      Value lane = arith::RemUIOp::create(x, xl, lw.threadId, k(32));
      Value first = arith::CmpIOp::create(x, xl, arith::CmpIPredicate::eq, lane, k(0));
      if (lag)
        first = arith::AndIOp::create(x, xl, first, arith::CmpIOp::create(x, xl, arith::CmpIPredicate::uge, t, k(lag)));
      thenDo(x, xl, first, [&](OpBuilder &y, Location yl) {
        Value done = arith::SubIOp::create(y, yl, t, k(lag));
        lw.target.arriveBarrier(y, yl, barriers,
                                arith::AddIOp::create(y, yl, arith::RemUIOp::create(y, yl, done, k(stages)), k(stages)));
      });
    };
  return out;
}

/// Stages of each dot in a loop with several (attention's scores and values).
constexpr int64_t kMultiDotStages = 2;

/// How a fast dot's operands can come into shared memory (TileLowering::DotStaging): operands
/// loaded for it alone straight from their buffers, pipelined when the dot is in a loop that
/// writes no memory and the operands come from offsets of its induction variable and values
/// from outside it: up to 3 stages for the only dot of the loop. With several
/// (kMultiDotStages), each waits for all its thread's copies (wait_group 0 with 2 stages), those
/// of the other dots too, which keeps the count of groups in flight simple. Nothing when no
/// operand can be copied.
std::optional<TileLowering::DotStaging> stagingPlan(tile::DotOp dot) {
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  int dots = 0;
  if (loop && !writesMemory(loop))
    loop->walk([&](tile::DotOp) { ++dots; });
  std::function<bool(Value)> outside = nullptr;
  if (dots > 0)
    outside = [loop](Value v) mutable {
      return v == loop.getInductionVar() || !loop->isAncestor(v.getParentRegion()->getParentOp());
    };
  TileLowering::DotStaging plan;
  plan.direct[0] = directLoad(dot, dot.getA(), outside).getOperation();
  plan.direct[1] = directLoad(dot, dot.getB(), outside).getOperation();
  plan.maxStages = dots == 0 ? 1 : dots == 1 ? 3 : kMultiDotStages;
  if (!plan.direct[0] && !plan.direct[1])
    return std::nullopt;
  return plan;
}

/// The columns of a row of an operand staged for the warpgroup units: rows of 128 bytes (64
/// 16-bit elements) where the operand is that wide, else of its width (32 or 16 elements).
int64_t swizzleWidth(int64_t cols) { return std::min<int64_t>(64, cols); }

/// The box of a warpgroup dot's operand i (0: A, 1: B) that one bulk tensor copy moves: rows of
/// the staged operand's row width (swizzleWidth), 8 rows of A (whose groups of 8 rows are staged
/// in another order, placeA), up to 256 rows of B. {rows, cols} of the box and of the tile.
struct TensorBox {
  int64_t boxRows, boxCols, rows, cols;
};
TensorBox tensorBoxOf(const DotShape &d, int i) {
  if (i == 0)
    return {8, swizzleWidth(d.K), d.M, d.K};
  const int64_t rows = d.transB ? d.N : d.K, cols = d.transB ? d.K : d.N;
  return {std::min<int64_t>(rows, 256), swizzleWidth(cols), rows, cols};
}

} // namespace

bool runsOnWarpgroupUnits(Operation *op, const TileLowering &lw) {
  auto dot = dyn_cast<tile::DotOp>(op);
  if (!dot)
    return false;
  const DotShape d(dot);
  std::optional<TargetInfo::WgmmaShape> unit = lw.target.wgmmaShape(d.in, d.accElem);
  if (lw.portable || !unit || !lw.target.hasAsyncCopy() || lw.threads % 128 || d.K % unit->k ||
      !fitsMmaAccumulatorLayout({d.M, d.N}, lw.threads, 1))
    return false;
  // Rows of at least 32 bytes; n of one instruction a multiple of 16 up to maxN that divides N;
  // each staged operand a whole number of 1024-byte swizzle patterns, and one stage of both fits.
  const int64_t nPer = std::min(d.N, unit->maxN), inBytes = d.in.getIntOrFloatBitWidth() / 8;
  if (inBytes != 2 || d.K < 16 || d.N < 16 || d.N % nPer || nPer % 16 || (d.M * d.K * inBytes) % 1024 ||
      (d.K * d.N * inBytes) % 1024 || (d.M * d.K + d.K * d.N) * inBytes > unit->sharedLimit)
    return false;
  std::optional<TileLowering::DotStaging> plan = stagingPlan(dot);
  if (!plan || !plan->direct[1])
    return false;
  if (plan->direct[0])
    return true;
  // A from registers, in a pipelined loop: staged once before it when the loop does not change
  // A (attention's queries), or straight from registers when A has the shape of another dot's
  // accumulator, whose layout it then shares (attention's probabilities).
  if (plan->maxStages < 2)
    return false;
  if (invariantLoop(dot, dot.getA()))
    return true;
  bool accumulatorShaped = false;
  op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>()->walk([&](tile::DotOp other) {
    accumulatorShaped |= other != dot && cast<RankedTensorType>(other.getType()).getShape() == d.aType.getShape();
  });
  return accumulatorShaped;
}

namespace {
/// Where a warpgroup dot's arrays start (lowerWithWarpgroupUnits): the units' swizzle repeats every 1 KiB.
constexpr int64_t kWarpgroupAlign = 1024;
/// Elements of A and B one stage of a warpgroup dot holds (lowerWithWarpgroupUnits): no A where it
/// comes from registers (not copied from its buffer, and changed by its loop).
std::array<int64_t, 2> warpgroupStageElements(tile::DotOp dot, bool aCopied) {
  const DotShape d(dot);
  const bool aInRegisters = !aCopied && !invariantLoop(dot, dot.getA());
  return {aInRegisters ? 0 : d.M * d.K, d.K * d.N};
}
} // namespace

bool warpgroupStagesFit(ArrayRef<Operation *> dots, const TileLowering &lw) {
  int64_t bytes = lw.sharedBytes;
  for (Operation *op : dots) {
    auto dot = cast<tile::DotOp>(op);
    auto plan = lw.dotStaging.find(op);
    const DotShape d(dot);
    std::optional<TargetInfo::WgmmaShape> unit = lw.target.wgmmaShape(d.in, d.accElem);
    if (plan == lw.dotStaging.end() || !unit)
      return false;
    const std::array<int64_t, 2> elements = warpgroupStageElements(dot, plan->second.direct[0] != nullptr);
    bytes = llvm::alignTo(bytes, kWarpgroupAlign) + 2 * (elements[0] + elements[1]) * (d.in.getIntOrFloatBitWidth() / 8);
    if (bytes > unit->sharedLimit)
      return false;
  }
  return true;
}

bool accumulatesAcrossLoop(Operation *op) {
  auto dot = dyn_cast<tile::DotOp>(op);
  auto loop = dot ? dyn_cast<scf::ForOp>(dot->getParentOp()) : nullptr;
  if (!loop || !dot->hasOneUse() || !dot.getAcc().hasOneUse())
    return false;
  auto acc = dyn_cast<BlockArgument>(dot.getAcc());
  auto yield = dyn_cast<scf::YieldOp>(*dot->getUsers().begin());
  if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 || !yield)
    return false;
  const unsigned i = acc.getArgNumber() - 1; // the iteration argument the dot updates
  return yield->getOperand(i) == dot.getResult() &&
         llvm::count(yield->getOperands(), dot.getResult()) == 1;
}

namespace {

/// In mmaAccumulatorLayout, the index among a thread's elements of element i (0..3) of its C
/// fragment of 16 x 8 block (p, j), the tile having `groups` blocks of 8 columns per subgroup.
int64_t fragmentElement(int64_t groups, int64_t p, int64_t j, int64_t i) {
  return ((2 * p + i / 2) * groups + j) * 2 + i % 2;
}

/// Is the dot's A (M x K) in registers in the matrix units' accumulator layout with the
/// accumulator's rows, neither on a subgroup grid (attention's probabilities)? (aInAccumulatorRows) Then a lane's
/// C-fragment values of A's 16 x 8 blocks (p, 2kk), (p, 2kk + 1) are its A fragment of 16 x 16
/// block (p, kk) (aFragmentWords).
bool aInAccumulatorRows(const TileLowering &lw, const DotShape &d) {
  auto aShape = lw.mmaShapes.find({d.M, d.K});
  if (aShape == lw.mmaShapes.end() || aShape->second != 1)
    return false;
  const BlockedLayout la = lw.layoutOf(d.aType), lc = lw.layoutOf(d.cType);
  return !lc.hasWarpGrid() && la.threadsPer[0] == lc.threadsPer[0];
}

/// The same, where the target packs such values into mma.sync's A fragments (aFragmentWords).
bool aHasAccumulatorRows(const TileLowering &lw, const DotShape &d) {
  return aInAccumulatorRows(lw, d) && lw.target.hasMmaPack();
}

/// This lane's four words of A's 16 x 16 block (p, kk) from its elements `a` in layout `la`
/// (aHasAccumulatorRows), in mma.sync's order: rows g and g + 8 of columns 0-7, then of 8-15.
SmallVector<Value> aFragmentWords(OpBuilder &b, Location loc, const TileLowering &lw, ValueRange a,
                                  const BlockedLayout &la, int64_t p, int64_t kk, Type in) {
  auto at = [&](int64_t j, int64_t i) { return a[fragmentElement(la.reps[1], p, j, i)]; };
  SmallVector<Value> words;
  for (int64_t j : {2 * kk, 2 * kk + 1})
    for (int64_t i : {0, 2})
      words.push_back(lw.target.mmaPack(b, loc, at(j, i), at(j, i + 1), in));
  return words;
}

/// Where A's tile row `row` is staged so that each 16-row block of the accumulator layout is 16
/// contiguous rows: tile row q R + 8 wr + g (q = 2p + h, R = 8 Wr over Wr subgroups down the rows)
/// is row g + 8h of block (p, wr), at staged row 16 (p Wr + wr) + 8h + g. Cooperative matrices
/// load one such block at a time (the warpgroup units' placeA puts rows in the same places, 4
/// blocks at a time).
Value accumulatorBlockRow(OpBuilder &x, Location xl, const TileLowering &lw, Value row, int64_t Wr) {
  auto c = [&](int64_t v) { return lw.i32(x, xl, v); };
  Value q = arith::DivUIOp::create(x, xl, row, c(8 * Wr)); // row repetition 2p + h
  Value wr = arith::RemUIOp::create(x, xl, arith::DivUIOp::create(x, xl, row, c(8)), c(Wr));
  Value block = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, arith::DivUIOp::create(x, xl, q, c(2)), c(Wr)), wr);
  Value within = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, arith::RemUIOp::create(x, xl, q, c(2)), c(8)),
                                       arith::RemUIOp::create(x, xl, row, c(8)));
  return arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, block, c(16)), within);
}

/// tile.dot on matrix units (fast mode). The accumulator is already in registers in the units'
/// layout (TileLowering::mmaShapes, mmaAccumulatorLayout): thread element (rep 2p + h, rep j, v)
/// is element 2h + v of lane l's C fragment of 16 x 8 block (p, j) of its subgroup (wr, wc) on
/// the grid, whose rows g and g + 8 are the tile rows 2p R + 8 wr + g and (2p + 1) R + 8 wr + g
/// (R = 8 x the subgroups down the rows) and whose columns start at 8 (C j + wc) (C across).
/// A and B (B^T with transpose_b) are staged row-major in shared memory in their own type, each
/// row padded by 16 bytes (8 16-bit elements) so that the 8 rows a fragment load reads at once
/// fall in different banks: from registers, or copied from their buffers (DotStaging::direct,
/// copyToShared), in stages where pipelined (stagePipelined). Each subgroup walks k in steps of
/// the unit's k, loading each of its A and B fragments once per step, and the result stays where
/// the accumulator was. Returns nothing (no rewrite) when the target has no unit for these types,
/// the accumulator did not get the layout or the arrays do not fit.
std::optional<SmallVector<Value>> lowerWithMatrixUnits(ConversionPatternRewriter &r, Location loc, const TileLowering &lw, tile::DotOp op,
                                                       ValueRange a, ValueRange b, ValueRange acc) {
  const DotShape d(op);
  auto [aType, bType, cType, M, K, N, in, accElem, transB] = d;
  std::optional<TargetInfo::MmaShape> unit = lw.target.mmaShape(in, accElem);
  std::vector<int64_t> accShape{M, N};
  if (lw.portable || !unit || !lw.mmaShapes.count(accShape) || unit->m != 16 || unit->n != 8 || unit->accPerLane != 4 ||
      K % unit->k)
    return std::nullopt;
  // A and B are staged as they come: M x K, and K x N or N x K with transpose_b (rows of lda and
  // ldb elements).
  const int64_t inBytes = in.getIntOrFloatBitWidth() / 8, pad = 16 / inBytes, lda = K + pad;
  const int64_t bRows = transB ? N : K, ldb = (transB ? K : N) + pad;
  // Operands copied from their buffers (directLoad), in `stages` arrays each when pipelined: the
  // most stages of 3 and 2 that fit, else one.
  auto it = lw.dotStaging.find(op.getOperation());
  tile::LoadOp direct[2];
  if (it != lw.dotStaging.end())
    for (int i = 0; i < 2; ++i)
      direct[i] = dyn_cast_or_null<tile::LoadOp>(it->second.direct[i]);
  // A in registers in the accumulator layout, with the accumulator's rows (no grid on either:
  // attention's probabilities): a lane's C-fragment values of A's 16 x 8 blocks (p, 2kk) and
  // (p, 2kk + 1) are its A fragment of 16 x 16 block (p, kk), so A skips shared memory. Not for
  // an A that the loop does not change (attention's queries): staged once, it costs no barrier,
  // and its fragments held across the loop took 40 more registers and 19% of causal attention
  // (H100, docs/bench.md).
  const BlockedLayout lc = lw.layoutOf(cType), la = lw.layoutOf(aType);
  const bool aInRegisters = !direct[0] && !invariantLoop(op, op.getA()) && aHasAccumulatorRows(lw, d);
  const int64_t sizes[2] = {aInRegisters ? 0 : M * lda, bRows * ldb};
  auto bytesWith = [&](int64_t stages) {
    return ((direct[0] ? stages : 1) * sizes[0] + (direct[1] ? stages : 1) * sizes[1]) * inBytes;
  };
  int64_t stages = 1;
  if (it != lw.dotStaging.end())
    for (int64_t s : {3, 2})
      if (s <= it->second.maxStages && lw.sharedBytes + bytesWith(s) <= unit->sharedLimit) {
        stages = s;
        break;
      }
  if (lw.sharedBytes + bytesWith(stages) > unit->sharedLimit)
    return std::nullopt;
  Value sa, sb, aStage, bStage; // the arrays, and where this iteration's A and B start in them
  if (stages == 1) {
    auto copy = [&](int i) -> std::function<void(Value)> {
      if (!direct[i])
        return nullptr;
      return [&, i](Value shared) {
        copyToShared(r, loc, lw, direct[i], shared, lw.i32(r, loc, 0), i ? ldb : lda, nullptr);
      };
    };
    SmallVector<StagedTile> tiles;
    if (!aInRegisters)
      tiles.push_back({aType, a, {lda, 1}, nullptr, sizes[0], invariantLoop(op, op.getA()), {}, copy(0)});
    tiles.push_back({bType, b, {ldb, 1}, nullptr, sizes[1], invariantLoop(op, op.getB()), {}, copy(1)});
    SmallVector<Value> staged = stageTiles(r, loc, lw, tiles);
    sa = aInRegisters ? Value() : staged[0], sb = staged.back();
    aStage = bStage = lw.i32(r, loc, 0);
  } else {
    PipelinedStaging staged = stagePipelined(r, loc, lw, op, {a, b}, direct, sizes, {lda, ldb}, stages);
    sa = staged.a, sb = staged.b, aStage = staged.aStart, bStage = staged.bStart;
  }
  // Subgroup (wr, wc) of the grid: its rows start at 8 wr, its column group j at 8 (C j + wc).
  const int64_t R = lc.threadsPer[0], pairs = lc.reps[0] / 2, groups = lc.reps[1];
  const int64_t C = lc.hasWarpGrid() ? lc.warpsPer[1] : 1;
  Value lane = arith::AndIOp::create(r, loc, lw.threadId, lw.i32(r, loc, 31));
  Value warp = arith::ShRUIOp::create(r, loc, lw.threadId, lw.i32(r, loc, 5));
  Value warpRow = arith::MulIOp::create(r, loc, C > 1 ? Value(arith::ShRUIOp::create(r, loc, warp, lw.i32(r, loc, llvm::Log2_64(C)))) : warp,
                                        lw.i32(r, loc, 8)); // 8 wr
  Value warpCol = C > 1 ? Value(arith::MulIOp::create(r, loc, arith::AndIOp::create(r, loc, warp, lw.i32(r, loc, C - 1)),
                                                      lw.i32(r, loc, 8)))
                        : Value(); // 8 wc
  // Accumulator element of (pair p, column group j, fragment index i) in the thread's order.
  auto element = [&](int64_t p, int64_t j, int64_t i) { return fragmentElement(groups, p, j, i); };
  // One k step from k0 (kk = k0 / 16 where A is in registers, whose elements are then indexed
  // statically: those steps are unrolled).
  auto step = [&](OpBuilder &x, Location xl, Value k0, int64_t kk, ValueRange carried) {
        SmallVector<SmallVector<Value>> aFrags, bFrags;
        for (int64_t p = 0; p < pairs; ++p) {
          if (aInRegisters) {
            aFrags.push_back(aFragmentWords(x, xl, lw, a, la, p, kk, in));
            continue;
          }
          Value row = arith::AddIOp::create(x, xl, warpRow, lw.i32(x, xl, 2 * p * R));
          Value base = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, row, lw.i32(x, xl, lda)), k0);
          base = arith::AddIOp::create(x, xl, base, aStage);
          aFrags.push_back(lw.target.mmaLoadA(x, xl, sa, base, lda, R, lane, in));
        }
        // B[k0][n]: row k0, column n; transposed, row n, column k0 (n = 8 (C j + wc)).
        Value kOffset = transB ? k0 : Value(arith::MulIOp::create(x, xl, k0, lw.i32(x, xl, ldb)));
        kOffset = arith::AddIOp::create(x, xl, kOffset, bStage);
        if (warpCol)
          kOffset = arith::AddIOp::create(
              x, xl, kOffset, transB ? Value(arith::MulIOp::create(x, xl, warpCol, lw.i32(x, xl, ldb))) : warpCol);
        for (int64_t j = 0; j < groups; j += 2) { // two column groups per load where there are two
          const int64_t count = std::min<int64_t>(2, groups - j), n = 8 * C * j;
          Value base = arith::AddIOp::create(x, xl, kOffset, lw.i32(x, xl, transB ? n * ldb : n));
          SmallVector<Value> words = lw.target.mmaLoadB(x, xl, sb, base, ldb, count, 8 * C, transB, lane, in);
          for (int64_t g = 0; g < count; ++g)
            bFrags.push_back({words[2 * g], words[2 * g + 1]});
        }
        SmallVector<Value> next(carried.begin(), carried.end());
        for (int64_t p = 0; p < pairs; ++p)
          for (int64_t j = 0; j < groups; ++j) {
            SmallVector<Value> c;
            for (int64_t i = 0; i < 4; ++i)
              c.push_back(carried[element(p, j, i)]);
            SmallVector<Value> d = lw.target.mma(x, xl, in, aFrags[p], bFrags[j], c);
            for (int64_t i = 0; i < 4; ++i)
              next[element(p, j, i)] = d[i];
          }
        return next;
  };
  if (aInRegisters) {
    SmallVector<Value> carried(acc.begin(), acc.end());
    for (int64_t kk = 0; kk < K / unit->k; ++kk)
      carried = step(r, loc, lw.i32(r, loc, kk * unit->k), kk, carried);
    return carried;
  }
  auto loop = scf::ForOp::create(r, loc, lw.i32(r, loc, 0), lw.i32(r, loc, K), lw.i32(r, loc, unit->k), acc,
                                 [&](OpBuilder &x, Location xl, Value k0, ValueRange carried) {
                                   scf::YieldOp::create(x, xl, step(x, xl, k0, 0, carried));
                                 });
  return SmallVector<Value>(loop.getResults());
}

/// tile.dot on the warpgroup matrix units (fast mode; runsOnWarpgroupUnits). The accumulator is
/// in mmaAccumulatorLayout without a grid, where subgroup w holds rows 2p R + 8w + g and
/// (2p + 1) R + 8w + g of its 16 x 8 blocks (R = 8 W over W subgroups). A warpgroup instruction
/// gives subgroup w % 4 of group G rows 16 (w % 4) + g and + 8 of the 64 rows it computes; so A
/// is staged with its rows permuted, tile row 2p R + 8w + g + hR at staged row
/// 64 (p W / 4 + w / 4) + 16 (w % 4) + 8h + g, and warpgroup G's instruction for pair p reads the
/// 64 staged rows from 64 (p W / 4 + G): its results are the thread's accumulator elements as
/// they lie. An A from registers is staged that way once before a loop that does not change it,
/// or, with the accumulator's rows (aHasAccumulatorRows), is the instructions' register operand.
/// The operands are copied from their buffers (copyToShared, in stages where pipelined) in panels
/// of swizzleWidth columns, row after row, each 16-byte chunk of a row XOR-permuted within its
/// group of 8 rows as the units read it (128-, 64- or 32-byte swizzling); A and B^T lie K-major,
/// B as it comes (K x N) N-major. Each k step of 16 is one instruction per pair and block of up
/// to 256 columns, all issued back to back, then waited for (or left in flight into the next
/// iteration). Returns nothing (no rewrite) when the arrays do not fit.
std::optional<SmallVector<Value>> lowerWithWarpgroupUnits(ConversionPatternRewriter &r, Location loc,
                                                          const TileLowering &lw, tile::DotOp op, ValueRange a,
                                                          ValueRange b, ValueRange acc) {
  if (!lw.warpgroupDots.count(op.getOperation()))
    return std::nullopt;
  const DotShape d(op);
  auto [aType, bType, cType, M, K, N, in, accElem, transB] = d;
  const TargetInfo::WgmmaShape unit = *lw.target.wgmmaShape(in, accElem);
  auto it = lw.dotStaging.find(op.getOperation());
  if (it == lw.dotStaging.end())
    return std::nullopt;
  const tile::LoadOp direct[2] = {dyn_cast_or_null<tile::LoadOp>(it->second.direct[0]),
                                  cast<tile::LoadOp>(it->second.direct[1])};
  const BlockedLayout la = lw.layoutOf(aType), lc = lw.layoutOf(cType);
  // A copied from its buffer; or from registers: staged once before the loop that does not change
  // it, or, in the accumulator layout with the accumulator's rows, as the instructions' register
  // operand (each thread's A rows are its result rows, so no row permutation is needed).
  enum class AFrom { Buffer, Staged, Registers };
  const AFrom aFrom = direct[0] ? AFrom::Buffer : invariantLoop(op, op.getA()) ? AFrom::Staged : AFrom::Registers;
  if (aFrom == AFrom::Registers && !aHasAccumulatorRows(lw, d))
    return std::nullopt;
  const int64_t W = lw.threads / 32, R = 8 * W, groupsOfWarps = W / 4;
  const int64_t wa = swizzleWidth(K), wb = transB ? wa : swizzleWidth(N); // row widths of A (B^T) and B
  const std::array<int64_t, 2> elements = warpgroupStageElements(op, aFrom == AFrom::Buffer);
  const int64_t sizes[2] = {elements[0], elements[1]}, inBytes = 2, kAlign = kWarpgroupAlign;
  auto bytesWith = [&](int64_t s) {
    return (lw.sharedBytes + kAlign - 1) / kAlign * kAlign + s * (sizes[0] + sizes[1]) * inBytes;
  };
  auto fits = [&](int64_t s) { return bytesWith(s) <= unit.sharedLimit; };
  auto twoPerProcessor = [&](int64_t s) { return 2 * (bytesWith(s) + unit.sharedReserved) <= unit.sharedPerProcessor; };
  // A dot that only accumulates across its loop (the only dot there: up to 3 stages) may leave
  // each iteration's instructions in flight into the next (wait until 1 batch is): its copies
  // then run 2 iterations ahead in 4 stages, the stage the batch in flight reads left alone, and
  // the last batch is waited for after the loop. Unless the fourth stage is what keeps a second
  // program off the multiprocessor (which overlaps them anyway: 128 x 128 x 64 on the H100, 426
  // TFLOP/s in 3 stages, 334 in 4, docs/bench.md). Else the copies run stages - 1 ahead, and each
  // batch is waited for at once.
  const bool overlap = aFrom == AFrom::Buffer && lw.warpgroupDots.at(op.getOperation()) && it->second.maxStages >= 3 &&
                       fits(4) && (twoPerProcessor(4) || !twoPerProcessor(3));
  int64_t stages = 0, ahead = 0;
  if (overlap) {
    stages = 4;
    ahead = 2;
  } else {
    for (int64_t s : {3, 2, 1})
      if (s <= it->second.maxStages && fits(s)) {
        stages = s;
        break;
      }
    if (!stages || (stages == 1 && aFrom != AFrom::Buffer)) // A from registers: pipelined only
      return std::nullopt;
    ahead = stages - 1;
  }
  auto c = [&](OpBuilder &x, Location xl, int64_t v) { return lw.i32(x, xl, v); };
  // Element (row, col) of an operand of `rows` rows in panels of w columns: panel col / w holds
  // rows of w elements; the 8-element chunk of element index e within it moves to chunk
  // (e / 8) ^ ((e / 64) % (w / 8)), the units' swizzle of 16-byte chunks by address bits 7 on.
  auto swizzled = [&](OpBuilder &x, Location xl, Value row, Value col, int64_t w, int64_t rows) -> Value {
    Value at = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, row, c(x, xl, w)),
                                     arith::RemUIOp::create(x, xl, col, c(x, xl, w)));
    Value chunkShift = arith::ShLIOp::create(
        x, xl, arith::AndIOp::create(x, xl, arith::ShRUIOp::create(x, xl, at, c(x, xl, 6)), c(x, xl, w / 8 - 1)), c(x, xl, 3));
    at = arith::XOrIOp::create(x, xl, at, chunkShift);
    Value panel = arith::DivUIOp::create(x, xl, col, c(x, xl, w));
    return arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, panel, c(x, xl, rows * w)), at);
  };
  // A's tile row L = q R + 8 wr + g (q = 2p + h) at staged row 64 (p W/4 + wr / 4) + 16 (wr % 4) + 8h + g:
  // accumulatorBlockRow's row, written by groups of 4 subgroups as the units read them (the
  // arithmetic of the measured kernels, docs/bench.md).
  Placement placeA = [&, W, R, groupsOfWarps](OpBuilder &x, Location xl, Value row, Value col) -> Value {
    Value q = arith::DivUIOp::create(x, xl, row, c(x, xl, R));
    Value wr = arith::RemUIOp::create(x, xl, arith::DivUIOp::create(x, xl, row, c(x, xl, 8)), c(x, xl, W));
    Value g = arith::RemUIOp::create(x, xl, row, c(x, xl, 8));
    Value block = arith::AddIOp::create(
        x, xl, arith::MulIOp::create(x, xl, arith::DivUIOp::create(x, xl, q, c(x, xl, 2)), c(x, xl, groupsOfWarps)),
        arith::DivUIOp::create(x, xl, wr, c(x, xl, 4)));
    Value inBlock = arith::AddIOp::create(
        x, xl, arith::MulIOp::create(x, xl, arith::RemUIOp::create(x, xl, wr, c(x, xl, 4)), c(x, xl, 16)),
        arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, arith::RemUIOp::create(x, xl, q, c(x, xl, 2)), c(x, xl, 8)), g));
    Value staged = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, block, c(x, xl, 64)), inBlock);
    return swizzled(x, xl, staged, col, wa, M);
  };
  Placement placeB = [&, transB, wb, N, K](OpBuilder &x, Location xl, Value row, Value col) -> Value {
    return transB ? swizzled(x, xl, row, col, wb, N) : swizzled(x, xl, row, col, wb, K);
  };
  const Placement place[2] = {placeA, placeB};
  Value sa, sb, aStage, bStage; // the arrays, and where this iteration's A and B start in them (elements)
  std::function<void(OpBuilder &, Location, int64_t)> release; // PipelinedStaging::release
  SmallVector<Operation *, 2> copiesAhead;                     // PipelinedStaging::copiesAhead
  if (stages == 1 && lw.producerDots.count(op.getOperation())) // (a producer needs stages: DotLowering reports it)
    return std::nullopt;
  if (stages == 1) {
    auto copy = [&](int i) -> std::function<void(Value)> {
      return [&, i](Value shared) { copyToShared(r, loc, lw, direct[i], shared, c(r, loc, 0), 0, nullptr, place[i]); };
    };
    SmallVector<Value> staged = stageTiles(r, loc, lw,
                                           {{aType, a, {K, 1}, nullptr, sizes[0], nullptr, {}, copy(0)},
                                            {bType, b, {N, 1}, nullptr, sizes[1], nullptr, {}, copy(1)}},
                                           /*asyncReaders=*/true, kAlign);
    sa = staged[0], sb = staged[1];
    aStage = bStage = c(r, loc, 0);
  } else {
    // Operands with a tensor map (planDotStaging) come through bulk tensor copies: boxes of 8 of
    // A's rows (each group of 8 rows lies whole where placeA puts it) or of B's rows, a box per
    // panel of the staged row width, written swizzled as the units read them.
    TensorIssue tensor[2];
    for (int i = 0; i < 2; ++i) {
      auto copy = direct[i] ? lw.tensorCopies.find(tile::LoadOp(direct[i]).getOperation()) : lw.tensorCopies.end();
      if (copy == lw.tensorCopies.end())
        continue;
      const TensorBox box = tensorBoxOf(d, i);
      const TileLowering::TensorCopy tc = copy->second;
      // A's tile row `row` (a multiple of 8) at placeA's staged row.
      auto stagedRow = [i, W, R, groupsOfWarps](int64_t row) -> int64_t {
        if (i == 1)
          return row;
        const int64_t q = row / R, wr = (row / 8) % W;
        return 64 * ((q / 2) * groupsOfWarps + wr / 4) + 16 * (wr % 4) + 8 * (q % 2);
      };
      tensor[i].bytes = box.rows * box.cols * inBytes;
      tensor[i].boxes = (box.cols / box.boxCols) * (box.rows / box.boxRows);
      tensor[i].issue = [&lw, box, tc, stagedRow, inBytes](OpBuilder &x, Location xl, Value shared, Value stage,
                                                           const std::function<Value(Value)> &scalar, Value barriers,
                                                           Value index, Value lane, int64_t firstBox) {
        auto start = [&](Value s, int64_t offset) -> Value {
          if (!s)
            return lw.i32(x, xl, offset);
          return offset ? Value(arith::AddIOp::create(x, xl, scalar(s), lw.i32(x, xl, offset))) : scalar(s);
        };
        Value row0 = start(tc.row0, tc.rowOffset), col0 = start(tc.col0, tc.colOffset);
        Value slice = tc.slice ? scalar(tc.slice) : Value();
        Value stageBytes = arith::MulIOp::create(x, xl, stage, lw.i32(x, xl, inBytes));
        int64_t b = firstBox;
        for (int64_t p = 0; p < box.cols / box.boxCols; ++p)
          for (int64_t q = 0; q < box.rows / box.boxRows; ++q) {
            auto copy = [&](OpBuilder &y, Location yl) {
              const int64_t offset = (p * box.rows + stagedRow(q * box.boxRows)) * box.boxCols * inBytes;
              SmallVector<Value, 3> at{arith::AddIOp::create(y, yl, col0, lw.i32(y, yl, p * box.boxCols)),
                                       arith::AddIOp::create(y, yl, row0, lw.i32(y, yl, q * box.boxRows))};
              if (slice)
                at.push_back(slice);
              lw.target.tensorCopy(y, yl, shared, arith::AddIOp::create(y, yl, stageBytes, lw.i32(y, yl, offset)), tc.map,
                                   at, barriers, index);
            };
            if (lane)
              thenDo(x, xl, arith::CmpIOp::create(x, xl, arith::CmpIPredicate::eq, lane, lw.i32(x, xl, b % 32)), copy);
            else
              copy(x, xl);
            ++b;
          }
      };
    }
    // A producer warpgroup runs the loop's copies in a loop of its own before this one: every
    // operand copied must come by tensor copy (the scalars the copies read are the induction
    // variable or from before the loop, as directLoad's leaves are).
    if (lw.producerDots.count(op.getOperation()))
      for (int i = 0; i < 2; ++i)
        if (direct[i] && !tensor[i].issue)
          return std::nullopt;
    PipelinedStaging staged = stagePipelined(r, loc, lw, op, {a, b}, direct, sizes, {K, transB ? K : N}, stages, place,
                                             kAlign, ahead, tensor);
    sa = staged.a, sb = staged.b, aStage = staged.aStart, bStage = staged.bStart;
    release = staged.release;
    copiesAhead = staged.copiesAhead;
  }
  const int64_t pairs = lc.reps[0] / 2, groups = lc.reps[1], nPer = std::min(N, unit.maxN);
  Value warpGroup = arith::ShRUIOp::create(r, loc, lw.threadId, c(r, loc, 7));
  Value aBytes = arith::MulIOp::create(r, loc, aStage, c(r, loc, inBytes));
  Value bBytes = arith::MulIOp::create(r, loc, bStage, c(r, loc, inBytes));
  // Warpgroup G's rows for pair p start at staged row 64 (p W/4 + G).
  Value groupRows = arith::MulIOp::create(r, loc, warpGroup, c(r, loc, 64 * wa * inBytes));
  auto descA = [&](int64_t p, int64_t k0) {
    const int64_t offset = ((k0 / wa) * M * wa + 64 * p * groupsOfWarps * wa + k0 % wa) * inBytes;
    Value at = arith::AddIOp::create(r, loc, arith::AddIOp::create(r, loc, aBytes, groupRows), c(r, loc, offset));
    return lw.target.wgmmaDescriptor(r, loc, sa, at, 16, 8 * wa * inBytes, wa * inBytes);
  };
  auto descB = [&](int64_t q, int64_t k0) {
    if (transB) { // B^T: K-major like A, its rows the columns of B
      const int64_t offset = ((k0 / wb) * N * wb + q * nPer * wb + k0 % wb) * inBytes;
      return lw.target.wgmmaDescriptor(r, loc, sb, arith::AddIOp::create(r, loc, bBytes, c(r, loc, offset)), 16,
                                       8 * wb * inBytes, wb * inBytes);
    }
    const int64_t offset = ((q * nPer / wb) * K * wb + k0 * wb) * inBytes;
    return lw.target.wgmmaDescriptor(r, loc, sb, arith::AddIOp::create(r, loc, bBytes, c(r, loc, offset)),
                                     K * wb * inBytes, 8 * wb * inBytes, wb * inBytes);
  };
  // A's words from registers (made before the fence that orders the registers' writes before the
  // units' reads): [k step][pair].
  SmallVector<SmallVector<SmallVector<Value>>> aWords;
  if (aFrom == AFrom::Registers)
    for (int64_t k0 = 0; k0 < K; k0 += unit.k) {
      aWords.emplace_back();
      for (int64_t p = 0; p < pairs; ++p)
        aWords.back().push_back(aFragmentWords(r, loc, lw, a, la, p, k0 / 16, in));
    }
  // Two warpgroups taking turns at the units (TileLowering::pingpongDots; the loop's stages
  // released by their readers, so no barrier of the program aligns them): warpgroup G waits at
  // barrier 1 + G before it issues a dot's instructions and passes the other's barrier after
  // committing them, so each warpgroup's work between its dots overlaps the other's
  // instructions. The first warpgroup goes first: before the loop the second passes the first's
  // barrier once, and after the loop the first waits there once more, for the second's last pass.
  Value turn, other; // this warpgroup's barrier and the other's
  if (auto pp = lw.pingpongDots.find(op.getOperation()); pp != lw.pingpongDots.end()) {
    if (!release || W != 8) // (DotLowering reports it)
      return std::nullopt;
    Value group = arith::ShRUIOp::create(r, loc, lw.threadId, c(r, loc, 7));
    turn = arith::AddIOp::create(r, loc, group, c(r, loc, 1));
    other = arith::SubIOp::create(r, loc, c(r, loc, 2), group);
    if (pp->second) {
      OpBuilder::InsertionGuard guard(r);
      Operation *loop = op->getParentOp();
      r.setInsertionPoint(loop);
      Value second = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::uge, lw.threadId, c(r, loc, 128));
      thenDo(r, loc, second, [&](OpBuilder &x, Location xl) { lw.target.namedBarrierArrive(x, xl, c(x, xl, 1), 256); });
      r.setInsertionPointAfter(loop);
      Value first = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::ult, lw.threadId, c(r, loc, 128));
      thenDo(r, loc, first, [&](OpBuilder &x, Location xl) { lw.target.namedBarrierWait(x, xl, c(x, xl, 1), 256); });
    }
    if (!lw.pingpongJoins.count(op.getOperation())) // (a joining dot's turn is the previous dot's)
      lw.target.namedBarrierWait(r, loc, turn, 256);
  }
  SmallVector<Value> carried(acc.begin(), acc.end());
  lw.target.wgmmaBegin(r, loc);
  for (int64_t k0 = 0; k0 < K; k0 += unit.k)
    for (int64_t p = 0; p < pairs; ++p)
      for (int64_t q = 0; q < N / nPer; ++q) {
        SmallVector<int64_t> at; // the instruction's element 4j + i, in the thread's order
        for (int64_t j = 0; j < nPer / 8; ++j)
          for (int64_t i = 0; i < 4; ++i)
            at.push_back(fragmentElement(groups, p, q * nPer / 8 + j, i));
        SmallVector<Value> in4;
        for (int64_t e : at)
          in4.push_back(carried[e]);
        SmallVector<Value> out;
        if (aFrom == AFrom::Registers) {
          out = lw.target.wgmmaRegisterA(r, loc, in, aWords[k0 / unit.k][p], descB(q, k0), nPer, !transB, in4);
        } else {
          out = lw.target.wgmma(r, loc, in, descA(p, k0), descB(q, k0), nPer, !transB, in4);
        }
        for (auto [e, v] : llvm::zip(at, out))
          carried[e] = v;
      }
  lw.target.wgmmaCommit(r, loc);
  // (wait-before-copies) Where this batch stays in flight into the next iteration, the wait for
  // the batch before it goes first, and the copies after it.
  const bool waitFirst = lw.waitBeforeCopies && overlap && !copiesAhead.empty();
  if (waitFirst) {
    lw.target.wgmmaWait(r, loc, 1);
    if (release)
      release(r, loc, 1);
  }
  // (copies-after-mma) The copies for the iteration ahead go while this batch runs: their stage
  // is neither this iteration's nor, where a batch stays in flight, the last one's (ahead < stages
  // - 1 then), and the barrier at the top of this iteration ended every reader of it.
  for (Operation *copy : copiesAhead)
    r.moveOpBefore(copy, r.getInsertionBlock(), r.getInsertionPoint());
  if (other && !lw.pingpongHolds.count(op.getOperation()))
    lw.target.namedBarrierArrive(r, loc, other, 256);
  // Waited for where the block first uses the result (TileLowering::lateWaits), the stage released
  // there; at once where the batch stays in flight into the next iteration (overlap).
  auto late = lw.lateWaits.find(op.getOperation());
  if (!overlap && late != lw.lateWaits.end()) {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPoint(late->second.before);
    lw.target.wgmmaWait(r, loc, late->second.pending);
    if (release)
      release(r, loc, 0);
  } else if (!waitFirst) {
    lw.target.wgmmaWait(r, loc, overlap ? 1 : 0);
    if (release)
      release(r, loc, overlap ? 1 : 0);
  }
  if (overlap) {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPointAfter(op->getParentOp());
    lw.target.wgmmaWait(r, loc, 0);
  }
  return carried;
}

/// Cooperative matrices of bf16 (gpu.subgroup_mma_* have no bf16): A and B are staged as their
/// bits in f16 arrays and go through the gpu ops as f16 matrices whose loads carry
/// kBF16MatrixAttr (loadMatrix); the SPIR-V lowering makes them bf16 matrices again. Gives the
/// stand-in type, both the matrices' and the staged arrays' (null: none, the operand's own).
Type matrixStandIn(OpBuilder &b, Type in) { return in.isBF16() ? Type(b.getF16Type()) : Type(); }

/// gpu.subgroup_mma_load_matrix of `type` from `array` at `index`, marked where the matrix stands
/// in for a bf16 one (`in`: the dot's operand type).
Value loadMatrix(OpBuilder &b, Location loc, Type in, gpu::MMAMatrixType type, Value array, Value index,
                 IntegerAttr ld, UnitAttr transpose) {
  auto load = gpu::SubgroupMmaLoadMatrixOp::create(b, loc, type, array, ValueRange{index}, ld, transpose);
  if (in.isBF16() && type.getOperand() != "COp")
    load->setAttr(kBF16MatrixAttr, b.getUnitAttr());
  return load;
}

/// A range of elements taken in an array that an earlier dot freed (TileLowering::freeArrays):
/// the array's index there and the range's first element (of the array's type).
struct FreedRoom {
  size_t array;
  int64_t first;
};

/// Takes room for `count` elements of `elem` in an array freed for the loop around `dot`, the
/// first with that much left.
std::optional<FreedRoom> takeFreedRoom(const TileLowering &lw, Operation *dot, Type elem, int64_t count) {
  for (auto [i, f] : llvm::enumerate(lw.freeArrays))
    if (f.elem == elem && f.loop->isAncestor(dot) && f.count - f.taken >= count) {
      f.taken += count;
      return FreedRoom{i, f.taken - count};
    }
  return std::nullopt;
}

/// The most A matrices a subgroup keeps in registers across a loop (coop-hoist-a): 16 take 64
/// registers a lane (attention's queries at D = 128 take 8).
constexpr int64_t kMaxHoistedMatrices = 16;

/// Does a cooperative-matrix dot build its A from registers (coop-a-lanes): an f16 A in the
/// accumulator layout with the accumulator's rows (attention's probabilities)?
bool aFromLanes(const TileLowering &lw, const DotShape &d) {
  return lw.coopALanes && d.in.isF16() && aInAccumulatorRows(lw, d);
}

/// The bytes that the dots after `op` in its block stage in the loop, one copy of each operand
/// that changes there and is staged, in new arrays (rows padded as lowerWithCoopMatrixLanes pads
/// them): what `op` leaves room for before it takes freed room for its halves.
int64_t laterStagingBytes(const TileLowering &lw, tile::DotOp op) {
  int64_t bytes = 0;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (auto later = dyn_cast<tile::DotOp>(next)) {
      const DotShape d(later);
      const int64_t inBytes = d.in.getIntOrFloatBitWidth() / 8, pad = 16 / inBytes;
      if (!invariantLoop(later, later.getA()) && !aFromLanes(lw, d))
        bytes += d.M * (d.K + pad) * inBytes;
      if (!invariantLoop(later, later.getB()))
        bytes += (d.transB ? d.N : d.K) * ((d.transB ? d.K : d.N) + pad) * inBytes;
    }
  return bytes;
}

/// tile.dot on cooperative matrices whose accumulator lanes are mma.sync's C fragments (fast
/// mode; Vulkan devices whose self-test found that layout, chip ...+mma-lanes). The accumulator
/// stays in registers in mmaAccumulatorLayout, as on the tensor-core path, its subgroups on the
/// grid the pass chose (C across): the 16 x 16 block (p, jj) of subgroup (wr, wc) is its 16 x 8
/// blocks (p, 2jj) and (p, 2jj + 1), whose rows g and g + 8 are tile rows 2p R + 8wr + g and
/// (2p + 1) R + 8wr + g (R = 8 x the subgroups down the rows) and whose columns start at
/// 8 (C j + wc); a lane's 8 values go into a cooperative matrix and come back out by index
/// (insert/extract_thread_local: element i at row g + 8 (i / 4), column 2t + i % 2 + 8 ((i / 2) % 2),
/// as NVIDIA's driver places them). So that each block is 16 contiguous rows and columns of the
/// staged operands, A is staged with its rows permuted (accumulatorBlockRow) and B with its
/// groups of 8 columns permuted (group
/// C j + wc at staged group wc G + j, G groups per subgroup): K x N row-major, or, where it comes
/// N x K (transpose_b), as it comes, read column-major. Rows are padded by 16 bytes, so that
/// the 8 rows of 16 bytes the units read at once fall in different banks, and each thread
/// writes its runs of 4 elements as one vector. Each k step loads every A and B block of the
/// subgroup once; an A that does not change in the loop loads its blocks once, before it
/// (coop-hoist-a), and an A in the accumulator layout may be built from registers instead
/// (coop-a-lanes): below, with the shared-memory plan.
std::optional<SmallVector<Value>> lowerWithCoopMatrixLanes(ConversionPatternRewriter &r, Location loc, const TileLowering &lw,
                                                           tile::DotOp op, ValueRange a, ValueRange b, ValueRange acc) {
  const DotShape d(op);
  auto [aType, bType, cType, M, K, N, in, accElem, transB] = d;
  std::optional<TargetInfo::CoopMatrixShape> unit = lw.target.coopMatrixShape(in, accElem);
  if (lw.portable || !unit || !unit->mmaLanes || unit->m != 16 || unit->n != 16 || unit->k != 16 ||
      !lw.mmaShapes.count({M, N}) || K % unit->k || lw.target.subgroupSize() != 32)
    return std::nullopt;
  const BlockedLayout la = lw.layoutOf(aType), lb = lw.layoutOf(bType), lc = lw.layoutOf(cType);
  const int64_t C = lc.hasWarpGrid() ? lc.warpsPer[1] : 1, Wr = lw.threads / 32 / C;
  const int64_t pairs = lc.reps[0] / 2, groups = lc.reps[1], blockCols = groups / 2;
  if (groups % 2)
    return std::nullopt;
  const int64_t inBytes = in.getIntOrFloatBitWidth() / 8, pad = 16 / inBytes;
  const int64_t lda = K + pad, bRows = transB ? N : K, ldb = (transB ? K : N) + pad;
  const int64_t aCount = M * lda, bCount = bRows * ldb;
  const int64_t aUnit = la.vec % 4 == 0 ? 4 : 1, bUnit = lb.vec % 4 == 0 ? 4 : 1;
  const Type storeAs = matrixStandIn(r, in), matrixIn = storeAs ? storeAs : in;
  const Type vec4 = VectorType::get({4}, matrixIn);
  auto c = [&](OpBuilder &x, Location xl, int64_t v) { return lw.i32(x, xl, v); };
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  const bool aVaries = !invariantLoop(op, op.getA()), bVaries = !invariantLoop(op, op.getB());

  // Shared memory. With coop-hoist-a, an A that does not change in the loop is staged once before
  // it in vectors of 4 (a value at a time into its component where the thread's runs are shorter),
  // its matrices loaded into registers there, and its array then freed for the staging of this
  // loop's dots (TileLowering::freeArrays; a barrier after the loads ends its reads). A dot in a
  // loop stages the operands that change in it in two halves where they fit (one staged before
  // the loop, invariantLoop, needs one), iteration t in half t % 2, with one barrier per
  // iteration, between its writes and its reads: an iteration writes the half that the
  // iteration before last read, and every thread has finished those reads when it passes the
  // last iteration's barrier. A barrier before the loop ends the reads of an earlier run of it
  // (inside an outer loop). An operand staged in the loop in vectors of 4 takes room in a freed
  // array where there is enough, else an array of its own; where nothing fits so, B takes room
  // too, a value at a time into its component (attention's values at 64 x 64, D = 128).
  const bool hoistA = lw.coopHoistA && loop && !aVaries && pairs * (K / 16) <= kMaxHoistedMatrices;
  // An A in registers in the accumulator layout with the accumulator's rows (attention's
  // probabilities), where the device keeps an A matrix's elements where it keeps an
  // accumulator's (coop-a-lanes; the self-test checks that for the chip): each 16 x 16 block of A
  // is built from the lane's values as an accumulator block is, and A is not staged at all.
  const bool aLanes = aFromLanes(lw, d);
  // The freed arrays' state, to plan on and go back to.
  auto takenNow = [&] {
    SmallVector<int64_t> taken;
    for (const TileLowering::FreeArray &f : lw.freeArrays)
      taken.push_back(f.taken);
    return taken;
  };
  const size_t freedBefore = lw.freeArrays.size();
  const SmallVector<int64_t> takenBefore = takenNow();
  auto restoreTaken = [&](size_t arrays, ArrayRef<int64_t> taken) {
    lw.freeArrays.resize(arrays);
    for (auto [f, t] : llvm::zip(lw.freeArrays, taken))
      f.taken = t;
  };
  int64_t fresh = 0; // bytes of new arrays
  std::optional<FreedRoom> aRoom, bRoom;
  std::optional<size_t> aFreed; // A's own array, freed once its matrices are loaded
  if (hoistA && !(aRoom = takeFreedRoom(lw, op, vec4, aCount / 4))) {
    fresh += aCount * inBytes;
    aFreed = lw.freeArrays.size();
    lw.freeArrays.push_back({Value(), vec4, aCount / 4, loop.getOperation(), 0});
  }
  const SmallVector<int64_t> takenHoisted = takenNow();
  const size_t freedHoisted = lw.freeArrays.size();
  // The bytes of new arrays that staging in (halves) needs, taking freed room where it can.
  auto loopStaging = [&](bool inHalves, bool componentB, std::optional<FreedRoom> &aLoopRoom) {
    int64_t bytes = 0;
    auto operand = [&](bool varies, bool roomFits, int64_t count, std::optional<FreedRoom> &room) {
      const int64_t copies = inHalves && varies ? 2 : 1;
      if (!(varies && roomFits && (room = takeFreedRoom(lw, op, vec4, copies * count / 4))))
        bytes += copies * count * inBytes;
    };
    if (!hoistA && !aLanes)
      operand(aVaries, aUnit == 4, aCount, aLoopRoom);
    operand(bVaries, bUnit == 4 || componentB, bCount, bRoom);
    return bytes;
  };
  // Halves, else one copy; and only where neither fits, B in freed room a value at a time. First
  // only plans that leave the later dots of the loop room for one copy of what they stage (in
  // the freed room left, else new): the scores' keys in halves would take all the queries' room
  // at 128 x 64 and leave none for the values.
  const int64_t later = loop ? laterStagingBytes(lw, op) : 0;
  auto roomLeft = [&] {
    int64_t elements = 0;
    for (const TileLowering::FreeArray &f : lw.freeArrays)
      if (f.elem == vec4 && f.loop->isAncestor(op))
        elements += 4 * (f.count - f.taken);
    return elements * inBytes;
  };
  std::optional<FreedRoom> aLoopRoom;
  bool halves = false, fits = false;
  for (bool leaveRoom : {true, false}) {
    for (bool componentB : {false, true}) {
      for (bool inHalves : {true, false}) {
        restoreTaken(freedHoisted, takenHoisted);
        aLoopRoom = bRoom = std::nullopt;
        if (inHalves && !(loop && ((aVaries && !aLanes) || bVaries)))
          continue;
        const int64_t total = lw.sharedBytes + fresh + loopStaging(inHalves, componentB, aLoopRoom);
        if (total <= unit->sharedLimit &&
            (!leaveRoom || total + std::max<int64_t>(0, later - roomLeft()) <= unit->sharedLimit)) {
          halves = inHalves, fits = true;
          break;
        }
      }
      if (fits)
        break;
    }
    if (fits)
      break;
  }
  if (!fits) {
    restoreTaken(freedBefore, takenBefore);
    return std::nullopt;
  }

  Value aHalf, bHalf; // where this iteration's half (or the operand's room) starts, in elements
  // The element where an operand's room starts in a freed array (built at the builder's point).
  auto roomStart = [&](OpBuilder &x, Location xl, const std::optional<FreedRoom> &room) -> Value {
    return room && room->first ? c(x, xl, 4 * room->first) : Value();
  };
  auto plus = [&](OpBuilder &x, Location xl, Value v, Value w) -> Value {
    return !v ? w : !w ? v : Value(arith::AddIOp::create(x, xl, v, w));
  };
  if (halves) {
    Value parity = halfParity(r, loc, lw, loop);
    if (aVaries && !aLanes)
      aHalf = arith::MulIOp::create(r, loc, parity, c(r, loc, aCount));
    if (bVaries)
      bHalf = arith::MulIOp::create(r, loc, parity, c(r, loc, bCount));
  }
  if (!hoistA && !aLanes)
    aHalf = plus(r, loc, aHalf, roomStart(r, loc, aLoopRoom));
  bHalf = plus(r, loc, bHalf, roomStart(r, loc, bRoom));
  // Staged column of B's column `col`.
  auto bCol = [&](OpBuilder &x, Location xl, Value col) -> Value {
    if (C == 1)
      return col;
    Value group = arith::DivUIOp::create(x, xl, col, c(x, xl, 8));
    Value staged = arith::AddIOp::create(
        x, xl, arith::MulIOp::create(x, xl, arith::RemUIOp::create(x, xl, group, c(x, xl, C)), c(x, xl, groups)),
        arith::DivUIOp::create(x, xl, group, c(x, xl, C)));
    return arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, staged, c(x, xl, 8)),
                                 arith::RemUIOp::create(x, xl, col, c(x, xl, 8)));
  };
  auto halfOf = [&](OpBuilder &x, Location xl, Value half, Value v) -> Value {
    return half ? Value(arith::AddIOp::create(x, xl, v, half)) : v;
  };
  // A's element e at its staged index, less where its half or room starts.
  auto aPlaced = [&](OpBuilder &x, Location xl, int64_t e) -> Value {
    Value row = lw.elementCoord(x, xl, la, e, 0), col = lw.elementCoord(x, xl, la, e, 1);
    return arith::AddIOp::create(x, xl,
                                 arith::MulIOp::create(x, xl, accumulatorBlockRow(x, xl, lw, row, Wr), c(x, xl, lda)), col);
  };
  auto aIndex = [&](OpBuilder &x, Location xl, int64_t e) -> Value { return halfOf(x, xl, aHalf, aPlaced(x, xl, e)); };
  auto bIndex = [&](OpBuilder &x, Location xl, int64_t e) -> Value {
    Value row = lw.elementCoord(x, xl, lb, e, 0), col = lw.elementCoord(x, xl, lb, e, 1);
    if (transB) // b is N x K: its row is a column of B
      return halfOf(x, xl, bHalf,
                    arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, bCol(x, xl, row), c(x, xl, ldb)), col));
    return halfOf(x, xl, bHalf,
                  arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, row, c(x, xl, ldb)), bCol(x, xl, col)));
  };
  auto roomArray = [&](const std::optional<FreedRoom> &room) { return room ? lw.freeArrays[room->array].array : Value(); };

  MLIRContext *ctx = r.getContext();
  auto aMat = gpu::MMAMatrixType::get({16, 16}, matrixIn, "AOp");
  auto bMat = gpu::MMAMatrixType::get({16, 16}, matrixIn, "BOp");
  auto cMat = gpu::MMAMatrixType::get({16, 16}, accElem, "COp");
  // Indices and leading dimensions count the arrays' elements (vectors of aUnit, bUnit).
  auto ld = [&](int64_t v, int64_t per) { return IntegerAttr::get(IndexType::get(ctx), v / per); };
  auto index = [&](Value v, int64_t per) -> Value {
    if (per > 1)
      v = arith::ShRUIOp::create(r, loc, v, lw.i32(r, loc, llvm::Log2_64(per)));
    return arith::IndexCastOp::create(r, loc, r.getIndexType(), v);
  };
  // The subgroup's first staged row of A.
  auto aFirstAt = [&](Value half) {
    Value warp = arith::DivUIOp::create(r, loc, lw.threadId, lw.i32(r, loc, 32));
    Value wr = arith::DivUIOp::create(r, loc, warp, lw.i32(r, loc, C));
    return halfOf(r, loc, half,
                  arith::MulIOp::create(r, loc, arith::MulIOp::create(r, loc, wr, lw.i32(r, loc, 16)), lw.i32(r, loc, lda)));
  };
  SmallVector<Value> hoisted; // A's matrices, k step by k step, pair by pair (hoistA)
  if (hoistA) {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPoint(loop);
    Value start = roomStart(r, loc, aRoom);
    StagedTile t{aType, a, {lda, 1}, [&](OpBuilder &x, Location xl, int64_t e) { return aPlaced(x, xl, e); }, aCount,
                 loop.getOperation(), storeAs, nullptr, 4};
    t.byComponent = aUnit != 4;
    t.offset = start;
    t.array = roomArray(aRoom);
    Value sa = stageTiles(r, loc, lw, {t})[0];
    Value aFirst = aFirstAt(start);
    for (int64_t k0 = 0; k0 < K; k0 += 16)
      for (int64_t p = 0; p < pairs; ++p) { // staged rows 16 (p Wr + wr) ..
        Value at = arith::AddIOp::create(r, loc, aFirst, lw.i32(r, loc, 16 * p * Wr * lda + k0));
        hoisted.push_back(loadMatrix(r, loc, in, aMat, sa, index(at, 4), ld(lda, 4), UnitAttr()));
      }
    lw.barrier(r, loc); // the loads have read the array before the loop's dots write it
    if (aFreed)
      lw.freeArrays[*aFreed].array = sa;
  }
  const int64_t aCopies = halves && aVaries ? 2 : 1, bCopies = halves && bVaries ? 2 : 1;
  // An operand in freed room is held in vectors of 4, each value written into its component where
  // the thread's runs are shorter.
  const int64_t aStaged = aLoopRoom ? 4 : aUnit, bStaged = bRoom ? 4 : bUnit;
  SmallVector<StagedTile> tiles;
  if (!hoistA && !aLanes) {
    tiles.push_back({aType, a, {lda, 1}, aIndex, aCopies * aCount, invariantLoop(op, op.getA()), storeAs, nullptr, aStaged});
    tiles.back().byComponent = aStaged != aUnit;
    tiles.back().array = roomArray(aLoopRoom);
  }
  tiles.push_back({bType, b, {ldb, 1}, bIndex, bCopies * bCount, invariantLoop(op, op.getB()), storeAs, nullptr, bStaged});
  tiles.back().byComponent = bStaged != bUnit;
  tiles.back().array = roomArray(bRoom);
  SmallVector<Value> staged = stageTiles(r, loc, lw, tiles, /*asyncReaders=*/false, /*align=*/16,
                                         /*leadingBarrier=*/!halves || lw.stagingBarrier);
  Value sa = hoistA || aLanes ? Value() : staged[0], sb = staged.back();

  // Accumulator element of (pair p, column group j, fragment index i) in the thread's order.
  auto element = [&](int64_t p, int64_t j, int64_t i) { return fragmentElement(groups, p, j, i); };
  // Element i of a lane's share of a 16 x 16 block (p, jj): fragment 2 (i / 4) + i % 2 (row half
  // i / 4) of column group 2jj + (i / 2) % 2.
  auto laneElement = [&](int64_t p, int64_t jj, int64_t i) {
    return element(p, 2 * jj + (i / 2) % 2, 2 * (i / 4) + i % 2);
  };
  Value warp = arith::DivUIOp::create(r, loc, lw.threadId, lw.i32(r, loc, 32));
  Value aFirst = hoistA || aLanes ? Value() : aFirstAt(aHalf);
  // The subgroup's first staged column of B (16 G/2 wc).
  Value bFirst = halfOf(r, loc, bHalf,
                        arith::MulIOp::create(r, loc, arith::RemUIOp::create(r, loc, warp, lw.i32(r, loc, C)),
                                              lw.i32(r, loc, 8 * groups * (transB ? ldb : 1))));
  Value zero = arith::ConstantOp::create(r, loc, r.getZeroAttr(accElem));
  auto cidx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(r, loc, v); };
  SmallVector<Value> cm; // block (p, jj) at p * blockCols + jj
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t jj = 0; jj < blockCols; ++jj) {
      Value m = gpu::SubgroupMmaConstantMatrixOp::create(r, loc, cMat, zero);
      for (int64_t i = 0; i < 8; ++i)
        m = gpu::SubgroupMmaInsertThreadLocalOp::create(r, loc, cMat, acc[laneElement(p, jj, i)], m, ValueRange{cidx(i)});
      cm.push_back(m);
    }
  UnitAttr bColumnMajor = transB ? r.getUnitAttr() : UnitAttr();
  for (int64_t k0 = 0; k0 < K; k0 += 16) {
    SmallVector<Value> am, bm;
    for (int64_t p = 0; p < pairs; ++p) { // staged rows 16 (p Wr + wr) ..
      if (hoistA) {
        am.push_back(hoisted[k0 / 16 * pairs + p]);
        continue;
      }
      if (aLanes) { // block (p, k0 / 16) of A, its lane's values placed as an accumulator block's
        Value m = gpu::SubgroupMmaConstantMatrixOp::create(r, loc, aMat, arith::ConstantOp::create(r, loc, r.getZeroAttr(in)));
        for (int64_t i = 0; i < 8; ++i)
          m = gpu::SubgroupMmaInsertThreadLocalOp::create(
              r, loc, aMat, a[fragmentElement(la.reps[1], p, 2 * (k0 / 16) + (i / 2) % 2, 2 * (i / 4) + i % 2)], m,
              ValueRange{cidx(i)});
        am.push_back(m);
        continue;
      }
      Value at = arith::AddIOp::create(r, loc, aFirst, lw.i32(r, loc, 16 * p * Wr * lda + k0));
      am.push_back(loadMatrix(r, loc, in, aMat, sa, index(at, aStaged), ld(lda, aStaged), UnitAttr()));
    }
    for (int64_t jj = 0; jj < blockCols; ++jj) { // staged columns 8 G wc + 16 jj ..
      const int64_t at = transB ? 16 * jj * ldb + k0 : k0 * ldb + 16 * jj;
      Value from = arith::AddIOp::create(r, loc, bFirst, lw.i32(r, loc, at));
      bm.push_back(loadMatrix(r, loc, in, bMat, sb, index(from, bStaged), ld(ldb, bStaged), bColumnMajor));
    }
    for (int64_t p = 0; p < pairs; ++p)
      for (int64_t jj = 0; jj < blockCols; ++jj)
        cm[p * blockCols + jj] =
            gpu::SubgroupMmaComputeOp::create(r, loc, cMat, am[p], bm[jj], cm[p * blockCols + jj], UnitAttr(), UnitAttr());
  }
  SmallVector<Value> out(acc.begin(), acc.end());
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t jj = 0; jj < blockCols; ++jj)
      for (int64_t i = 0; i < 8; ++i)
        out[laneElement(p, jj, i)] = gpu::SubgroupMmaExtractThreadLocalOp::create(r, loc, accElem, cm[p * blockCols + jj],
                                                                                  ValueRange{cidx(i)});
  return out;
}

/// tile.dot on cooperative matrices (fast mode; Vulkan). Their lane layout is the driver's, so
/// everything goes through shared memory: A and B row-major in their own type and the
/// accumulator row-major in its type; each subgroup takes the m x n blocks of the result
/// round-robin, loads the block of the accumulator, adds the products of the k steps from the
/// blocks of A and B, and stores it back; then every thread reads its elements of the result.
/// Returns nothing (no rewrite) when the target has no cooperative matrix for these types or the
/// shapes or shared memory do not fit.
std::optional<SmallVector<Value>> lowerWithCoopMatrices(ConversionPatternRewriter &r, Location loc, const TileLowering &lw,
                                                        tile::DotOp op, ValueRange a, ValueRange b, ValueRange acc) {
  const DotShape d(op);
  auto [aType, bType, cType, M, K, N, in, accElem, transB] = d;
  std::optional<TargetInfo::CoopMatrixShape> unit = lw.target.coopMatrixShape(in, accElem);
  if (lw.portable || !unit || M % unit->m || N % unit->n || K % unit->k)
    return std::nullopt;
  const int64_t inBytes = in.getIntOrFloatBitWidth() / 8, accBytes = accElem.getIntOrFloatBitWidth() / 8;
  const int64_t bytes = (M * K + K * N) * inBytes + M * N * accBytes;
  if (lw.sharedBytes + bytes > unit->sharedLimit)
    return std::nullopt;
  const Type storeAs = matrixStandIn(r, in), matrixIn = storeAs ? storeAs : in;
  SmallVector<Value> staged =
      stageTiles(r, loc, lw,
                     {{aType, a, {K, 1}, nullptr, 0, invariantLoop(op, op.getA()), storeAs},
                      {bType, b, d.bCoef(), nullptr, 0, invariantLoop(op, op.getB()), storeAs},
                      {cType, acc, {N, 1}}});
  Value sa = staged[0], sb = staged[1], sc = staged[2];
  BlockedLayout lc = lw.layoutOf(cType);

  MLIRContext *ctx = r.getContext();
  auto aMat = gpu::MMAMatrixType::get({unit->m, unit->k}, matrixIn, "AOp");
  auto bMat = gpu::MMAMatrixType::get({unit->k, unit->n}, matrixIn, "BOp");
  auto cMat = gpu::MMAMatrixType::get({unit->m, unit->n}, accElem, "COp");
  auto ld = [&](int64_t v) { return IntegerAttr::get(IndexType::get(ctx), v); };
  auto index = [&](OpBuilder &x, Location xl, Value v) -> Value {
    return arith::IndexCastOp::create(x, xl, x.getIndexType(), v);
  };
  const int64_t blockCols = N / unit->n, blocks = (M / unit->m) * blockCols;
  const int64_t subgroups = lw.threads / lw.target.subgroupSize();
  Value subgroup = arith::DivUIOp::create(r, loc, lw.threadId, lw.i32(r, loc, lw.target.subgroupSize()));
  // Subgroup s takes blocks s, s + subgroups, ... (the bounds are uniform within a subgroup).
  scf::ForOp::create(
      r, loc, subgroup, lw.i32(r, loc, blocks), lw.i32(r, loc, subgroups), ValueRange{},
      [&](OpBuilder &x, Location xl, Value block, ValueRange) {
        Value bi = arith::DivUIOp::create(x, xl, block, lw.i32(x, xl, blockCols));
        Value bj = arith::RemUIOp::create(x, xl, block, lw.i32(x, xl, blockCols));
        Value row0 = arith::MulIOp::create(x, xl, bi, lw.i32(x, xl, unit->m)); // first row of the block
        Value col0 = arith::MulIOp::create(x, xl, bj, lw.i32(x, xl, unit->n)); // first column
        Value cAt = index(x, xl,
                          arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, row0, lw.i32(x, xl, N)), col0));
        Value c = gpu::SubgroupMmaLoadMatrixOp::create(x, xl, cMat, sc, ValueRange{cAt}, ld(N), UnitAttr());
        Value aRow = arith::MulIOp::create(x, xl, row0, lw.i32(x, xl, K));
        for (int64_t k0 = 0; k0 < K; k0 += unit->k) {
          Value aAt = index(x, xl, arith::AddIOp::create(x, xl, aRow, lw.i32(x, xl, k0)));
          Value bAt = index(x, xl, arith::AddIOp::create(x, xl, col0, lw.i32(x, xl, k0 * N)));
          Value am = loadMatrix(x, xl, in, aMat, sa, aAt, ld(K), UnitAttr());
          Value bm = loadMatrix(x, xl, in, bMat, sb, bAt, ld(N), UnitAttr());
          c = gpu::SubgroupMmaComputeOp::create(x, xl, cMat, am, bm, c, UnitAttr(), UnitAttr());
        }
        gpu::SubgroupMmaStoreMatrixOp::create(x, xl, c, sc, ValueRange{cAt}, ld(N), UnitAttr());
        scf::YieldOp::create(x, xl);
      });
  lw.barrier(r, loc);

  // Every thread (replicas too) reads its elements of the result.
  SmallVector<Value> out;
  Value base = lw.threadLinear(r, loc, lc, {N, 1});
  for (int64_t e = 0; e < lc.perThread(); ++e)
    out.push_back(lw.target.loadShared(r, loc, sc, elementIndex(r, loc, lw, lc, {N, 1}, base, e), accElem));
  return out;
}

struct DotLowering final : OpConversionPattern<tile::DotOp> {
  DotLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}

  LogicalResult matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    const TileLowering &lw = lowering;
    Location loc = op.getLoc();
    const DotShape d(op);
    auto [aType, bType, cType, M, K, N, in, accElem, transB] = d;
    const bool isFloat = isa<FloatType>(accElem);
    const BlockedLayout lc = lw.layoutOf(cType);
    // Matrix units first, where the target has them for these types and shapes. A dot whose copies
    // a producer warpgroup issues has only the warpgroup units (its program has the producer's
    // threads).
    if (std::optional<SmallVector<Value>> via =
            lowerWithWarpgroupUnits(r, loc, lw, op, adaptor.getA(), adaptor.getB(), adaptor.getAcc())) {
      r.replaceOpWithMultiple(op, {ValueRange(*via)});
      return success();
    }
    if (lw.producerDots.count(op.getOperation()))
      return op.emitError("producer-warp: this dot's operands must come by tensor copy on the warpgroup units, in "
                          "stages");
    // An earlier warpgroup dot's late wait counted this one's batch: an empty one keeps the count.
    if (lw.countedDots.count(op.getOperation()))
      lw.target.wgmmaCommit(r, loc);
    for (auto lower : {lowerWithMatrixUnits, lowerWithCoopMatrixLanes, lowerWithCoopMatrices})
      if (std::optional<SmallVector<Value>> via = lower(r, loc, lw, op, adaptor.getA(), adaptor.getB(), adaptor.getAcc())) {
        r.replaceOpWithMultiple(op, {ValueRange(*via)});
        return success();
      }
    if (lw.pingpongDots.count(op.getOperation())) // the loop's other dots take turns: this one must too
      return op.emitError("warpgroup-pingpong: the dots of this loop need two warpgroups on the warpgroup units "
                          "and stages their readers release (every operand by tensor copy, "
                          "tensor-copy-release=mbarrier)");

    // This thread's rows are rowBase + T i (i < reps: T threads down the rows) and its columns
    // runs of vec from colBase, a multiple of vec, where the accumulator has no subgroup grid or
    // has an FMA accumulator's (fmaAccumulatorSplit): `blocked`. Then a is staged transposed, its
    // rows permuted so that each thread's are neighbours: a[r][k] at k * ldT + (r % T) * reps +
    // r / T, and a k step reads them as one run (16-byte loads where the target has them)
    // instead of one load per row. Rows of ldT = M + 4 keep those runs 16-byte aligned.
    // Otherwise a is staged row-major.
    const int64_t T = lc.threadsPer[0], reps = lc.reps[0], ldT = M + 4;
    const bool blocked = !lc.hasWarpGrid() || lw.fmaShapes.count({M, N});
    const bool transposedT = blocked && lc.size(0) == 1 && reps >= 2; // (unless copied, below)
    const BlockedLayout la = lw.layoutOf(aType);
    auto permutedT = [&](OpBuilder &x, Location xl, int64_t e) -> Value {
      auto c = [&](int64_t v) { return lw.i32(x, xl, v); };
      Value row = lw.elementCoord(x, xl, la, e, 0), col = lw.elementCoord(x, xl, la, e, 1);
      Value at = arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, arith::RemUIOp::create(x, xl, row, c(T)), c(reps)),
                                       arith::DivUIOp::create(x, xl, row, c(T)));
      return arith::AddIOp::create(x, xl, arith::MulIOp::create(x, xl, col, c(ldT)), at);
    };
    // Where the target reads shared memory wide only from arrays of vectors (SPIR-V), b as it
    // comes (K x N) is staged in vectors of `vecB` values where its runs and the accumulator's
    // columns both come in runs of them: each run one store, and each k step's columns one load
    // per vector.
    // A transposed a is staged in vectors of `vecA` values there too, each value written alone
    // into its component (its neighbours come from other threads), so that a k step reads each
    // run of a thread's rows as one vector instead of one load per row.
    const BlockedLayout lb = lw.layoutOf(bType);
    const int64_t vecA = std::min<int64_t>(reps, 4);
    const int64_t vecB = std::min<int64_t>({4, lb.vec, lc.vec});
    const bool vectorB = lw.target.wantsVectorArrays() && blocked && !transB && vecB >= 2 && N % vecB == 0;
    // Stage a and b (K x N, also when it comes as N x K) in the accumulator's type (floats
    // widened exactly, i8 sign-extended); a loop-invariant operand once, before the loop
    // (invariantLoop).
    // In a loop, the operands that change in it are staged in two halves where both fit the
    // target's limit for them and option fma-halves asks (auto: where the target prefers it),
    // iteration t writing half t % 2 with one barrier, between its writes and its reads
    // (lowerWithCoopMatrixLanes says why one is enough).
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    Operation *aBefore = invariantLoop(op, op.getA()), *bBefore = invariantLoop(op, op.getB());
    const int64_t elemBytes = accElem.getIntOrFloatBitWidth() / 8, kAlign = 16;
    // Operands copied as they lie from their buffers (planDotStaging: option fma-async-copies),
    // `stages` deep: A row-major in rows of ldA = K + 4 (the rows a subgroup reads at once fall in
    // different banks), B as it comes; an operand from registers is written there the same way.
    // Each of a thread's rows of A is then read 4 k steps at a time.
    const int64_t ldA = K + 4;
    tile::LoadOp direct[2];
    int64_t stages = 1;
    if (auto plan = lw.dotStaging.find(op.getOperation()); plan != lw.dotStaging.end() && loop && !transB && K % 4 == 0) {
      for (int i = 0; i < 2; ++i)
        direct[i] = dyn_cast_or_null<tile::LoadOp>(plan->second.direct[i]);
      auto bytesWith = [&](int64_t s) {
        return ((direct[0] ? s : 1) * M * ldA + (direct[1] ? s : 1) * K * N) * elemBytes + 2 * kAlign;
      };
      for (int64_t s : {3, 2})
        if (s <= plan->second.maxStages && lw.sharedBytes + bytesWith(s) <= lw.target.fmaStagingLimit()) {
          stages = s;
          break;
        }
    }
    const bool copied = stages > 1;
    const bool rowMajorA = copied, transposedA = !copied && transposedT;
    const bool vectorA = lw.fmaVectorA && lw.target.wantsVectorArrays() && transposedA && vecA >= 2 &&
                         reps % vecA == 0 && ldT % vecA == 0;
    const int64_t aCount = transposedA ? K * ldT : rowMajorA ? M * ldA : M * K, bCount = K * N;
    const bool wantHalves = lw.fmaHalves == TileLowering::FmaHalves::On ||
                            (lw.fmaHalves == TileLowering::FmaHalves::Auto && lw.target.prefersFmaHalves());
    const bool halves = !copied && wantHalves && loop && (!aBefore || !bBefore) &&
                        (lw.sharedBytes + kAlign - 1) / kAlign * kAlign + kAlign +
                                ((aBefore ? 1 : 2) * aCount + (bBefore ? 1 : 2) * bCount) * elemBytes <=
                            lw.target.fmaHalvesLimit();
    Value aHalf, bHalf; // where this iteration's half starts (elements), for an operand in halves
    if (halves) {
      Value parity = halfParity(r, loc, lw, loop);
      if (!aBefore)
        aHalf = arith::MulIOp::create(r, loc, parity, lw.i32(r, loc, aCount));
      if (!bBefore)
        bHalf = arith::MulIOp::create(r, loc, parity, lw.i32(r, loc, bCount));
    }
    Value sArrays[2];
    if (copied) {
      const int64_t sizes[2] = {aCount, bCount};
      PipelinedStaging staged = stagePipelined(r, loc, lw, op, {adaptor.getA(), adaptor.getB()}, direct, sizes, {ldA, N}, stages);
      sArrays[0] = staged.a, sArrays[1] = staged.b;
      aHalf = direct[0] ? staged.aStart : Value(), bHalf = direct[1] ? staged.bStart : Value(); // (this iteration's stage)
    } else {
      StagedTile stagedA{aType, adaptor.getA(), {K, 1},
                         transposedA ? std::function<Value(OpBuilder &, Location, int64_t)>(permutedT) : nullptr,
                         (aHalf ? 2 : 1) * aCount, aBefore, accElem};
      StagedTile stagedB{bType, adaptor.getB(), d.bCoef(), nullptr, (bHalf ? 2 : 1) * bCount, bBefore, accElem};
      stagedA.offset = aHalf;
      stagedB.offset = bHalf;
      if (vectorA)
        stagedA.unit = vecA, stagedA.byComponent = true;
      if (vectorB)
        stagedB.unit = vecB;
      SmallVector<Value> staged = stageTiles(r, loc, lw, {stagedA, stagedB}, /*asyncReaders=*/false, kAlign,
                                             /*leadingBarrier=*/!halves);
      sArrays[0] = staged[0], sArrays[1] = staged[1];
    }
    const SharedBuffer sa{sArrays[0], accElem}, sb{sArrays[1], accElem};
    auto inHalf = [&](Value half, Value v) -> Value { return half ? Value(arith::AddIOp::create(r, loc, v, half)) : v; };

    // This thread's distinct rows and columns of the result, and which each element uses.
    const int64_t n = lc.perThread();
    std::map<int64_t, unsigned> rowOf, colOf;
    SmallVector<unsigned> elemRow(n), elemCol(n);
    for (int64_t e = 0; e < n; ++e) {
      elemRow[e] = rowOf.try_emplace(lc.staticCoord(e, 0), unsigned(rowOf.size())).first->second;
      elemCol[e] = colOf.try_emplace(lc.staticCoord(e, 1), unsigned(colOf.size())).first->second;
    }
    Value rowBase = lw.threadOffset(r, loc, lc, 0), colBase = lw.threadOffset(r, loc, lc, 1);
    // Where row i's values start: a: its row * K (transposed: the thread's run, rowBase * reps + i,
    // whose k steps are ldT apart; copied: its row * ldA); b: the column. (Plus the iteration's
    // half or stage.)
    SmallVector<Value> rowStart(rowOf.size()), colStart(colOf.size());
    for (auto [coord, i] : rowOf)
      rowStart[i] = inHalf(aHalf, transposedA ? Value(arith::AddIOp::create(
                                                    r, loc, arith::MulIOp::create(r, loc, rowBase, lw.i32(r, loc, reps)),
                                                    lw.i32(r, loc, coord / T)))
                                              : arith::MulIOp::create(r, loc,
                                                                      arith::AddIOp::create(r, loc, rowBase, lw.i32(r, loc, coord)),
                                                                      lw.i32(r, loc, rowMajorA ? ldA : K)));
    for (auto [coord, i] : colOf)
      colStart[i] = inHalf(bHalf, arith::AddIOp::create(r, loc, colBase, lw.i32(r, loc, coord)));
    // Neighbouring values a k step reads in one access (TileLowering::loadSharedRun), up to 4:
    // transposed a's rows of the thread (rowStart[i] = rowBase * reps + i, k steps ldT apart),
    // and b's columns, runs of the layout's vec from colBase, a multiple of it (k steps N apart).
    // Each run's first index is then a multiple of its length.
    const int64_t runA = transposedA && ldT % 4 == 0 ? std::min<int64_t>(reps, 4) : 1;
    const int64_t runB = blocked && N % lc.vec == 0 ? std::min<int64_t>(lc.vec, 4) : 1;

    // k in steps of `unroll` (fma-unroll; at least the 4 values a row-major A's reads take), each
    // step's products in increasing k (the canonical order in portable mode is unchanged).
    const int64_t rowRun = 4; // the k values read at once from each of a thread's rows of a row-major A
    const int64_t unroll = std::min<int64_t>(K, std::max<int64_t>(lw.fmaUnroll, rowMajorA ? rowRun : 1));
    auto kLoop = scf::ForOp::create(
        r, loc, lw.i32(r, loc, 0), lw.i32(r, loc, K), lw.i32(r, loc, unroll), adaptor.getAcc(),
        [&](OpBuilder &b, Location l, Value k0, ValueRange carried) {
          SmallVector<Value> acc(carried.begin(), carried.end());
          SmallVector<SmallVector<Value>> aRows; // rowMajorA: each row's rowRun values from k0 + u - u % rowRun on
          for (int64_t u = 0; u < unroll; ++u) {
            if (rowMajorA && u % rowRun == 0) {
              aRows.clear();
              for (Value start : rowStart)
                aRows.push_back(lw.loadSharedRun(
                    b, l, sa, arith::AddIOp::create(b, l, start, arith::AddIOp::create(b, l, k0, lw.i32(b, l, u))), accElem, rowRun));
            }
            Value k = u ? Value(arith::AddIOp::create(b, l, k0, lw.i32(b, l, u))) : k0;
            SmallVector<Value> av, bv;
            Value kA = transposedA ? Value(arith::MulIOp::create(b, l, k, lw.i32(b, l, ldT))) : k;
            Value kN = arith::MulIOp::create(b, l, k, lw.i32(b, l, N));
            auto loadRuns = [&](const SharedBuffer &buf, ArrayRef<Value> starts, Value step, int64_t run,
                                SmallVector<Value> &into) {
              for (size_t i = 0; i < starts.size(); i += size_t(run)) {
                Value at = arith::AddIOp::create(b, l, starts[i], step);
                if (run == 1)
                  into.push_back(lw.loadShared(b, l, buf, at, accElem));
                else
                  into.append(lw.loadSharedRun(b, l, buf, at, accElem, run));
              }
            };
            // An array of vectors (vectorA, vectorB): the run from element `start` + `step`
            // (a multiple of the vector's length) as one vector's elements.
            auto loadVectors = [&](const SharedBuffer &buf, ArrayRef<Value> starts, Value step, int64_t vec,
                                   SmallVector<Value> &into) {
              for (size_t i = 0; i < starts.size(); i += size_t(vec)) {
                Value at = arith::ShRUIOp::create(b, l, arith::AddIOp::create(b, l, starts[i], step),
                                                  lw.i32(b, l, llvm::Log2_64(vec)));
                Value v = lw.target.loadShared(b, l, buf.handle, at, VectorType::get({vec}, accElem));
                for (int64_t j = 0; j < vec; ++j)
                  into.push_back(vector::ExtractOp::create(b, l, v, ArrayRef<int64_t>{j}));
              }
            };
            if (rowMajorA)
              for (const SmallVector<Value> &row : aRows)
                av.push_back(row[u % rowRun]);
            else if (vectorA)
              loadVectors(sa, rowStart, kA, vecA, av);
            else
              loadRuns(sa, rowStart, kA, runA, av);
            if (vectorB)
              loadVectors(sb, colStart, kN, vecB, bv);
            else
              loadRuns(sb, colStart, kN, runB, bv);
            for (int64_t e = 0; e < n; ++e) {
              Value x = av[elemRow[e]], y = bv[elemCol[e]];
              if (!isFloat)
                acc[e] = arith::AddIOp::create(b, l, acc[e], arith::MulIOp::create(b, l, x, y));
              else if (lw.portable)
                acc[e] = arith::AddFOp::create(b, l, acc[e], arith::MulFOp::create(b, l, x, y));
              else
                acc[e] = math::FmaOp::create(b, l, x, y, acc[e]);
            }
          }
          scf::YieldOp::create(b, l, acc);
        });
    r.replaceOpWithMultiple(op, {ValueRange(kLoop.getResults())});
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

namespace {

/// Gives the load of a warpgroup dot's operand i a tensor map parameter where a launch can
/// build one (tensorWindowOf, hostScalarOf), recording its spec on the kernel (kTensorMapsAttr).
void planTensorCopy(tile::DotOp dot, int i, tile::LoadOp load, TileLowering &lw) {
  std::optional<TensorWindow> w = tensorWindowOf(load);
  auto func = cast<gpu::GPUFuncOp>(lw.kernel);
  if (!w)
    return;
  auto buffer = dyn_cast<BlockArgument>(w->buffer);
  std::optional<std::pair<int64_t, int64_t>> rows = hostScalarOf(w->rows, func), stride = hostScalarOf(w->stride, func),
                                              cols = w->cols ? hostScalarOf(w->cols, func)
                                                             : std::optional(std::pair<int64_t, int64_t>(-1, w->colsExtent));
  if (!buffer || buffer.getOwner() != &func.getBody().front() || !rows || !cols || !stride)
    return;
  const TensorBox box = tensorBoxOf(DotShape(dot), i);
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  const unsigned param = func.getNumArguments();
  if (failed(func.insertArgument(param, lw.target.tensorMapType(ctx), DictionaryAttr::get(ctx), load.getLoc())))
    return;
  auto pair = [&](std::pair<int64_t, int64_t> v) { return b.getDenseI64ArrayAttr({v.first, v.second}); };
  SmallVector<Attribute> maps;
  if (auto old = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    maps.assign(old.begin(), old.end());
  maps.push_back(b.getDictionaryAttr({
      b.getNamedAttr("param", b.getI32IntegerAttr(int32_t(param))),
      b.getNamedAttr("buffer", b.getI32IntegerAttr(int32_t(buffer.getArgNumber()))),
      b.getNamedAttr("rows", pair(*rows)),
      b.getNamedAttr("cols", pair(*cols)),
      b.getNamedAttr("stride", pair(*stride)),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr({box.boxRows, box.boxCols})),
      b.getNamedAttr("swizzle", b.getI32IntegerAttr(int32_t(box.boxCols * 2))),
      b.getNamedAttr("rank", b.getI32IntegerAttr(w->slice ? 3 : 2)),
  }));
  func->setAttr(kTensorMapsAttr, b.getArrayAttr(maps));
  lw.tensorCopies[load.getOperation()] = {func.getArgument(param), w->row0, w->col0, w->slice, w->rowOffset, w->colOffset};
}

} // namespace

void planDotStaging(Operation *kernel, TileLowering &lw) {
  if (lw.portable || !lw.target.hasAsyncCopy())
    return;
  kernel->walk([&](tile::DotOp dot) {
    const DotShape d(dot);
    std::optional<TargetInfo::MmaShape> unit = lw.target.mmaShape(d.in, d.accElem);
    if (!unit || d.K % unit->k || !lw.mmaShapes.count({d.M, d.N})) {
      // An f32 dot on the FMA path, its operands copied as they lie (option fma-async-copies;
      // DotLowering): A row-major, B as it comes (K x N). By default (auto) where a thread holds
      // 128 accumulators or more (a program a multiprocessor: nothing else hides its loads) or the
      // program has 4 subgroups or fewer; not at 64 a thread on 8 subgroups, where the rows of A
      // held for 4 k steps cost more than the copies gain (run 95, docs/bench.md).
      using Async = TileLowering::FmaAsyncCopies;
      const bool wanted = lw.fmaAsyncCopies == Async::On ||
                          (lw.fmaAsyncCopies == Async::Auto && (d.M * d.N / lw.threads >= 128 || lw.threads <= 128));
      if (wanted && !unit && d.in.isF32() && d.accElem.isF32() && !d.transB && d.K % 4 == 0)
        if (std::optional<TileLowering::DotStaging> plan = stagingPlan(dot); plan && plan->maxStages > 1)
          lw.dotStaging[dot.getOperation()] = *plan;
      return;
    }
    std::optional<TileLowering::DotStaging> plan = stagingPlan(dot);
    if (!plan)
      return;
    lw.dotStaging[dot.getOperation()] = *plan;
    // Pipelined operands of the warpgroup units may come through bulk tensor copies: by default
    // those of dots whose A is not copied from its buffer (attention's: 5-12% faster on the H100,
    // run 32). A copied A goes in boxes of 8 rows (placeA), 16 a stage from one thread for a
    // 128-row block: the matmul's default 128 x 256 x 64 block measured no faster that way (486-495
    // against 497-521 TFLOP/s, runs 35/36), 128 x 128 x 64 faster (416-440 against 375-386).
    if (lw.tensorCopiesAllowed && lw.target.hasTensorCopies() && lw.warpgroupDots.count(dot.getOperation()) &&
        plan->maxStages > 1 && (lw.tensorCopiesForA || !plan->direct[0]))
      for (int i = 0; i < 2; ++i)
        if (plan->direct[i])
          planTensorCopy(dot, i, cast<tile::LoadOp>(plan->direct[i]), lw);
  });
}

void dropUnusedTensorMaps(Operation *kernel) {
  auto func = cast<gpu::GPUFuncOp>(kernel);
  auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
  if (!maps)
    return;
  Builder b(func.getContext());
  SmallVector<Attribute> kept;
  llvm::BitVector erase(func.getNumArguments());
  for (Attribute a : maps) {
    auto map = cast<DictionaryAttr>(a);
    const unsigned param = unsigned(cast<IntegerAttr>(map.get("param")).getInt());
    if (func.getArgument(param).use_empty())
      erase.set(param);
    else
      kept.push_back(map);
  }
  if (failed(func.eraseArguments(erase)))
    return;
  // The kept maps' parameters follow the arguments in order again.
  const unsigned first = func.getNumArguments() - unsigned(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    NamedAttrList fields(cast<DictionaryAttr>(kept[k]));
    fields.set("param", b.getI32IntegerAttr(int32_t(first + k)));
    kept[k] = fields.getDictionary(func.getContext());
  }
  if (kept.empty())
    func->removeAttr(kTensorMapsAttr);
  else
    func->setAttr(kTensorMapsAttr, b.getArrayAttr(kept));
}

void populateDotOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotLowering>(lowering, converter, patterns.getContext());
}

} // namespace tessera::backend
