// Lowering of tile.load and tile.store: a thread's runs of contiguous elements as one wide access
// when they are whole, else one guarded access per element.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>

using namespace mlir;

namespace tessera::backend {

namespace {

/// An integer as a sum of other values (its leaves, in a fixed order) and a constant, seen
/// through arith.addi and constants: enough to tell two offsets or mask operands that differ by a
/// constant, as the elements of one thread do (arange plus a multiple of BLOCK plus a row).
struct LinearForm {
  SmallVector<Value, 4> leaves;
  int64_t constant = 0;

  explicit LinearForm(Value v) {
    collect(v, 0);
    llvm::sort(leaves, [](Value a, Value b) { return a.getAsOpaquePointer() < b.getAsOpaquePointer(); });
  }
  /// this - other, where both have the same leaves (the difference is then exact modulo 2^bits).
  std::optional<int64_t> minus(const LinearForm &other) const {
    if (leaves != other.leaves)
      return std::nullopt;
    return constant - other.constant;
  }

private:
  void collect(Value v, int depth) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() <= 64) {
      constant += c.getSExtValue();
      return;
    }
    if (auto add = v.getDefiningOp<arith::AddIOp>(); add && depth < 8) {
      collect(add.getLhs(), depth + 1);
      collect(add.getRhs(), depth + 1);
      return;
    }
    leaves.push_back(v);
  }
};

/// The conjunction of i1 terms, each taken once, with the comparisons against one bound of values
/// that differ by constants folded into two: for x_i = x + c_i and a predicate p in <, <=, >, >=
/// (signed or unsigned), all(x_i p bound) is (x_max p bound) for < and <= (x_min for > and >=)
/// and (x_min <= x_max), which says that x_min + (c_i - c_min) does not wrap around, so the x_i
/// are ordered as their constants are. A mask `cols < n` of 32 elements becomes two comparisons
/// instead of 32 that LLVM had to prove implied by one another (a fifth of the PTX compile time
/// of the portable softmax 4096 x 16384).
class Conjunction {
public:
  Conjunction(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  void add(Value term) {
    if (auto both = term.getDefiningOp<arith::AndIOp>(); both && both.getType().isInteger(1)) {
      add(both.getLhs());
      add(both.getRhs());
      return;
    }
    if (!seen.insert(term).second)
      return;
    auto cmp = term.getDefiningOp<arith::CmpIOp>();
    if (!cmp || !orders(cmp.getPredicate())) {
      others.push_back(term);
      return;
    }
    LinearForm form(cmp.getLhs());
    for (Bound &group : bounds) {
      if (group.predicate != cmp.getPredicate() || group.bound != cmp.getRhs())
        continue;
      const std::optional<int64_t> belowMin = group.min.form.minus(form), aboveMax = form.minus(group.max.form);
      if (!belowMin)
        continue;
      const int64_t lowest = std::min<int64_t>(0, -*belowMin), highest = std::max<int64_t>(0, *aboveMax);
      // The constants' spread must stay below half the range for the no-wrap test to mean order.
      const unsigned bits = cmp.getLhs().getType().getIntOrFloatBitWidth();
      if (bits > 62 || highest - lowest + (group.max.form.constant - group.min.form.constant) >= (int64_t(1) << (bits - 1)))
        continue;
      if (*belowMin > 0)
        group.min = {cmp.getLhs(), term, form};
      if (*aboveMax > 0)
        group.max = {cmp.getLhs(), term, form};
      return;
    }
    bounds.push_back({cmp.getPredicate(), cmp.getRhs(), {cmp.getLhs(), term, form}, {cmp.getLhs(), term, form}});
  }

  /// The conjunction (true where there are no terms).
  Value build() {
    SmallVector<Value> terms(others);
    llvm::SmallDenseSet<std::pair<Value, Value>, 4> ordered; // no-wrap tests made (window bounds share one)
    for (const Bound &group : bounds) {
      const arith::CmpIPredicate p = group.predicate;
      const bool upper = p == arith::CmpIPredicate::slt || p == arith::CmpIPredicate::sle ||
                         p == arith::CmpIPredicate::ult || p == arith::CmpIPredicate::ule;
      terms.push_back(upper ? group.max.term : group.min.term);
      if (group.min.value != group.max.value && ordered.insert({group.min.value, group.max.value}).second) {
        const bool isSigned = p == arith::CmpIPredicate::slt || p == arith::CmpIPredicate::sle ||
                              p == arith::CmpIPredicate::sgt || p == arith::CmpIPredicate::sge;
        terms.push_back(arith::CmpIOp::create(b, loc, isSigned ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule,
                                              group.min.value, group.max.value));
      }
    }
    if (terms.empty())
      return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value all = terms.front();
    for (Value t : ArrayRef(terms).drop_front())
      all = arith::AndIOp::create(b, loc, all, t);
    return all;
  }

private:
  static bool orders(arith::CmpIPredicate p) {
    return p != arith::CmpIPredicate::eq && p != arith::CmpIPredicate::ne;
  }
  struct Extreme {
    Value value, term; // the compared value and its comparison with the bound
    LinearForm form;
  };
  struct Bound {
    arith::CmpIPredicate predicate;
    Value bound;
    Extreme min, max;
  };
  OpBuilder &b;
  Location loc;
  llvm::SmallDenseSet<Value, 16> seen;
  SmallVector<Value> others;
  SmallVector<Bound> bounds;
};

/// Runs [begin, end) of `vec` elements whole: each run's offsets contiguous and its first a
/// multiple of vec, every mask bit set. What the offsets' linear forms prove is left out (a run
/// whose elements are the first's plus 1, 2, ...; a run a multiple of vec from the first run).
Value wholeRuns(OpBuilder &b, Location loc, ValueRange offsets, ValueRange mask, size_t begin, size_t end,
                int64_t vec) {
  Type type = offsets[begin].getType();
  auto c = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v)).getResult(); };
  Conjunction all(b, loc);
  const LinearForm first(offsets[begin]);
  for (size_t j = begin; j < end; j += size_t(vec)) {
    const LinearForm run(offsets[j]);
    const std::optional<int64_t> fromFirst = run.minus(first);
    if (j == begin || !fromFirst || *fromFirst % vec != 0)
      all.add(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, arith::AndIOp::create(b, loc, offsets[j], c(vec - 1)),
                                    c(0)));
    for (int64_t k = 1; k < vec; ++k) {
      const std::optional<int64_t> step = LinearForm(offsets[j + k]).minus(run);
      if (!step || *step != k)
        all.add(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, offsets[j + k],
                                      arith::AddIOp::create(b, loc, offsets[j], c(k))));
    }
    if (!mask.empty())
      for (int64_t k = 0; k < vec; ++k)
        all.add(mask[j + k]);
  }
  return all.build();
}

} // namespace

/// Elements a thread holds come in runs of `vec` neighbours along the last dimension
/// (BlockedLayout): element j of the thread is position j % vec of its run. A run can be read or
/// written as one wide access when, at run time, its offsets are contiguous, its first offset is
/// a multiple of the run length (alignment) and every mask bit is set (a load takes its wide
/// accesses where this holds for all the thread's runs, a store run by run):
///   all(mask[j..j+vec)) && o[j+k] == o[j] + k && o[j] % vec == 0
/// What the offsets' forms prove is not tested at run time (wholeRuns, Conjunction).
Value wholeRunCondition(OpBuilder &b, Location loc, ValueRange offsets, ValueRange mask, size_t j, int64_t vec) {
  return wholeRuns(b, loc, offsets, mask, j, j + size_t(vec), vec);
}

Value allRunsWhole(OpBuilder &b, Location loc, ValueRange offsets, ValueRange mask, int64_t vec) {
  return wholeRuns(b, loc, offsets, mask, 0, offsets.size(), vec);
}

Value loadMaskedElement(OpBuilder &b, Location loc, const TargetInfo &target, Value buffer, Value offset, Value mask,
                        Value otherwise, Type elem) {
  if (!mask)
    return target.loadElement(b, loc, buffer, offset, elem);
  return scf::IfOp::create(
             b, loc, mask,
             [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, target.loadElement(nb, nl, buffer, offset, elem)); },
             [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, otherwise); })
      .getResult(0);
}

namespace {

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
}

/// Runs worth a wide access: the thread's runs of `layout.vec` elements cut into pieces of at most
/// 16 bytes (both powers of two, so every piece stays aligned to its length); 1 when the elements
/// are narrower than a byte or the run holds one element.
int64_t runLength(const BlockedLayout &layout, Type elem, size_t elements) {
  if (layout.vec < 2 || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8 ||
      elements % size_t(layout.vec) != 0)
    return 1;
  const int64_t run = std::min<int64_t>(layout.vec, 128 / elem.getIntOrFloatBitWidth());
  return run < 2 ? 1 : run;
}

struct LoadLowering final : OpConversionPattern<tile::LoadOp> {
  LoadLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type elem = cast<RankedTensorType>(op.getType()).getElementType();
    Value buffer = adaptor.getPtr().front();
    ValueRange offsets = adaptor.getOffsets(), mask = adaptor.getMask(), other = adaptor.getOther();
    Value zero = other.empty() ? zeroOf(r, loc, elem) : Value();
    const int64_t vec = runLength(lowering.layoutOf(cast<RankedTensorType>(op.getType())), elem, offsets.size());
    // One element at a time, each behind its own mask bit (masked-off offsets may be out of
    // bounds: they must not be read at all).
    auto elementwise = [&](OpBuilder &b, Location l, size_t j, int64_t count) {
      SmallVector<Value> out;
      for (size_t e = j; e < j + size_t(count); ++e)
        out.push_back(loadMaskedElement(b, l, lowering.target, buffer, offsets[e], mask.empty() ? Value() : mask[e],
                                        other.empty() ? zero : other[e], elem));
      return out;
    };
    if (vec == 1) {
      r.replaceOpWithMultiple(op, {ValueRange(elementwise(r, loc, 0, int64_t(offsets.size())))});
      return success();
    }
    // Runs proven contiguous, aligned and under one mask bit (uniformRuns): each is one wide
    // access or none, with no element-by-element path.
    const bool uniform = lowering.provenWhole(op, vec);
    const bool predicated = uniform && !mask.empty() && lowering.target.hasPredicatedRuns(elem, vec);
    auto wholeRun = [&](OpBuilder &b, Location l, size_t j) {
      return lowering.target.loadRun(b, l, buffer, offsets.slice(j, size_t(vec)), elem);
    };
    auto uniformRuns = [&](OpBuilder &b, Location l) {
      SmallVector<Value> out;
      for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
        SmallVector<Value> run;
        if (mask.empty()) {
          run = wholeRun(b, l, j);
        } else {
          SmallVector<Value> otherwise =
              other.empty() ? SmallVector<Value>(size_t(vec), zero) : SmallVector<Value>(other.slice(j, size_t(vec)));
          if (predicated) {
            run = lowering.target.loadRunIf(b, l, buffer, offsets.slice(j, size_t(vec)), elem, mask[j], otherwise);
          } else {
            auto branch = scf::IfOp::create(
                b, l, mask[j], [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, wholeRun(nb, nl, j)); },
                [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, otherwise); });
            run.assign(branch.getResults().begin(), branch.getResults().end());
          }
        }
        out.append(run.begin(), run.end());
      }
      return out;
    };
    // Predicated runs (where the target has them) need no branch around them either.
    if (uniform && (mask.empty() || predicated)) {
      r.replaceOpWithMultiple(op, {ValueRange(uniformRuns(r, loc))});
      return success();
    }
    // One branch for all the thread's runs: where every run is whole, their wide loads sit in one
    // block and are all in flight at once (a branch per run kept each load behind the previous
    // one's merge on NVIDIA's Vulkan driver); otherwise every element on its own.
    Value whole;
    if (uniform) {
      Conjunction all(r, loc);
      for (size_t j = 0; j < offsets.size(); j += size_t(vec))
        all.add(mask[j]);
      whole = all.build();
    } else {
      whole = allRunsWhole(r, loc, offsets, mask, vec);
    }
    auto branch = scf::IfOp::create(r, loc, SmallVector<Type>(offsets.size(), elem), whole, true);
    {
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> elems;
      for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
        SmallVector<Value> run = lowering.target.loadRun(r, loc, buffer, offsets.slice(j, size_t(vec)), elem);
        elems.append(run.begin(), run.end());
      }
      scf::YieldOp::create(r, loc, elems);
      r.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(r, loc, uniform ? uniformRuns(r, loc) : elementwise(r, loc, 0, int64_t(offsets.size())));
    }
    r.replaceOpWithMultiple(op, {ValueRange(branch.getResults())});
    return success();
  }
  const TileLowering &lowering;
};

/// A store of a matrix-unit accumulator's tile (runs of 2 along its rows: mmaAccumulatorLayout)
/// into a window of a row-major matrix (tensorWindowOf), whose 16-byte runs the analysis proves
/// whole: the tile goes through shared memory a block at a time, and each thread stores 16-byte
/// runs of the block (on NVIDIA a quarter of the store instructions for f16, each writing whole
/// 32-byte sectors where the accumulator's runs half-filled them). A block is the whole tile
/// where it fits the memory the target lets the store add (storeStagingBytes), else a band of
/// fewer rows, else of fewer columns too. Row r of a block keeps its 16-byte chunks in the order
/// c ^ (r % 8), so that a subgroup's writes of the accumulator (8 rows, 4 lanes a row) meet each
/// bank once and its 16-byte reads of a row stay whole. False, creating nothing, where the store
/// does not qualify.
bool storeThroughShared(tile::StoreOp op, ValueRange values, Value buffer, const TileLowering &lw,
                        ConversionPatternRewriter &r) {
  auto type = cast<RankedTensorType>(op.getValue().getType());
  if (type.getRank() != 2 || values.empty() || !lw.mmaShapes.count({type.getShape().begin(), type.getShape().end()}))
    return false;
  const BlockedLayout layout = lw.layoutOf(type);
  Type elem = values[0].getType();
  const int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0;
  // 8- and 16-bit results only, so far: those are what the examples store, and so what the GPU
  // runs have checked (f32 results would take 16-byte runs of 4 the same way).
  if (bits < 8 || bits > 16 || layout.hasReplicas() || int64_t(values.size()) != layout.perThread())
    return false;
  const int64_t wide = 128 / bits, bytes = bits / 8, cols = type.getDimSize(1);
  if (layout.vec >= wide || cols % wide || !lw.provenWhole(op, wide))
    return false;
  std::optional<TensorWindow> w = tensorWindowOf(op);
  if (!w)
    return false;
  // A block holds rowReps x colReps of the accumulator's repetitions: all of them where they fit
  // the room the target gives, else fewer rows, then fewer columns.
  // (A producer warpgroup's threads count among the program's.)
  auto producer = lw.kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr);
  const int64_t launchThreads = lw.threads + (producer ? producer.getInt() : 0);
  const int64_t start = (lw.sharedBytes + 15) / 16 * 16, room = lw.target.storeStagingBytes(start, launchThreads);
  const int64_t rowStep = layout.threadsPer[0], colStep = layout.vec * layout.threadsPer[1];
  int64_t rowReps = layout.reps[0], colReps = layout.reps[1];
  auto blockBytes = [&] { return rowReps * rowStep * colReps * colStep * bytes; };
  while (blockBytes() > room && rowReps > 1)
    rowReps /= 2;
  while (blockBytes() > room && colReps > 1 && (colReps / 2 * colStep) % wide == 0)
    colReps /= 2;
  const int64_t height = rowReps * rowStep, width = colReps * colStep;
  if (blockBytes() > room || width % wide)
    return false;
  const BlockedLayout out = BlockedLayout::get({height, width}, lw.threads, wide);
  if (out.vec != wide || out.hasReplicas())
    return false;

  Location loc = op.getLoc();
  auto c = [&](int64_t v) { return lw.i32(r, loc, v); };
  auto add = [&](Value a, int64_t v) { return v ? Value(arith::AddIOp::create(r, loc, a, c(v))) : a; };
  auto run = [&](Value first, int64_t n) {
    SmallVector<Value> indices{first};
    for (int64_t k = 1; k < n; ++k)
      indices.push_back(add(first, k));
    return indices;
  };
  lw.sharedBytes = start + blockBytes();
  Value scratch = lw.target.allocShared(r, loc, cast<gpu::GPUFuncOp>(lw.kernel), elem, height * width, 16);
  // Where element (row, col) of a block lies.
  const int64_t swizzle = std::min<int64_t>(8, width / wide) - 1;
  auto place = [&](Value row, Value col) {
    Value chunk = arith::DivUIOp::create(r, loc, col, c(wide));
    chunk = arith::XOrIOp::create(r, loc, chunk, arith::AndIOp::create(r, loc, row, c(swizzle)));
    Value within = arith::RemUIOp::create(r, loc, col, c(wide));
    return arith::AddIOp::create(r, loc, arith::MulIOp::create(r, loc, row, c(width)),
                                 arith::AddIOp::create(r, loc, arith::MulIOp::create(r, loc, chunk, c(wide)), within));
  };
  auto scalar = [&](Value s, int64_t offset) { return s ? add(r.getRemappedValue(s), offset) : c(offset); };
  Value row0 = scalar(w->row0, w->rowOffset), col0 = scalar(w->col0, w->colOffset);
  Value stride = r.getRemappedValue(w->stride), rowBound = r.getRemappedValue(w->rows);
  Value colBound = w->cols ? r.getRemappedValue(w->cols) : Value();
  Value head = w->slice ? Value(arith::MulIOp::create(
                              r, loc, arith::MulIOp::create(r, loc, r.getRemappedValue(w->slice), rowBound), stride))
                        : Value();
  Value writeRow = lw.threadOffset(r, loc, layout, 0), writeCol = lw.threadOffset(r, loc, layout, 1);
  Value readRow = lw.threadOffset(r, loc, out, 0), readCol = lw.threadOffset(r, loc, out, 1);
  for (int64_t rb = 0; rb < layout.reps[0] / rowReps; ++rb)
    for (int64_t cb = 0; cb < layout.reps[1] / colReps; ++cb) {
      lw.barrier(r, loc); // the previous block's (or an earlier run's) readers are done
      for (int64_t p = rb * rowReps; p < (rb + 1) * rowReps; ++p)
        for (int64_t q = cb * colReps; q < (cb + 1) * colReps; ++q) {
          const int64_t e = (p * layout.reps[1] + q) * layout.vec;
          Value at = place(add(writeRow, layout.staticCoord(e, 0) - rb * height),
                           add(writeCol, layout.staticCoord(e, 1) - cb * width));
          lw.target.storeRun(r, loc, scratch, run(at, layout.vec), values.slice(size_t(e), size_t(layout.vec)));
        }
      lw.barrier(r, loc);
      for (int64_t e = 0; e < out.perThread(); e += wide) {
        Value row = add(readRow, out.staticCoord(e, 0)), col = add(readCol, out.staticCoord(e, 1));
        SmallVector<Value> runValues = lw.target.loadRun(r, loc, scratch, run(place(row, col), wide), elem);
        Value i = arith::AddIOp::create(r, loc, row0, add(row, rb * height));
        Value j = arith::AddIOp::create(r, loc, col0, add(col, cb * width));
        Value offset = arith::AddIOp::create(r, loc, arith::MulIOp::create(r, loc, i, stride), j);
        if (head)
          offset = arith::AddIOp::create(r, loc, head, offset);
        Value mask = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::slt, i, rowBound);
        auto also = [&](arith::CmpIPredicate p, Value x, Value y) {
          mask = arith::AndIOp::create(r, loc, mask, arith::CmpIOp::create(r, loc, p, x, y));
        };
        if (colBound)
          also(arith::CmpIPredicate::slt, j, colBound);
        if (w->rowLower)
          also(arith::CmpIPredicate::sge, i, c(0));
        if (w->colLower)
          also(arith::CmpIPredicate::sge, j, c(0));
        SmallVector<Value> offsets = run(offset, wide);
        if (lw.target.storeRunIf(r, loc, buffer, offsets, runValues, mask))
          continue;
        OpBuilder::InsertionGuard guard(r);
        auto branch = scf::IfOp::create(r, loc, TypeRange{}, mask, false);
        r.setInsertionPointToStart(branch.thenBlock());
        lw.target.storeRun(r, loc, buffer, offsets, runValues);
      }
    }
  return true;
}

struct StoreLowering final : OpConversionPattern<tile::StoreOp> {
  StoreLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    BlockedLayout layout = lowering.layoutOf(cast<RankedTensorType>(op.getValue().getType()));
    Value buffer = adaptor.getPtr().front();
    ValueRange offsets = adaptor.getOffsets(), values = adaptor.getValue(), mask = adaptor.getMask();
    if (!lowering.portable && lowering.storeStaging && storeThroughShared(op, values, buffer, lowering, r)) {
      r.eraseOp(op);
      return success();
    }
    // Threads holding copies of another thread's elements do not store them again.
    Value owner = lowering.ownerPredicate(r, loc, layout);
    auto elementwise = [&](OpBuilder &b, Location l, size_t j, int64_t count) {
      for (size_t e = j; e < j + size_t(count); ++e) {
        Value cond = mask.empty() ? owner : mask[e];
        if (owner && !mask.empty())
          cond = arith::AndIOp::create(b, l, cond, owner);
        if (!cond) {
          lowering.target.storeElement(b, l, buffer, offsets[e], values[e]);
          continue;
        }
        scf::IfOp::create(b, l, cond, [&](OpBuilder &nb, Location nl) {
          lowering.target.storeElement(nb, nl, buffer, offsets[e], values[e]);
          scf::YieldOp::create(nb, nl);
        });
      }
    };
    const int64_t vec = runLength(layout, values.empty() ? Type() : values[0].getType(), offsets.size());
    const bool uniform = lowering.provenWhole(op, vec);
    // A branch per run: a store has nothing to wait for, and one condition over all the runs kept
    // every offset live at once (an f32 matmul's epilogue took 188 registers instead of 124).
    for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
      if (vec == 1) {
        elementwise(r, loc, j, 1);
        continue;
      }
      // Runs proven contiguous, aligned and under one mask bit (uniformRuns) store whole where
      // their first bit is set, and nothing otherwise.
      if (uniform) {
        OpBuilder::InsertionGuard guard(r);
        Value cond = mask.empty() ? owner : mask[j];
        if (owner && !mask.empty())
          cond = arith::AndIOp::create(r, loc, cond, owner);
        // A predicated store where the target has one; else a branch around the run. Portable
        // kernels keep the branch: LLVM sinks each run's values into it, and their correctly
        // rounded divisions and exponentials (long sequences) then do not all wait to be stored
        // at once (softmax 4096 x 16384 on 16 warps: 64 registers, against 66 predicated, one
        // program a multiprocessor instead of two: 1586 against 2298 GB/s, runs 52-53).
        ValueRange runOffsets = offsets.slice(j, size_t(vec)), runValues = values.slice(j, size_t(vec));
        if (cond && !lowering.portable && lowering.target.storeRunIf(r, loc, buffer, runOffsets, runValues, cond))
          continue;
        if (cond) {
          auto branch = scf::IfOp::create(r, loc, TypeRange{}, cond, false);
          r.setInsertionPointToStart(branch.thenBlock());
        }
        lowering.target.storeRun(r, loc, buffer, runOffsets, runValues);
        continue;
      }
      Value whole = wholeRunCondition(r, loc, offsets, mask, j, vec);
      auto branch = scf::IfOp::create(r, loc, TypeRange{}, whole, true);
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPointToStart(branch.thenBlock());
      // Replica threads skip the whole run as they skip its elements.
      if (owner) {
        auto owned = scf::IfOp::create(r, loc, TypeRange{}, owner, false);
        r.setInsertionPointToStart(owned.thenBlock());
      }
      lowering.target.storeRun(r, loc, buffer, offsets.slice(j, size_t(vec)), values.slice(j, size_t(vec)));
      r.setInsertionPointToStart(branch.elseBlock());
      elementwise(r, loc, j, vec);
    }
    r.eraseOp(op);
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateLoadStoreOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering>(lowering, converter, patterns.getContext());
}

} // namespace tessera::backend
