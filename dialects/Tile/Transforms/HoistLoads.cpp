// tile-hoist-loads: each top-level load of a kernel issued as early as its operands and the
// writes before it allow; see Passes.td for why and why results are unchanged.
#include "Tile/IR/TileDialect.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessera::tile {

#define GEN_PASS_DEF_TILEHOISTLOADS
#include "Tile/Transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// May `op` write memory (or do something a load must not move across)? Loads only read; ops
/// without effects (pure, reductions with their pure regions included) neither.
bool mayWrite(Operation *op) {
  if (isa<LoadOp>(op))
    return false;
  return !isMemoryEffectFree(op);
}

struct HoistLoads : impl::TileHoistLoadsBase<HoistLoads> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp f) {
      if (f.isExternal())
        return;
      Block &body = f.getBody().front();
      // The op after which the next load may go: the last write or load seen so far (null:
      // the block's start).
      Operation *floor = nullptr;
      for (Operation &op : llvm::make_early_inc_range(body)) {
        if (mayWrite(&op)) {
          floor = &op;
          continue;
        }
        auto load = dyn_cast<LoadOp>(op);
        if (!load)
          continue;
        Operation *after = floor; // the latest of the floor and the operands' definitions
        for (Value v : load->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def) // a block argument: defined at the start
            continue;
          if (def->getBlock() != &body)
            def = body.findAncestorOpInBlock(*def);
          if (!after || after->isBeforeInBlock(def))
            after = def;
        }
        if (after)
          load->moveAfter(after);
        else
          load->moveBefore(&body, body.begin());
        floor = load; // loads keep their order
      }
    });
  }
};

} // namespace
} // namespace tessera::tile
