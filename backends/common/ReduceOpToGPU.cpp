// Lowering of tile.reduce (sum, max, min, argmax, argmin along an axis) and tile.scan
// (inclusive prefix sum): in-thread, then across the lanes of a subgroup with XOR shuffles,
// then across subgroups through shared memory.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

using namespace mlir;

namespace tessera::backend {
namespace {

/// A running reduction value: the value, and for argmax/argmin the index it came from.
struct Partial {
  Value value, index;
};

struct Combiner {
  tile::ReduceKind kind;
  bool isFloat;

  bool isArg() const { return kind == tile::ReduceKind::ArgMax || kind == tile::ReduceKind::ArgMin; }

  /// a then b, where b's elements come after a's in the order the lowering visits them.
  Partial combine(OpBuilder &b, Location loc, Partial a, Partial o) const {
    switch (kind) {
    case tile::ReduceKind::Sum:
      return {isFloat ? Value(arith::AddFOp::create(b, loc, a.value, o.value))
                      : Value(arith::AddIOp::create(b, loc, a.value, o.value)), {}};
    case tile::ReduceKind::Max:
      return {isFloat ? Value(arith::MaximumFOp::create(b, loc, a.value, o.value))
                      : Value(arith::MaxSIOp::create(b, loc, a.value, o.value)), {}};
    case tile::ReduceKind::Min:
      return {isFloat ? Value(arith::MinimumFOp::create(b, loc, a.value, o.value))
                      : Value(arith::MinSIOp::create(b, loc, a.value, o.value)), {}};
    default:
      break;
    }
    // argmax/argmin: take `o` when it is strictly better, or equal with a smaller index; a NaN
    // beats any number, and among NaNs the smaller index wins.
    bool isMax = kind == tile::ReduceKind::ArgMax;
    Value earlier = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o.index, a.index);
    Value take;
    if (isFloat) {
      Value better = arith::CmpFOp::create(b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                                           o.value, a.value);
      Value equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, o.value, a.value);
      Value oNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, o.value, o.value);
      Value aNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a.value, a.value);
      Value aNum = arith::XOrIOp::create(b, loc, aNaN, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      Value nanWins = arith::AndIOp::create(b, loc, oNaN, arith::OrIOp::create(b, loc, aNum, earlier));
      take = arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, equal, earlier));
      take = arith::OrIOp::create(b, loc, take, nanWins);
    } else {
      Value better = arith::CmpIOp::create(b, loc, isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                                           o.value, a.value);
      Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, o.value, a.value);
      take = arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, equal, earlier));
    }
    return {arith::SelectOp::create(b, loc, take, o.value, a.value),
            arith::SelectOp::create(b, loc, take, o.index, a.index)};
  }
};

Value shuffleXor(OpBuilder &b, Location loc, const TileLowering &l, Value v, int64_t offset) {
  auto shuffle = gpu::ShuffleOp::create(b, loc, v, l.i32(b, loc, offset), l.i32(b, loc, l.target.subgroupSize()),
                                        gpu::ShuffleMode::XOR);
  return shuffle.getShuffleResult();
}

struct ReduceLowering final : OpConversionPattern<tile::ReduceOp> {
  ReduceLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}

  LogicalResult matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    Type elem = srcType.getElementType();
    if (elem.getIntOrFloatBitWidth() != 32)
      return r.notifyMatchFailure(op, "reductions run on 32-bit values (the front end widens)");
    BlockedLayout L = lowering.layoutOf(srcType);
    int64_t axis = int32_t(op.getAxis()), rank = L.rank();
    Combiner comb{op.getKind(), isa<FloatType>(elem)};
    ValueRange src = adaptor.getSrc();
    // Portable float sums follow the canonical order (docs/numerics.md): the pairwise tree over
    // the axis index. The blocked layout makes it a register tree: a thread's run of vec
    // neighbours is one subtree, the lanes along the axis (XOR shuffles with doubling offsets,
    // then subgroups through shared memory) the levels above it, and the thread's repetitions
    // along the axis (`reps`, each a block of vec x lanes) the top levels. Every extent is a
    // power of two, and a + b == b + a, so both lanes of a shuffle get the same bits.
    const bool canonical = lowering.portable && comb.isFloat && op.getKind() == tile::ReduceKind::Sum;
    const int64_t repsAlong = canonical ? L.reps[axis] : 1;
    auto pairwise = [&](SmallVector<Value> v) {
      while (v.size() > 1) {
        SmallVector<Value> next;
        for (size_t i = 0; i + 1 < v.size(); i += 2)
          next.push_back(arith::AddFOp::create(r, loc, v[i], v[i + 1]));
        v = std::move(next);
      }
      return v[0];
    };

    // 1. In each thread: group elements by their coordinates off the axis, combine along it
    //    in increasing coordinate order (canonical: one pairwise subtree per repetition).
    std::map<SmallVector<int64_t, 4>, SmallVector<std::pair<int64_t, int64_t>>> groups; // key -> (coord, e)
    for (int64_t e = 0; e < L.perThread(); ++e) {
      SmallVector<int64_t, 4> key;
      for (int64_t k = 0; k < rank; ++k)
        if (k != axis)
          key.push_back(L.staticCoord(e, k));
      groups[key].push_back({L.staticCoord(e, axis), e});
    }
    Value axisBase = comb.isArg() ? lowering.threadOffset(r, loc, L, axis) : Value();
    SmallVector<SmallVector<int64_t, 4>> keys; // canonical: each key repsAlong times, one per repetition
    SmallVector<Partial> partials;
    for (auto &[key, members] : groups) {
      llvm::sort(members);
      if (canonical) {
        const size_t run = members.size() / size_t(repsAlong);
        for (int64_t rep = 0; rep < repsAlong; ++rep) {
          SmallVector<Value> values;
          for (size_t i = 0; i < run; ++i)
            values.push_back(src[members[size_t(rep) * run + i].second]);
          keys.push_back(key);
          partials.push_back({pairwise(values), {}});
        }
        continue;
      }
      Partial acc;
      for (auto [c, e] : members) {
        Partial p{src[e], {}};
        if (comb.isArg())
          p.index = c ? Value(arith::AddIOp::create(r, loc, axisBase, lowering.i32(r, loc, c))) : axisBase;
        acc = acc.value ? comb.combine(r, loc, acc, p) : p;
      }
      keys.push_back(key);
      partials.push_back(acc);
    }

    // 2. Across the lanes of a subgroup that hold other coordinates along the axis.
    int64_t sg = lowering.target.subgroupSize(), stride = L.replicaLanes * L.threadStride(axis), along = L.threadsPer[axis];
    int64_t inWarp = 1;
    while (inWarp < along && stride * inWarp < sg)
      inWarp *= 2;
    for (int64_t offset = stride; offset < stride * inWarp; offset *= 2)
      for (Partial &p : partials) {
        Partial o{shuffleXor(r, loc, lowering, p.value, offset),
                  comb.isArg() ? shuffleXor(r, loc, lowering, p.index, offset) : Value()};
        p = comb.combine(r, loc, p, o);
      }
    int64_t groupsAcross = along / inWarp;

    // A whole-tile reduction that fits in one subgroup is done: every lane holds the result.
    SmallVector<int64_t> resultShape(srcType.getShape());
    resultShape.erase(resultShape.begin() + axis);
    if (resultShape.empty() && groupsAcross == 1) {
      if (canonical) {
        SmallVector<Value> perRep;
        for (const Partial &p : partials)
          perRep.push_back(p.value);
        r.replaceOp(op, pairwise(perRep));
        return success();
      }
      r.replaceOp(op, comb.isArg() ? partials[0].index : partials[0].value);
      return success();
    }

    // 2b. When the subgroup held the whole axis, every lane has its rows' results: if the result's
    //     layout puts each of its elements in a thread that has it (a row slice of the source,
    //     mmaRowSliceLayout), they stay in registers.
    if (!resultShape.empty() && groupsAcross == 1) {
      BlockedLayout R = lowering.layoutOf(RankedTensorType::get(resultShape, elem));
      // Partials of each result coordinate, in order (canonical: one per repetition).
      std::map<SmallVector<int64_t, 4>, SmallVector<size_t>> byKey;
      for (size_t i = 0; i < keys.size(); ++i)
        byKey[keys[i]].push_back(i);
      auto keyOf = [&](int64_t tid, int64_t e) { // the source's static coordinates of result element e
        SmallVector<int64_t, 4> key;
        for (int64_t k = 0, j = 0; k < rank; ++k)
          if (k != axis) {
            const int64_t own = L.threadIndex(tid, k) * L.size(k);
            key.push_back(R.coord(tid, e, j++) - own);
          }
        return key;
      };
      bool local = true;
      SmallVector<SmallVector<int64_t, 4>> want;
      for (int64_t e = 0; e < R.perThread() && local; ++e) {
        want.push_back(keyOf(0, e));
        local = byKey.count(want.back()) > 0;
      }
      for (int64_t tid = 1; tid < lowering.threads && local; ++tid)
        for (int64_t e = 0; e < R.perThread() && local; ++e)
          local = keyOf(tid, e) == want[e];
      if (local) {
        SmallVector<Value> out;
        for (const SmallVector<int64_t, 4> &key : want) {
          const SmallVector<size_t> &at = byKey[key];
          if (canonical) {
            SmallVector<Value> perRep;
            for (size_t i : at)
              perRep.push_back(partials[i].value);
            out.push_back(pairwise(perRep));
          } else {
            out.push_back(comb.isArg() ? partials[at[0]].index : partials[at[0]].value);
          }
        }
        r.replaceOpWithMultiple(op, {ValueRange(out)});
        return success();
      }
    }

    // 3. Through shared memory: slot [result index][group], written by the first lane of each
    //    in-subgroup group, read back in the result's layout and combined in group order.
    int64_t resultCount = 1;
    for (int64_t d : resultShape)
      resultCount *= d;
    // Canonical sums keep the repetitions apart: slot [result index][repetition][group].
    const int64_t slotsPerResult = repsAlong * groupsAcross;
    SharedBuffer values = lowering.allocShared(r, loc, elem, resultCount * slotsPerResult);
    SharedBuffer indices = comb.isArg() ? lowering.allocShared(r, loc, r.getI32Type(), resultCount * groupsAcross)
                                        : SharedBuffer{};
    SmallVector<int64_t, 4> resultStrides = stridesOf(resultShape), srcCoef(rank, 0);
    for (int64_t k = 0, j = 0; k < rank; ++k)
      if (k != axis)
        srcCoef[k] = resultStrides[j++];
    Value tid = lowering.threadId;
    Value tAxis = arith::ShRUIOp::create(r, loc, tid, lowering.i32(r, loc, llvm::Log2_64(stride)));
    tAxis = arith::AndIOp::create(r, loc, tAxis, lowering.i32(r, loc, along - 1));
    Value group = arith::ShRUIOp::create(r, loc, tAxis, lowering.i32(r, loc, llvm::Log2_64(inWarp)));
    Value writer = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::eq,
                                         arith::AndIOp::create(r, loc, tAxis, lowering.i32(r, loc, inWarp - 1)),
                                         lowering.i32(r, loc, 0));
    if (Value owner = lowering.ownerPredicate(r, loc, L))
      writer = arith::AndIOp::create(r, loc, writer, owner);
    Value base = lowering.threadLinear(r, loc, L, srcCoef);
    lowering.barrier(r, loc);
    scf::IfOp::create(r, loc, writer, [&](OpBuilder &b, Location l) {
      for (size_t i = 0; i < partials.size(); ++i) {
        int64_t off = 0;
        for (size_t j = 0; j < keys[i].size(); ++j)
          off += keys[i][j] * resultStrides[j];
        Value slot = arith::AddIOp::create(b, l, base, lowering.i32(b, l, off));
        slot = arith::MulIOp::create(b, l, slot, lowering.i32(b, l, slotsPerResult));
        slot = arith::AddIOp::create(b, l, slot, group);
        if (int64_t rep = canonical ? int64_t(i) % repsAlong : 0)
          slot = arith::AddIOp::create(b, l, slot, lowering.i32(b, l, rep * groupsAcross));
        lowering.storeShared(b, l, values, slot, partials[i].value);
        if (comb.isArg())
          lowering.storeShared(b, l, indices, slot, partials[i].index);
      }
      scf::YieldOp::create(b, l);
    });
    lowering.barrier(r, loc);

    auto readResult = [&](Value resultIndex) {
      Value first = arith::MulIOp::create(r, loc, resultIndex, lowering.i32(r, loc, slotsPerResult));
      if (canonical) {
        SmallVector<Value> perRep;
        for (int64_t rep = 0; rep < repsAlong; ++rep) {
          SmallVector<Value> perGroup;
          for (int64_t g = 0; g < groupsAcross; ++g) {
            int64_t at = rep * groupsAcross + g;
            Value slot = at ? Value(arith::AddIOp::create(r, loc, first, lowering.i32(r, loc, at))) : first;
            perGroup.push_back(lowering.loadShared(r, loc, values, slot, elem));
          }
          perRep.push_back(pairwise(perGroup));
        }
        return pairwise(perRep);
      }
      Partial acc;
      for (int64_t g = 0; g < groupsAcross; ++g) {
        Value slot = g ? Value(arith::AddIOp::create(r, loc, first, lowering.i32(r, loc, g))) : first;
        Partial p{lowering.loadShared(r, loc, values, slot, elem),
                  comb.isArg() ? lowering.loadShared(r, loc, indices, slot, r.getI32Type()) : Value()};
        acc = acc.value ? comb.combine(r, loc, acc, p) : p;
      }
      return comb.isArg() ? acc.index : acc.value;
    };
    // A whole-tile result: lane l of every subgroup reads the slots [l * perLane, (l + 1) * perLane)
    // (the lowest levels of the tree over the slots, in slot order), and XOR shuffles combine the
    // lanes, so every lane ends with the total: a load or a few a thread instead of every slot
    // (portable softmax over 16384 columns on 16 warps: 128 slots), and for canonical sums the
    // same pairwise tree as reading them all, since a + b == b + a.
    if (resultShape.empty() && !comb.isArg() && slotsPerResult > 1) {
      const int64_t lanes = std::min(sg, slotsPerResult), perLane = slotsPerResult / lanes;
      Value lane = arith::AndIOp::create(r, loc, tid, lowering.i32(r, loc, lanes - 1));
      Value first = arith::MulIOp::create(r, loc, lane, lowering.i32(r, loc, perLane));
      SmallVector<Value> own;
      for (int64_t i = 0; i < perLane; ++i)
        own.push_back(lowering.loadShared(
            r, loc, values, i ? Value(arith::AddIOp::create(r, loc, first, lowering.i32(r, loc, i))) : first, elem));
      Partial acc;
      if (canonical) {
        acc.value = pairwise(own);
      } else {
        for (Value v : own)
          acc = acc.value ? comb.combine(r, loc, acc, Partial{v, {}}) : Partial{v, {}};
      }
      for (int64_t offset = 1; offset < lanes; offset *= 2)
        acc = comb.combine(r, loc, acc, Partial{shuffleXor(r, loc, lowering, acc.value, offset), {}});
      r.replaceOp(op, acc.value);
      return success();
    }
    if (resultShape.empty()) {
      r.replaceOp(op, readResult(lowering.i32(r, loc, 0)));
      return success();
    }
    BlockedLayout R = lowering.layoutOf(RankedTensorType::get(resultShape, elem));
    Value rbase = lowering.threadLinear(r, loc, R, resultStrides);
    SmallVector<Value> out;
    for (int64_t e = 0; e < R.perThread(); ++e) {
      int64_t off = 0;
      for (int64_t k = 0; k < R.rank(); ++k)
        off += R.staticCoord(e, k) * resultStrides[k];
      out.push_back(readResult(off ? Value(arith::AddIOp::create(r, loc, rbase, lowering.i32(r, loc, off))) : rbase));
    }
    r.replaceOpWithMultiple(op, {ValueRange(out)});
    return success();
  }
  const TileLowering &lowering;
};

/// Inclusive prefix sum along an axis (Hillis–Steele over shared memory): log2(n) steps, each
/// adding the value `s` places back along the axis.
struct ScanLowering final : OpConversionPattern<tile::ScanOp> {
  ScanLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}

  LogicalResult matchAndRewrite(tile::ScanOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    BlockedLayout L = lowering.layoutOf(type);
    int64_t axis = int32_t(op.getAxis());
    SmallVector<int64_t, 4> strides = stridesOf(type.getShape());
    SmallVector<Value> x(adaptor.getSrc().begin(), adaptor.getSrc().end());
    if (lowering.portable && isFloat) {
      SmallVector<Value> out = lowerCanonicalScan(r, loc, lowering, type, x, axis);
      r.replaceOpWithMultiple(op, {ValueRange(out)});
      return success();
    }
    SharedBuffer buf = lowering.allocShared(r, loc, elem, type.getNumElements());
    Value base = lowering.threadLinear(r, loc, L, strides);
    SmallVector<Value> index, coord;
    for (int64_t e = 0; e < L.perThread(); ++e) {
      int64_t off = 0;
      for (int64_t k = 0; k < L.rank(); ++k)
        off += L.staticCoord(e, k) * strides[k];
      index.push_back(off ? Value(arith::AddIOp::create(r, loc, base, lowering.i32(r, loc, off))) : base);
      coord.push_back(lowering.elementCoord(r, loc, L, e, axis));
    }
    Value owner = lowering.ownerPredicate(r, loc, L);
    auto writeAll = [&]() {
      auto body = [&](OpBuilder &b, Location l) {
        for (size_t e = 0; e < x.size(); ++e)
          lowering.storeShared(b, l, buf, index[e], x[e]);
      };
      if (owner)
        scf::IfOp::create(r, loc, owner, [&](OpBuilder &b, Location l) {
          body(b, l);
          scf::YieldOp::create(b, l);
        });
      else
        body(r, loc);
    };
    Value zero = arith::ConstantOp::create(r, loc, r.getZeroAttr(elem));
    lowering.barrier(r, loc);
    writeAll();
    for (int64_t s = 1; s < type.getDimSize(axis); s *= 2) {
      lowering.barrier(r, loc);
      SmallVector<Value> add;
      for (size_t e = 0; e < x.size(); ++e) {
        Value has = arith::CmpIOp::create(r, loc, arith::CmpIPredicate::sge, coord[e], lowering.i32(r, loc, s));
        Value back = arith::SubIOp::create(r, loc, index[e], lowering.i32(r, loc, s * strides[axis]));
        Value at = arith::SelectOp::create(r, loc, has, back, index[e]); // always in bounds
        Value v = lowering.loadShared(r, loc, buf, at, elem);
        add.push_back(arith::SelectOp::create(r, loc, has, v, zero));
      }
      lowering.barrier(r, loc);
      for (size_t e = 0; e < x.size(); ++e)
        x[e] = isFloat ? Value(arith::AddFOp::create(r, loc, x[e], add[e])) : Value(arith::AddIOp::create(r, loc, x[e], add[e]));
      writeAll();
    }
    r.replaceOpWithMultiple(op, {ValueRange(x)});
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateReduceOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering>(lowering, converter, patterns.getContext());
}

} // namespace tessera::backend
