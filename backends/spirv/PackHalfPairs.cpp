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

/// Rewrites `loop` with its word pairs packed (nothing where it has none).
void packLoop(scf::ForOp loop) {
  const unsigned n = loop.getNumRegionIterArgs();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  // The packed loop's iter_args: each the old one at `first`, or the pair first, first + 1.
  struct Slot {
    unsigned first;
    bool pair;
  };
  SmallVector<Slot> slots;
  for (unsigned i = 0; i < n;) {
    Type t = loop.getRegionIterArgs()[i].getType();
    const bool pair = i + 1 < n && sixteenBit(t) && loop.getRegionIterArgs()[i + 1].getType() == t &&
                      oneWord(loop.getInitArgs()[i], loop.getInitArgs()[i + 1]) &&
                      oneWord(yield.getOperand(i), yield.getOperand(i + 1));
    slots.push_back({i, pair});
    i += pair ? 2 : 1;
  }
  if (slots.size() == n)
    return;

  Location loc = loop.getLoc();
  const SmallVector<Type> types(loop.getResultTypes()); // the old body goes before its last use
  OpBuilder b(loop);
  auto packAll = [&](ValueRange old) {
    SmallVector<Value> out;
    for (Slot s : slots)
      out.push_back(s.pair ? pack(b, loc, old[s.first], old[s.first + 1]) : old[s.first]);
    return out;
  };
  auto unpackAll = [&](ValueRange packed) {
    SmallVector<Value> out;
    for (auto [s, v] : llvm::zip_equal(slots, packed)) {
      if (!s.pair) {
        out.push_back(v);
        continue;
      }
      auto [lo, hi] = unpack(b, loc, v, types[s.first]);
      out.append({lo, hi});
    }
    return out;
  };

  auto packed = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
                                   packAll(loop.getInitArgs()));
  packed->setAttrs(loop->getAttrs());
  Block *body = packed.getBody();
  if (!body->empty())
    body->getTerminator()->erase();
  // The old body joins the new one, its arguments the induction variable and the halves.
  b.setInsertionPointToStart(body);
  SmallVector<Value> args{packed.getInductionVar()};
  args.append(unpackAll(packed.getRegionIterArgs()));
  IRRewriter rewriter(loop.getContext());
  rewriter.mergeBlocks(loop.getBody(), body, args);

  b.setInsertionPoint(yield);
  scf::YieldOp::create(b, loc, packAll(yield.getOperands()));
  yield->erase();

  b.setInsertionPointAfter(packed);
  loop->replaceAllUsesWith(unpackAll(packed.getResults()));
  loop->erase();
}

} // namespace

void packHalfPairsAcrossLoops(gpu::GPUModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    packLoop(loop);
}

} // namespace tessera::backend
