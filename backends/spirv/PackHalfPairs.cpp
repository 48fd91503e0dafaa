// 16-bit values that go round a loop in pairs from one 32-bit word of a load, carried as the word
// (SPIR-V). A kernel whose loads are issued a step ahead (num_stages = 2, tile-pipeline-loads)
// carries each loaded run of f16 or bf16 across the loop as its elements: eight loop-carried
// values (OpPhi) for a 16-byte run. Where both elements of a word come from one
// tile.buffer_load_run on entry and from the body, the pair becomes one i32 across the loop
// (spirv.CompositeConstruct and spirv.Bitcast before the back edge, spirv.Bitcast and
// spirv.CompositeExtract after it): four phis for the run. The words are the loaded bits:
// nothing is rounded. Through NVIDIA's Vulkan driver (run 67, H100, docs/bench.md) the matmul's
// step-ahead loop went from 38.3 to 52.0 TFLOP/s at 256 x 128 x 32 / 8 and from 37.9 to 56.1 at
// 128 x 128 x 32 / 8, its register count unchanged (214 and 217, 151 and 151).
#include "SPIRVTarget.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace tessera::backend {

namespace {

/// Whether `a` and `b` are elements 2q and 2q + 1 (one 32-bit word) of one tile.buffer_load_run.
bool oneWord(Value a, Value b) {
  auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
  if (!ra || !rb || ra.getOwner() != rb.getOwner() || !isa<tile::BufferLoadRunOp>(ra.getOwner()))
    return false;
  return ra.getResultNumber() % 2 == 0 && rb.getResultNumber() == ra.getResultNumber() + 1;
}

bool sixteenBit(Type t) { return t.isIntOrFloat() && t.getIntOrFloatBitWidth() == 16; }

/// The pair's element type in SPIR-V: bf16 lives in i16 there (legalizeBF16), so a bf16 value
/// goes through arith.bitcast, which the conversion turns into nothing.
Type wordHalf(OpBuilder &b, Type t) { return t.isBF16() ? Type(b.getI16Type()) : t; }

Value pack(OpBuilder &b, Location loc, Value lo, Value hi) {
  Type half = wordHalf(b, lo.getType());
  if (half != lo.getType()) {
    lo = arith::BitcastOp::create(b, loc, half, lo);
    hi = arith::BitcastOp::create(b, loc, half, hi);
  }
  Value pair = spirv::CompositeConstructOp::create(b, loc, VectorType::get({2}, half), ValueRange{lo, hi});
  return spirv::BitcastOp::create(b, loc, b.getI32Type(), pair);
}

std::pair<Value, Value> unpack(OpBuilder &b, Location loc, Value word, Type elem) {
  Type half = wordHalf(b, elem);
  Value pair = spirv::BitcastOp::create(b, loc, VectorType::get({2}, half), word);
  Value lo = spirv::CompositeExtractOp::create(b, loc, pair, ArrayRef<int32_t>{0});
  Value hi = spirv::CompositeExtractOp::create(b, loc, pair, ArrayRef<int32_t>{1});
  if (half != elem) {
    lo = arith::BitcastOp::create(b, loc, elem, lo);
    hi = arith::BitcastOp::create(b, loc, elem, hi);
  }
  return {lo, hi};
}

/// Rewrites `loop` with its word pairs packed; false where it has none.
bool packLoop(scf::ForOp loop) {
  const unsigned n = loop.getNumRegionIterArgs();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<bool> first(n, false); // iter_arg i and i + 1 are a pair
  bool any = false;
  for (unsigned i = 0; i + 1 < n;) {
    Type t = loop.getRegionIterArgs()[i].getType();
    if (sixteenBit(t) && loop.getRegionIterArgs()[i + 1].getType() == t &&
        oneWord(loop.getInitArgs()[i], loop.getInitArgs()[i + 1]) &&
        oneWord(yield.getOperand(i), yield.getOperand(i + 1))) {
      first[i] = any = true;
      i += 2;
    } else {
      ++i;
    }
  }
  if (!any)
    return false;

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  SmallVector<Value> inits;
  for (unsigned i = 0; i < n; ++i) {
    if (first[i]) {
      inits.push_back(pack(b, loc, loop.getInitArgs()[i], loop.getInitArgs()[i + 1]));
      ++i;
    } else {
      inits.push_back(loop.getInitArgs()[i]);
    }
  }
  auto packed = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), inits);
  packed->setAttrs(loop->getAttrs());
  Block *body = packed.getBody();
  if (!body->empty())
    body->getTerminator()->erase();

  // The old body's arguments: the induction variable, then each pair's halves.
  b.setInsertionPointToStart(body);
  SmallVector<Value> args{packed.getInductionVar()};
  for (unsigned i = 0, j = 0; i < n; ++i, ++j) {
    Value arg = packed.getRegionIterArgs()[j];
    if (first[i]) {
      auto [lo, hi] = unpack(b, loc, arg, loop.getRegionIterArgs()[i].getType());
      args.push_back(lo);
      args.push_back(hi);
      ++i;
    } else {
      args.push_back(arg);
    }
  }
  IRRewriter rewriter(loop.getContext());
  rewriter.mergeBlocks(loop.getBody(), body, args);

  b.setInsertionPoint(yield);
  SmallVector<Value> yielded;
  for (unsigned i = 0; i < n; ++i) {
    if (first[i]) {
      yielded.push_back(pack(b, loc, yield.getOperand(i), yield.getOperand(i + 1)));
      ++i;
    } else {
      yielded.push_back(yield.getOperand(i));
    }
  }
  scf::YieldOp::create(b, loc, yielded);
  yield->erase();

  b.setInsertionPointAfter(packed);
  for (unsigned i = 0, j = 0; i < n; ++i, ++j) {
    if (first[i]) {
      auto [lo, hi] = unpack(b, loc, packed.getResult(j), loop.getResult(i).getType());
      loop.getResult(i).replaceAllUsesWith(lo);
      loop.getResult(i + 1).replaceAllUsesWith(hi);
      ++i;
    } else {
      loop.getResult(i).replaceAllUsesWith(packed.getResult(j));
    }
  }
  loop->erase();
  return true;
}

} // namespace

void packHalfPairsAcrossLoops(gpu::GPUModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    packLoop(loop);
}

} // namespace tessera::backend
