// carry-mma-matrices: accumulators kept as cooperative matrices across the loop around their dots.
//
// A dot on cooperative matrices whose lanes are the tile's registers (lowerWithCoopMatrixLanes)
// builds each accumulator block from the thread's scalars (a constant matrix and one
// gpu.subgroup_mma_insert_thread_local per element the lane holds), adds the products, and takes
// the scalars back out (extract_thread_local). In a loop that only carries the accumulator from
// one dot to the next, that round trip is the identity: a matrix is determined by what each lane
// holds, so inserting every element extracted from a matrix rebuilds it, whatever the driver's
// layout. This pass carries the matrix instead: the loop gets one matrix argument in place of
// the block's scalars, built once before the loop; the scalars are extracted once after it.
// It leaves a block alone unless each scalar argument is used by its insert alone and yields the
// element extracted at the same index from one matrix.
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace tessera::backend {

#define GEN_PASS_DEF_CARRYMMAMATRICES
#include "common/Passes.h.inc"

using namespace mlir;

namespace {

/// One accumulator block carried as scalars through a loop: the chain of inserts that builds it
/// in the body, the loop positions of the scalars in insertion order, their lane indices, and
/// the matrix whose elements the loop yields back.
struct CarriedBlock {
  SmallVector<gpu::SubgroupMmaInsertThreadLocalOp> chain;
  SmallVector<unsigned> positions;
  SmallVector<int64_t> indices;
  Value yielded;
};

/// The block built by the chain that starts at `first` (its matrix operand a constant matrix), if
/// it has the carried form.
std::optional<CarriedBlock> matchBlock(scf::ForOp loop, gpu::SubgroupMmaInsertThreadLocalOp first, int64_t perLane) {
  CarriedBlock block;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  llvm::SmallDenseSet<int64_t> seen;
  for (gpu::SubgroupMmaInsertThreadLocalOp at = first;;) {
    auto arg = dyn_cast<BlockArgument>(at.getValue());
    IntegerAttr index;
    if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 || !arg.hasOneUse() ||
        at.getIndices().size() != 1 || !matchPattern(at.getIndices()[0], m_Constant(&index)) ||
        !seen.insert(index.getInt()).second)
      return std::nullopt;
    block.chain.push_back(at);
    block.positions.push_back(arg.getArgNumber() - 1);
    block.indices.push_back(index.getInt());
    if (int64_t(block.chain.size()) == perLane)
      break;
    if (!at->hasOneUse())
      return std::nullopt;
    at = dyn_cast<gpu::SubgroupMmaInsertThreadLocalOp>(*at->getUsers().begin());
    if (!at)
      return std::nullopt;
  }
  // Each scalar's position yields the element at its index of one matrix.
  for (auto [position, index] : llvm::zip(block.positions, block.indices)) {
    auto extract = yield.getOperand(position).getDefiningOp<gpu::SubgroupMmaExtractThreadLocalOp>();
    IntegerAttr at;
    if (!extract || extract.getIndices().size() != 1 || !matchPattern(extract.getIndices()[0], m_Constant(&at)) ||
        at.getInt() != index || (block.yielded && block.yielded != extract.getMatrix()))
      return std::nullopt;
    block.yielded = extract.getMatrix();
  }
  return block;
}

/// Builds the matrix of type `type` holding `values` at `indices` at the builder's insertion
/// point: one constant matrix where they are all one constant, else the inserts into one.
Value buildMatrix(OpBuilder &b, Location loc, gpu::MMAMatrixType type, ArrayRef<Value> values, ArrayRef<int64_t> indices) {
  if (llvm::all_equal(values) && matchPattern(values.front(), m_Constant()))
    return gpu::SubgroupMmaConstantMatrixOp::create(b, loc, type, values.front());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  Value m = gpu::SubgroupMmaConstantMatrixOp::create(b, loc, type, zero);
  for (auto [v, i] : llvm::zip(values, indices))
    m = gpu::SubgroupMmaInsertThreadLocalOp::create(b, loc, type, v, m,
                                                    ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  return m;
}

/// Rewrites `loop` to carry `blocks` as matrices.
void carry(scf::ForOp loop, MutableArrayRef<CarriedBlock> blocks) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  const unsigned n = loop.getNumRegionIterArgs();
  llvm::SmallBitVector dropped(n);
  for (CarriedBlock &c : blocks)
    for (unsigned p : c.positions)
      dropped.set(p);

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (unsigned i = 0; i < n; ++i)
    if (!dropped.test(i))
      inits.push_back(loop.getInitArgs()[i]);
  for (CarriedBlock &c : blocks) {
    SmallVector<Value> values;
    for (unsigned p : c.positions)
      values.push_back(loop.getInitArgs()[p]);
    inits.push_back(buildMatrix(b, loc, cast<gpu::MMAMatrixType>(c.chain.back().getType()), values, c.indices));
  }
  auto replacement = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), inits);
  Block *target = replacement.getBody();
  if (!target->empty()) // a loop without arguments gets its terminator
    target->getTerminator()->erase();
  target->getOperations().splice(target->end(), body->getOperations());

  // The body's arguments: the induction variable, the kept scalars, then one matrix per block.
  body->getArgument(0).replaceAllUsesWith(replacement.getInductionVar());
  unsigned kept = 0;
  for (unsigned i = 0; i < n; ++i)
    if (!dropped.test(i))
      body->getArgument(i + 1).replaceAllUsesWith(replacement.getRegionIterArgs()[kept++]);
  SmallVector<Value> yields;
  for (unsigned i = 0; i < n; ++i)
    if (!dropped.test(i))
      yields.push_back(yield.getOperand(i));
  for (auto [j, c] : llvm::enumerate(blocks)) {
    c.chain.back().getResult().replaceAllUsesWith(replacement.getRegionIterArgs()[kept + j]);
    yields.push_back(c.yielded);
  }
  b.setInsertionPoint(yield);
  scf::YieldOp::create(b, yield.getLoc(), yields);
  // The old yield's extracts and the chains (now unused, newest first) go.
  SmallVector<Operation *> extracts;
  for (Value v : yield.getOperands())
    if (auto e = v.getDefiningOp<gpu::SubgroupMmaExtractThreadLocalOp>())
      extracts.push_back(e);
  yield.erase();
  for (Operation *e : extracts)
    if (e->use_empty())
      e->erase();
  for (CarriedBlock &c : blocks) {
    Value start = c.chain.front().getMatrix();
    for (auto it = c.chain.rbegin(); it != c.chain.rend(); ++it)
      (*it)->erase();
    if (Operation *def = start.getDefiningOp(); def && def->use_empty())
      def->erase();
  }

  // The results: the kept ones as they were, the carried ones that are used extracted after the
  // loop.
  b.setInsertionPointAfter(replacement);
  kept = 0;
  for (unsigned i = 0; i < n; ++i)
    if (!dropped.test(i))
      loop.getResult(i).replaceAllUsesWith(replacement.getResult(kept++));
  for (auto [j, c] : llvm::enumerate(blocks)) {
    Value m = replacement.getResult(kept + j);
    for (auto [p, index] : llvm::zip(c.positions, c.indices))
      if (!loop.getResult(p).use_empty())
        loop.getResult(p).replaceAllUsesWith(gpu::SubgroupMmaExtractThreadLocalOp::create(
          b, loc, cast<gpu::MMAMatrixType>(m.getType()).getElementType(), m,
          ValueRange{arith::ConstantIndexOp::create(b, loc, index)}));
  }
  loop.erase();
}

struct CarryMmaMatricesPass final : impl::CarryMmaMatricesBase<CarryMmaMatricesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); }); // inner loops first
    for (scf::ForOp loop : loops) {
      SmallVector<CarriedBlock> blocks;
      for (auto first : loop.getBody()->getOps<gpu::SubgroupMmaInsertThreadLocalOp>()) {
        if (!first.getMatrix().getDefiningOp<gpu::SubgroupMmaConstantMatrixOp>())
          continue;
        auto type = cast<gpu::MMAMatrixType>(first.getType());
        const int64_t elements = type.getShape()[0] * type.getShape()[1];
        if (elements % subgroupSize)
          continue;
        if (std::optional<CarriedBlock> c = matchBlock(loop, first, elements / subgroupSize))
          blocks.push_back(std::move(*c));
      }
      if (!blocks.empty())
        carry(loop, blocks);
    }
  }
};

} // namespace
} // namespace tessera::backend
