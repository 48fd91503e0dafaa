// The convert-tile-to-gpu pass: moves each tile kernel into a gpu.func with the target's ABI,
// then converts its tiles into per-thread scalars with the patterns of this folder.
#include "TileToGPU.h"
#include "Registration.h"

#include "KernelImpl.hpp"
#include "Tile/IR/TileDialect.h"
#include "tessera/compiler.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace tessera::backend {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "common/Passes.h.inc"
} // namespace tessera::backend

using namespace mlir;

namespace tessera::backend {

TargetInfo::~TargetInfo() = default;

SmallVector<Value> TargetInfo::loadRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem) const {
  SmallVector<Value> out;
  for (Value index : indices)
    out.push_back(loadElement(b, loc, buffer, index, elem));
  return out;
}

SmallVector<Value> TargetInfo::loadSharedRun(OpBuilder &b, Location loc, Value buffer, Value index, Type elem,
                                             int64_t count) const {
  SmallVector<Value> out;
  for (int64_t k = 0; k < count; ++k) {
    Value at = k ? Value(arith::AddIOp::create(b, loc, index, arith::ConstantIntOp::create(b, loc, index.getType(), k)))
                 : index;
    out.push_back(loadShared(b, loc, buffer, at, elem));
  }
  return out;
}

void TargetInfo::storeSharedComponent(OpBuilder &, Location, Value, Value, Value, Value) const {
  llvm_unreachable("storeSharedComponent: only targets whose shared arrays are typed (wantsVectorArrays)");
}

std::optional<TargetInfo::MmaShape> TargetInfo::mmaShape(Type, Type) const { return std::nullopt; }
std::optional<TargetInfo::CoopMatrixShape> TargetInfo::coopMatrixShape(Type, Type) const { return std::nullopt; }
SmallVector<Value> TargetInfo::mmaLoadA(OpBuilder &, Location, Value, Value, int64_t, int64_t, Value, Type) const {
  llvm_unreachable("mmaLoadA on a target without matrix units");
}
SmallVector<Value> TargetInfo::mmaLoadB(OpBuilder &, Location, Value, Value, int64_t, int64_t, int64_t, bool, Value,
                                        Type) const {
  llvm_unreachable("mmaLoadB on a target without matrix units");
}
Value TargetInfo::mmaPack(OpBuilder &, Location, Value, Value, Type) const {
  llvm_unreachable("mmaPack on a target without matrix units");
}
SmallVector<Value> TargetInfo::mma(OpBuilder &, Location, Type, ValueRange, ValueRange, ValueRange) const {
  llvm_unreachable("mma on a target without matrix units");
}

std::optional<TargetInfo::WgmmaShape> TargetInfo::wgmmaShape(Type, Type) const { return std::nullopt; }
Value TargetInfo::wgmmaDescriptor(OpBuilder &, Location, Value, Value, int64_t, int64_t, int64_t) const {
  llvm_unreachable("wgmmaDescriptor on a target without warpgroup matrix units");
}
void TargetInfo::wgmmaSharedFence(OpBuilder &, Location) const {
  llvm_unreachable("wgmmaSharedFence on a target without warpgroup matrix units");
}
SmallVector<Value> TargetInfo::wgmma(OpBuilder &, Location, Type, Value, Value, int64_t, bool, ValueRange) const {
  llvm_unreachable("wgmma on a target without warpgroup matrix units");
}
SmallVector<Value> TargetInfo::wgmmaRegisterA(OpBuilder &, Location, Type, ValueRange, Value, int64_t, bool,
                                              ValueRange) const {
  llvm_unreachable("wgmmaRegisterA on a target without warpgroup matrix units");
}
void TargetInfo::wgmmaBegin(OpBuilder &, Location) const {
  llvm_unreachable("wgmmaBegin on a target without warpgroup matrix units");
}
void TargetInfo::wgmmaCommit(OpBuilder &, Location) const {
  llvm_unreachable("wgmmaCommit on a target without warpgroup matrix units");
}
void TargetInfo::wgmmaWait(OpBuilder &, Location, int64_t) const {
  llvm_unreachable("wgmmaWait on a target without warpgroup matrix units");
}

Type TargetInfo::tensorMapType(MLIRContext *) const { llvm_unreachable("tensorMapType on a target without tensor copies"); }
void TargetInfo::initBarrier(OpBuilder &, Location, Value, Value, int64_t) const {
  llvm_unreachable("initBarrier on a target without tensor copies");
}
void TargetInfo::arriveBarrier(OpBuilder &, Location, Value, Value) const {
  llvm_unreachable("arriveBarrier on a target without tensor copies");
}
void TargetInfo::namedBarrierWait(OpBuilder &, Location, Value, int64_t) const {
  llvm_unreachable("namedBarrierWait on a target without warpgroup matrix units");
}
void TargetInfo::namedBarrierArrive(OpBuilder &, Location, Value, int64_t) const {
  llvm_unreachable("namedBarrierArrive on a target without warpgroup matrix units");
}
void TargetInfo::setRegisters(OpBuilder &, Location, int64_t, bool) const {
  llvm_unreachable("setRegisters on a target without warpgroup matrix units");
}
void TargetInfo::exitThread(OpBuilder &, Location) const {
  llvm_unreachable("exitThread on a target without tensor copies");
}
void TargetInfo::fenceBarrierInit(OpBuilder &, Location) const {
  llvm_unreachable("fenceBarrierInit on a target without tensor copies");
}
void TargetInfo::expectBytes(OpBuilder &, Location, Value, Value, int64_t) const {
  llvm_unreachable("expectBytes on a target without tensor copies");
}
void TargetInfo::tensorCopy(OpBuilder &, Location, Value, Value, Value, ValueRange, Value, Value) const {
  llvm_unreachable("tensorCopy on a target without tensor copies");
}
void TargetInfo::waitBarrier(OpBuilder &, Location, Value, Value, Value) const {
  llvm_unreachable("waitBarrier on a target without tensor copies");
}

int64_t TargetInfo::finalizeShared(gpu::GPUFuncOp, int64_t requested) const { return requested; }
void TargetInfo::asyncCopy(OpBuilder &, Location, Value, Value, Value, Value, Type, int64_t, Value) const {
  llvm_unreachable("asyncCopy on a target without asynchronous copies");
}
void TargetInfo::asyncCommit(OpBuilder &, Location) const {
  llvm_unreachable("asyncCommit on a target without asynchronous copies");
}
void TargetInfo::asyncWait(OpBuilder &, Location, int64_t) const {
  llvm_unreachable("asyncWait on a target without asynchronous copies");
}

void TargetInfo::storeRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, ValueRange values) const {
  for (auto [index, value] : llvm::zip(indices, values))
    storeElement(b, loc, buffer, index, value);
}

/// Dialects the target-specific halves of the lowering create (registered by their own TUs,
/// which are the only ones that include those dialects' headers).
void registerNVPTXLoweringDialects(DialectRegistry &registry);
void registerSPIRVLoweringDialects(DialectRegistry &registry);

TileTypeConverter::TileTypeConverter(const TileLowering &lowering) {
  addConversion([](Type t) { return t; });
  addConversion([&lowering](RankedTensorType t, SmallVectorImpl<Type> &out) -> std::optional<LogicalResult> {
    out.append(lowering.layoutOf(t).perThread(), t.getElementType());
    return success();
  });
}

int64_t kernelRunLimit(Operation *kernel) {
  int64_t limit = 4;
  auto consider = [&](Type t) {
    auto tile = dyn_cast<RankedTensorType>(t);
    if (!tile || !tile.getElementType().isIntOrFloat())
      return;
    int64_t bytes = std::max<int64_t>(1, tile.getElementType().getIntOrFloatBitWidth() / 8);
    limit = std::max(limit, 16 / bytes);
  };
  kernel->walk([&](Operation *op) {
    if (auto load = dyn_cast<tile::LoadOp>(op))
      consider(load.getType());
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      consider(store.getValue().getType());
  });
  return limit;
}

namespace {

/// Moves `kernel` into a new gpu.func of `gpuModule` and lowers its tiles.
/// The pass's tensor-copy options (Passes.td).
struct TensorCopyOptions {
  bool allowed = false, forA = false, oneThread = true, programBarrier = true, pingpong = false;
  enum class Producer { Off, Auto, On } producer = Producer::Auto;
  bool asyncCopyFence = true, copiesAfterMma = true, storeStaging = true, waitBeforeCopies = false;
  bool fmaLayout = true, fmaVectorA = true, coopHoistA = true, coopALanes = false;
  TileLowering::FmaHalves fmaHalves = TileLowering::FmaHalves::Auto;
  TileLowering::FmaAsyncCopies fmaAsyncCopies = TileLowering::FmaAsyncCopies::Auto;
  int64_t fmaUnroll = 0;
};

LogicalResult lowerKernel(func::FuncOp kernel, gpu::GPUModuleOp gpuModule, const TargetInfo &target,
                          const TensorCopyOptions &copies, bool stagingBarrier) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  std::string error;
  std::optional<std::vector<ArgSpec>> signature = detail::signatureOf(kernel, &error);
  if (!signature)
    return kernel.emitOpError() << error;
  uint32_t numWarps = 4;
  if (auto w = kernel->getAttrOfType<IntegerAttr>(tile::kNumWarpsAttr))
    numWarps = uint32_t(w.getInt());
  bool portable = tile::isPortable(kernel);
  const int64_t maxVec = kernelRunLimit(kernel);
  int64_t threads = int64_t(numWarps) * target.subgroupSize();
  if (threads > 1024)
    return kernel.emitOpError() << "num_warps " << numWarps << " x subgroup size " << target.subgroupSize()
                                << " = " << threads << " threads per program; the limit is 1024";

  // Signature: the parameters the target passes, and the ABI values of the others.
  SmallVector<Type> paramTypes;
  SmallVector<int> paramOf; // argument index -> parameter index, or -1
  uint32_t pushBytes = 0;
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    const ArgSpec &spec = (*signature)[i];
    Type t = kernel.getArgument(i).getType();
    Type elem = isa<tile::PtrType>(t) ? cast<tile::PtrType>(t).getElementType() : t;
    Type p = target.paramType(spec, elem);
    paramOf.push_back(p ? int(paramTypes.size()) : -1);
    if (p)
      paramTypes.push_back(p);
    if (spec.kind == ArgKind::Scalar)
      pushBytes = std::max<uint32_t>(pushBytes, spec.abiSlot + uint32_t(sizeOf(spec.dtype)));
  }

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, kernel.getName(), FunctionType::get(ctx, paramTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (paramOf[i] >= 0)
      target.annotateParam(func, unsigned(paramOf[i]), (*signature)[i]);
  target.annotateKernel(func, uint32_t(threads));
  if (Attribute divisors = kernel->getAttr(kWorkgroupDivisorsAttr))
    func->setAttr(kWorkgroupDivisorsAttr, divisors);

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  tid = arith::IndexCastOp::create(b, loc, b.getI32Type(), tid);
  // What the arguments' divisibility proves about loads and stores (it reads their attributes).
  std::map<Operation *, int64_t> uniformRuns = uniformRunLengths(kernel);
  Block &body = kernel.getBody().front();
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    Value v;
    if (paramOf[i] >= 0)
      v = entry.getArgument(unsigned(paramOf[i]));
    else
      v = target.abiArgument(b, loc, (*signature)[i], kernel.getArgument(i).getType(), pushBytes);
    body.getArgument(i).replaceAllUsesWith(v);
  }
  Operation *ret = body.getTerminator();
  b.setInsertionPoint(ret);
  gpu::ReturnOp::create(b, ret->getLoc());
  ret->erase();
  entry.getOperations().splice(entry.end(), body.getOperations());
  kernel.erase();

  // Scalars a loop computes from values outside it (a block's first row, written in the loop
  // body) move before the loop, innermost loops first; tiles stay where they were written, so
  // that no tile's registers are held across a loop for it. A dot operand's offsets made from
  // such scalars then depend only on the induction variable and values from outside the loop,
  // and the operand can be copied straight into shared memory, in stages (planDotStaging).
  func.walk([](LoopLikeOpInterface loop) {
    moveLoopInvariantCode(
        loop.getLoopRegions(), [&](Value v, Region *) { return loop.isDefinedOutsideOfLoop(v); },
        [](Operation *op, Region *) {
          return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
                 llvm::none_of(op->getResultTypes(), [](Type t) { return isa<ShapedType>(t); });
        },
        [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
  });

  TileLowering lowering{target, threads, tid, func};
  lowering.portable = portable && !faultInjected("reduce-order");
  lowering.tensorCopiesAllowed = copies.allowed;
  lowering.tensorCopiesForA = copies.forA;
  lowering.tensorCopiesOneThread = copies.oneThread;
  lowering.tensorCopiesProgramBarrier = copies.programBarrier;
  lowering.warpgroupPingpong = copies.pingpong;
  lowering.stagingBarrier = stagingBarrier;
  lowering.asyncCopyFence = copies.asyncCopyFence;
  lowering.copiesAfterMma = copies.copiesAfterMma;
  lowering.storeStaging = copies.storeStaging;
  lowering.waitBeforeCopies = copies.waitBeforeCopies;
  lowering.fmaLayout = copies.fmaLayout;
  lowering.fmaVectorA = copies.fmaVectorA;
  lowering.coopHoistA = copies.coopHoistA;
  lowering.coopALanes = copies.coopALanes;
  lowering.fmaHalves = copies.fmaHalves;
  lowering.fmaAsyncCopies = copies.fmaAsyncCopies;
  lowering.fmaUnroll = copies.fmaUnroll ? copies.fmaUnroll : target.fmaUnroll();
  lowering.maxVec = maxVec;
  lowering.uniformRuns = std::move(uniformRuns);
  // dot(a, trans(x)) reads x as it lies (transpose_b): x is not moved into the transposed
  // layout first, and a dot on matrix units loads its fragments from x's rows.
  SmallVector<tile::DotOp> transposedB;
  func.walk([&](tile::DotOp dot) {
    if (auto trans = dot.getB().getDefiningOp<tile::TransOp>(); trans && !dot.getTransposeB())
      if (trans.getOrder() == ArrayRef<int32_t>{1, 0})
        transposedB.push_back(dot);
  });
  for (tile::DotOp dot : transposedB) {
    auto trans = dot.getB().getDefiningOp<tile::TransOp>();
    dot.getBMutable().assign(trans.getSrc());
    dot.setTransposeB(true);
    if (trans->use_empty())
      trans->erase();
  }
  // Accumulators of fast dots on matrix units get the units' layout (DotOpToGPU.cpp), with the
  // subgroups on the grid that loads the fewest fragments. A kernel that reduces a tile keeps
  // them down the rows in every accumulator: the reduction's shuffles and shared slots follow
  // the plain split of the threads, and the row statistics it makes (attention's running max
  // and sum) meet the other accumulators row by row, in registers only where their rows lie
  // alike (a grid there cost attention 12% on the H100, through shared memory every step).
  SmallVector<tile::ReduceOp> reductions;
  func.walk([&](tile::ReduceOp op) { reductions.push_back(op); });
  const bool reduces = llvm::any_of(
      reductions, [](tile::ReduceOp op) { return cast<RankedTensorType>(op.getSrc().getType()).getRank() >= 2; });
  if (!lowering.portable)
    func.walk([&](tile::DotOp dot) {
      auto a = cast<RankedTensorType>(dot.getA().getType());
      auto c = cast<RankedTensorType>(dot.getType());
      std::optional<TargetInfo::MmaShape> unit = target.mmaShape(a.getElementType(), c.getElementType());
      std::optional<TargetInfo::CoopMatrixShape> coop = target.coopMatrixShape(a.getElementType(), c.getElementType());
      const bool units = unit && a.getDimSize(1) % unit->k == 0;
      const bool lanes = coop && coop->mmaLanes && a.getDimSize(1) % coop->k == 0 && c.getDimSize(1) % coop->n == 0;
      if (!(units || lanes) || target.subgroupSize() != 32)
        return;
      std::vector<int64_t> shape(c.getShape().begin(), c.getShape().end());
      // (The warpgroup units want them down the rows too: lowerWithWarpgroupUnits.)
      const bool warpgroup = runsOnWarpgroupUnits(dot, lowering);
      if (warpgroup)
        lowering.warpgroupDots[dot.getOperation()] = accumulatesAcrossLoop(dot);
      // Each subgroup's columns: whole blocks of the units (mma.sync 8, cooperative matrices 16).
      const int64_t blockCols = lanes ? coop->n : unit->n;
      const bool grid = !reduces && !warpgroup;
      int64_t cols = grid ? mmaWarpCols(shape, threads, blockCols) : 1;
      if (auto it = lowering.mmaShapes.find(shape); it != lowering.mmaShapes.end())
        cols = std::min(it->second, cols);
      if (cols > 0 && fitsMmaAccumulatorLayout(shape, threads, cols))
        lowering.mmaShapes[shape] = cols;
    });
  // Accumulators left to the FMA path split their threads so that each k step loads the fewest
  // values, then the fewest bytes (fmaAccumulatorSplit), unless the kernel reduces a tile (the
  // reductions and the row statistics they make follow the plain split) or option fma-layout
  // is off.
  if (lowering.fmaLayout && !reduces)
    func.walk([&](tile::DotOp dot) {
      auto c = cast<RankedTensorType>(dot.getType());
      std::vector<int64_t> shape(c.getShape().begin(), c.getShape().end());
      if (lowering.mmaShapes.count(shape))
        return;
      if (FmaSplit split = fmaAccumulatorSplit(shape, threads, maxVec, target.subgroupSize()))
        lowering.fmaShapes[shape] = split;
    });
  // The dots of each block, in order, and the warpgroup dots among them; a loop's are its body's.
  std::map<Block *, SmallVector<Operation *>> dotsByBlock, unitDots;
  func.walk([&](tile::DotOp dot) {
    dotsByBlock[dot->getBlock()].push_back(dot.getOperation());
    if (lowering.warpgroupDots.count(dot.getOperation()))
      unitDots[dot->getBlock()].push_back(dot.getOperation());
  });
  // Loops with several warpgroup dots (attention's two) whose two warpgroups may take turns.
  if (lowering.warpgroupPingpong && threads == 256)
    for (auto &[block, units] : unitDots)
      if (isa<scf::ForOp>(block->getParentOp()) && units.size() >= 2)
        for (Operation *dot : units)
          lowering.pingpongDots[dot] = dot == units.front();
  // Each warpgroup dot waits where its block first uses its result, for the later warpgroup dots
  // before that use to stay in flight (TileLowering::lateWaits). Dots taking turns issue a later
  // dot before that wait in the same turn (pingpongJoins).
  for (auto &[block, dots] : unitDots) {
    for (Operation *dot : dots) {
      Operation *first = block->getTerminator();
      for (Operation *user : dot->getUsers())
        if (Operation *at = block->findAncestorOpInBlock(*user); at && at->isBeforeInBlock(first))
          first = at;
      TileLowering::LateWait wait{first, 0};
      for (Operation *other : dots)
        if (dot->isBeforeInBlock(other) && other->isBeforeInBlock(first)) {
          ++wait.pending;
          lowering.countedDots.insert(other);
        }
      lowering.lateWaits[dot] = wait;
    }
    for (size_t i = 1; i < dots.size(); ++i)
      if (lowering.pingpongDots.count(dots[i - 1]) && lowering.pingpongDots.count(dots[i]) &&
          dots[i]->isBeforeInBlock(lowering.lateWaits[dots[i - 1]].before)) {
        lowering.pingpongJoins.insert(dots[i]);
        lowering.pingpongHolds.insert(dots[i - 1]);
      }
  }
  // Row statistics of those accumulators (reduced along their rows) take the rows' slice.
  for (tile::ReduceOp op : reductions) {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    std::vector<int64_t> shape(src.getShape().begin(), src.getShape().end());
    auto it = lowering.mmaShapes.find(shape);
    if (it == lowering.mmaShapes.end() || it->second != 1 || op.getAxis() != 1)
      continue;
    lowering.rowSliceShapes.insert({shape[0]});
    lowering.rowSliceShapes.insert({shape[0], 1});
  }
  planDotStaging(func, lowering);
  // A producer warpgroup (option producer-warp) for the kernel's one top-level loop whose dots all
  // run pipelined on the warpgroup units with every operand they copy (B at least) by tensor copy,
  // two stages each.
  // Its threads run the kernel's code before that loop as copies of the first threads (stores
  // there write the same values twice), so not in kernels with atomics.
  auto atomics = [&] {
    return func
        .walk([](Operation *op) {
          return isa<tile::AtomicRMWOp, tile::AtomicCASOp, tile::BufferAtomicOp>(op) ? WalkResult::interrupt()
                                                                                   : WalkResult::advance();
        })
        .wasInterrupted();
  };
  // Under `auto`, only programs of two warpgroups or more whose loop copies no dot's A
  // (attention's: its matrices' A comes from registers or is staged once before the loop), and
  // whose dots' accumulators alone take three quarters of the registers a thread would have with
  // two programs on a multiprocessor: the producer's program (launched at 168 or fewer) then
  // costs no second program. Run 44, attention at D = 64: 128 x 128 (96 accumulator values a
  // thread) 323 against 300 TFLOP/s with the producer, 128 x 64 (64 values, two programs a
  // multiprocessor without it) 256 against 320.
  const bool automatic = copies.producer == TensorCopyOptions::Producer::Auto;
  auto fillsRegisters = [&](ArrayRef<Operation *> dots) {
    int64_t values = 0, perThread = 0;
    for (Operation *op : dots) {
      auto dot = cast<tile::DotOp>(op);
      auto c = cast<RankedTensorType>(dot.getType());
      std::optional<TargetInfo::WgmmaShape> unit =
          target.wgmmaShape(cast<RankedTensorType>(dot.getA().getType()).getElementType(), c.getElementType());
      if (!unit)
        return false;
      values += c.getNumElements() / threads;
      perThread = unit->registersPerProcessor / (2 * threads);
    }
    return 4 * values >= 3 * perThread;
  };
  if (copies.producer != TensorCopyOptions::Producer::Off && target.hasTensorCopies() && threads % 128 == 0 &&
      (!automatic || threads >= 256) && !atomics()) {
    SmallVector<Block *> loops; // (their bodies)
    for (auto &[block, dots] : dotsByBlock) {
      Operation *loop = block->getParentOp();
      bool ok = isa<scf::ForOp>(loop) && loop->getParentOp() == func.getOperation();
      for (Operation *dot : dots) {
        auto plan = lowering.dotStaging.find(dot);
        ok = ok && lowering.warpgroupDots.count(dot) && plan != lowering.dotStaging.end() && plan->second.maxStages > 1 &&
             plan->second.direct[1] && !(automatic && plan->second.direct[0]);
        for (int i = 0; i < 2 && ok; ++i)
          ok = !plan->second.direct[i] || lowering.tensorCopies.count(plan->second.direct[i]);
      }
      if (ok && warpgroupStagesFit(dots, lowering) && (!automatic || fillsRegisters(dots)))
        loops.push_back(block);
    }
    if (loops.size() == 1) {
      lowering.producerDots.insert(dotsByBlock[loops[0]].begin(), dotsByBlock[loops[0]].end());
      // The producer's threads compute the tile code as copies of the first warpgroup's (their
      // index less `threads`): every tile op sees an index below `threads`.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(tid);
      auto past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid, lowering.i32(b, loc, threads));
      auto less = arith::SubIOp::create(b, loc, tid, past.getRhs());
      auto copy = arith::SelectOp::create(b, loc, past, less, tid);
      tid.replaceAllUsesExcept(copy, SmallPtrSet<Operation *, 3>{past, less, copy});
      lowering.threadId = copy;
      lowering.launchThreadId = tid;
      func->setAttr(kProducerThreadsAttr, b.getI32IntegerAttr(128));
      target.annotateKernel(func, uint32_t(threads + 128));
    }
  }
  TileTypeConverter converter(lowering);
  RewritePatternSet patterns(ctx);
  populateGridOpToGPUPatterns(lowering, converter, patterns);
  populateElementwiseOpToGPUPatterns(lowering, converter, patterns);
  populateLoadStoreOpToGPUPatterns(lowering, converter, patterns);
  populateShapeOpToGPUPatterns(lowering, converter, patterns);
  populateReduceOpToGPUPatterns(lowering, converter, patterns);
  populateAtomicOpToGPUPatterns(lowering, converter, patterns);
  populateDotOpToGPUPatterns(lowering, converter, patterns);
  ConversionTarget legal(*ctx);
  populateWorkgroupMatmulToGPUPatterns(converter, patterns, legal);
  legal.addIllegalDialect<tile::TileDialect>();
  legal.addLegalOp<tile::PushConstantOp, tile::BufferAtomicOp, tile::BufferLoadRunOp, tile::BufferStoreRunOp,
                   tile::StoreComponentOp>();
  legal.markUnknownOpDynamicallyLegal([](Operation *op) { return !touchesTiles(op); });
  // Loops (tl::for_range) carrying tiles carry each thread's scalars instead (1:N).
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, legal);
  if (failed(applyPartialConversion(func, legal, std::move(patterns))))
    return failure();
  dropUnusedTensorMaps(func);
  func->setAttr(kSharedBytesAttr, b.getI32IntegerAttr(int32_t(target.finalizeShared(func, lowering.sharedBytes))));
  return success();
}

/// An option that takes auto, on or off, as `Choice` (an enum with those members); none, with an
/// error naming the option, for anything else.
template <class Choice> std::optional<Choice> autoOnOff(ModuleOp module, StringRef option, StringRef value) {
  if (value == "auto")
    return Choice::Auto;
  if (value == "on")
    return Choice::On;
  if (value == "off")
    return Choice::Off;
  module.emitError() << option << "='" << value << "': use auto, on or off";
  return std::nullopt;
}

struct ConvertTileToGPUPass final : impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerNVPTXLoweringDialects(registry);
    registerSPIRVLoweringDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetDesc desc;
    if (target == "nvptx") {
      desc = nvptxTarget(chip);
    } else if (target == "spirv") {
      // The chip (from the compiler) or the options (tessera-opt) ask for cooperative matrices.
      const bool coop = coopMatrix || hasCoopMatrix(chip);
      desc = spirvTarget(subgroupSize, hasSoftDenormals(chip), coop, coop && (mmaLanes || hasMmaLanes(chip)),
                         coop && (coopBF16 || hasCoopBF16(chip)),
                         coop && (workgroupMatrices || hasWorkgroupMatrices(chip)));
    } else {
      module.emitError() << "unknown target '" << target << "'; use nvptx or spirv";
      return signalPassFailure();
    }
    Result<TargetDesc> valid = validateTarget(desc);
    if (!valid) {
      module.emitError() << valid.status().message();
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(tile::kKernelAttr))
        kernels.push_back(f);
    if (kernels.empty())
      return;
    if (tensorCopyIssue != "lanes" && tensorCopyIssue != "one") {
      module.emitError() << "tensor-copy-issue='" << tensorCopyIssue << "': use lanes or one";
      return signalPassFailure();
    }
    if (tensorCopyRelease != "mbarrier" && tensorCopyRelease != "barrier") {
      module.emitError() << "tensor-copy-release='" << tensorCopyRelease << "': use mbarrier or barrier";
      return signalPassFailure();
    }
    // The options that take auto, on or off.
    std::optional<TensorCopyOptions::Producer> producer =
        autoOnOff<TensorCopyOptions::Producer>(module, "producer-warp", producerWarp);
    std::optional<TileLowering::FmaHalves> halves = autoOnOff<TileLowering::FmaHalves>(module, "fma-halves", fmaHalves);
    std::optional<TileLowering::FmaAsyncCopies> async =
        autoOnOff<TileLowering::FmaAsyncCopies>(module, "fma-async-copies", fmaAsyncCopies);
    if (!producer || !halves || !async)
      return signalPassFailure();
    if (fmaUnroll != 0 && (fmaUnroll < 1 || fmaUnroll > 64 || !llvm::isPowerOf2_64(uint64_t(fmaUnroll)))) {
      module.emitError() << "fma-unroll=" << int64_t(fmaUnroll) << ": use a power of two from 1 to 64 (0: the target's)";
      return signalPassFailure();
    }
    const TensorCopyOptions copies{tensorCopies,      tensorCopiesA, tensorCopyIssue == "one", tensorCopyRelease == "barrier",
                                   warpgroupPingpong, *producer,     asyncCopyFence,          copiesAfterMma,
                                   storeStaging,      waitBeforeCopies, fmaLayout,               fmaVectorA,
                                   coopHoistA,        coopALanes,       *halves,                 *async,
                                   fmaUnroll};
    std::unique_ptr<TargetInfo> info = createTargetInfo(*valid);
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "tessera_kernels");
    info->annotateModule(gpuModule);
    for (func::FuncOp k : kernels) {
      // Fast kernels only: portable dots sum in order (docs/numerics.md).
      if (hasWorkgroupMatrices(valid->chip) && !tile::isPortable(k))
      {
        auto warps = k->getAttrOfType<IntegerAttr>(tile::kNumWarpsAttr);
        formWorkgroupMatmuls(k, hasCoopBF16(valid->chip), (warps ? warps.getInt() : 4) * int64_t(valid->subgroupSize));
      }
      if (failed(lowerKernel(k, gpuModule, *info, copies, stagingBarrier)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace tessera::backend
