// The SPIR-V half of the pipeline: gpu.module -> spirv.module (upstream patterns plus the
// push-constant ABI), ABI lowering, VCE trimming and serialization to words.
#include "SPIRVTarget.h"
#include "Registration.h"
#include "spirv/SPIRVPatterns.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

#include "spirv-tools/libspirv.hpp"

#include <map>

using namespace mlir;

namespace tessera::backend {

void applyPortableFloatControls(spirv::ModuleOp module, bool noContraction, bool softF32Denormals); // PortableFloatControls.cpp

namespace {

/// tile.push_constant off of size  =>  load of word off/4 of the kernel's one push-constant
/// block (a struct of size/4 i32 words), as the runtime fills it with vkCmdPushConstants.
/// A load of an f16 matrix that stands in for a bf16 one (kBF16MatrixAttr): as upstream's lowering
/// loads it, with kBF16MatrixAttr kept on the cooperative-matrix load for retypeBF16Matrices.
struct BF16MatrixLoadLowering final : OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    if (!op->hasAttr(kBF16MatrixAttr))
      return failure();
    const auto &converter = *getTypeConverter<SPIRVTypeConverter>();
    auto type = converter.convertType<spirv::CooperativeMatrixType>(op.getRes().getType());
    Value ptr = spirv::getElementPtr(converter, op.getSrcMemref().getType(), adaptor.getSrcMemref(), adaptor.getIndices(),
                                     op.getLoc(), r);
    if (!type || !ptr)
      return failure();
    auto stride = spirv::ConstantOp::create(r, op.getLoc(), r.getI32Type(),
                                             r.getI32IntegerAttr(int32_t(op.getLeadDimension().getSExtValue())));
    auto layout = op.getTranspose().value_or(false) ? spirv::CooperativeMatrixLayoutKHR::ColumnMajor
                                                    : spirv::CooperativeMatrixLayoutKHR::RowMajor;
    auto load = r.replaceOpWithNewOp<spirv::KHRCooperativeMatrixLoadOp>(op, type, ptr, stride, layout);
    load->setAttr(kBF16MatrixAttr, r.getUnitAttr());
    return success();
  }
};

struct PushConstantLowering final : OpConversionPattern<tile::PushConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::PushConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    Value v = spirv::getPushConstantValue(op, op.getBlockSize() / 4, op.getOffset() / 4,
                                          r.getI32Type(), r);
    if (!v)
      return r.notifyMatchFailure(op, "cannot create the push-constant block");
    r.replaceOp(op, v);
    return success();
  }
};

/// tile.buffer_atomic => spirv.Atomic* on the element's pointer, at device scope.
struct BufferAtomicLowering final : OpConversionPattern<tile::BufferAtomicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::BufferAtomicOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto &converter = *getTypeConverter<SPIRVTypeConverter>();
    Value ptr = spirv::getElementPtr(converter, cast<MemRefType>(op.getBuffer().getType()), adaptor.getBuffer(),
                                     ValueRange{adaptor.getIndex()}, loc, r);
    if (!ptr)
      return r.notifyMatchFailure(op, "cannot address the buffer element");
    using S = spirv::MemorySemantics;
    S sem = op.getOrder() == tile::MemoryOrder::Relaxed   ? S::None
            : op.getOrder() == tile::MemoryOrder::Acquire ? S::Acquire | S::UniformMemory
            : op.getOrder() == tile::MemoryOrder::Release ? S::Release | S::UniformMemory
                                                          : S::AcquireRelease | S::UniformMemory;
    Type t = adaptor.getValue().getType();
    Value v = adaptor.getValue();
    auto scope = spirv::Scope::Device;
    Value result;
    switch (op.getKind()) {
    case tile::AtomicKind::Add:
      result = isa<FloatType>(t) ? Value(spirv::EXTAtomicFAddOp::create(r, loc, t, ptr, scope, sem, v))
                                 : Value(spirv::AtomicIAddOp::create(r, loc, t, ptr, scope, sem, v));
      break;
    case tile::AtomicKind::Max: result = spirv::AtomicSMaxOp::create(r, loc, t, ptr, scope, sem, v); break;
    case tile::AtomicKind::Min: result = spirv::AtomicSMinOp::create(r, loc, t, ptr, scope, sem, v); break;
    case tile::AtomicKind::UMax: result = spirv::AtomicUMaxOp::create(r, loc, t, ptr, scope, sem, v); break;
    case tile::AtomicKind::UMin: result = spirv::AtomicUMinOp::create(r, loc, t, ptr, scope, sem, v); break;
    case tile::AtomicKind::Xchg: result = spirv::AtomicExchangeOp::create(r, loc, t, ptr, scope, sem, v); break;
    case tile::AtomicKind::Cas: {
      S unequal = (sem & S::Acquire) == S::Acquire || (sem & S::AcquireRelease) == S::AcquireRelease
                      ? S::Acquire | S::UniformMemory
                      : S::None; // the unequal case may not release
      result = spirv::AtomicCompareExchangeOp::create(r, loc, t, ptr, scope, sem, unequal, v, adaptor.getCmp());
      break;
    }
    }
    r.replaceOp(op, result);
    return success();
  }
};

/// A pointer to 16-byte unit `index` of the buffer kernel argument `buffer`, through a second
/// variable bound to the same descriptor whose elements are vector<4xi32> (made once per binding
/// in the module; after the ABI lowering the variables of a written buffer are marked Aliased,
/// decorateBuffers). Null where `buffer` is not such an argument.
Value sixteenByteUnit(ConversionPatternRewriter &r, Location loc, Value buffer, Value index) {
  auto arg = dyn_cast<BlockArgument>(buffer);
  auto func = arg ? dyn_cast<spirv::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  auto module = func ? func->getParentOfType<spirv::ModuleOp>() : nullptr;
  auto abi = func ? func.getArgAttrOfType<spirv::InterfaceVarABIAttr>(arg.getArgNumber(),
                                                                       spirv::getInterfaceVarABIAttrName())
                  : nullptr;
  if (!module || !abi)
    return {};
  const uint32_t set = abi.getDescriptorSet(), binding = abi.getBinding();
  const std::string name = "__tessera_units16_" + std::to_string(set) + "_" + std::to_string(binding);
  auto var = dyn_cast_or_null<spirv::GlobalVariableOp>(SymbolTable::lookupSymbolIn(module, name));
  if (!var) {
    OpBuilder::InsertionGuard guard(r);
    r.setInsertionPointToStart(module.getBody());
    auto words = VectorType::get({4}, r.getI32Type());
    auto block = spirv::StructType::get({spirv::RuntimeArrayType::get(words, 16)}, {spirv::StructType::OffsetInfo(0)});
    var = spirv::GlobalVariableOp::create(r, loc, spirv::PointerType::get(block, spirv::StorageClass::StorageBuffer),
                                          name, set, binding);
  }
  Value base = spirv::AddressOfOp::create(r, loc, var);
  Value zero = spirv::ConstantOp::getZero(r.getI32Type(), loc, r);
  return spirv::AccessChainOp::create(r, loc, base, ValueRange{zero, index});
}

/// The 32-bit word `w` as elements of `elem` (1, 2 or 4 of them), and back.
SmallVector<Value> wordElements(OpBuilder &b, Location loc, Value w, Type elem) {
  const unsigned n = 32 / elem.getIntOrFloatBitWidth();
  if (n == 1)
    return {elem == w.getType() ? w : Value(spirv::BitcastOp::create(b, loc, elem, w))};
  Value v = spirv::BitcastOp::create(b, loc, VectorType::get({int64_t(n)}, elem), w);
  SmallVector<Value> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(spirv::CompositeExtractOp::create(b, loc, v, ArrayRef<int32_t>{int32_t(i)}));
  return out;
}
Value elementsWord(OpBuilder &b, Location loc, ValueRange elems) {
  Type i32 = b.getI32Type();
  if (elems.size() == 1)
    return elems[0].getType() == i32 ? elems[0] : Value(spirv::BitcastOp::create(b, loc, i32, elems[0]));
  Value v = spirv::CompositeConstructOp::create(b, loc, VectorType::get({int64_t(elems.size())}, elems[0].getType()), elems);
  return spirv::BitcastOp::create(b, loc, i32, v);
}

/// vector.from_elements (a run of staged elements written as one vector: DotOpToGPU's
/// StagedTile::unit) => spirv.CompositeConstruct.
struct FromElementsLowering final : OpConversionPattern<vector::FromElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(vector::FromElementsOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || !isa<VectorType>(type))
      return r.notifyMatchFailure(op, "not a SPIR-V vector");
    r.replaceOpWithNewOp<spirv::CompositeConstructOp>(op, type, adaptor.getElements());
    return success();
  }
};

/// vector.extract at a constant position of a 1-D vector (a value of a staged vector read back:
/// DotOpToGPU's FMA path) => spirv.CompositeExtract.
struct ExtractLowering final : OpConversionPattern<vector::ExtractOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(vector::ExtractOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    if (!op.getDynamicPosition().empty() || op.getStaticPosition().size() != 1 ||
        !isa<VectorType>(adaptor.getSource().getType()))
      return r.notifyMatchFailure(op, "not a constant position of a SPIR-V vector");
    r.replaceOpWithNewOp<spirv::CompositeExtractOp>(op, adaptor.getSource(),
                                                    ArrayRef<int32_t>{int32_t(op.getStaticPosition()[0])});
    return success();
  }
};

/// tile.buffer_load_run => one 16-byte load (four words, split into the run's elements). With a
/// condition: the load reads unit 0 where it does not hold, and each word is selected between the
/// loaded one and `otherwise`'s (four selects, whatever the element type).
struct BufferLoadRunLowering final : OpConversionPattern<tile::BufferLoadRunOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::BufferLoadRunOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type elem = op.getValues().front().getType();
    if (elem.getIntOrFloatBitWidth() > 32)
      return r.notifyMatchFailure(op, "64-bit runs are read element by element");
    Value cond = adaptor.getCond(), index = adaptor.getIndex();
    if (cond)
      index = spirv::SelectOp::create(r, loc, cond, index, spirv::ConstantOp::getZero(index.getType(), loc, r));
    Value unit = sixteenByteUnit(r, loc, adaptor.getBuffer(), index);
    if (!unit)
      return r.notifyMatchFailure(op, "the buffer is not a kernel argument");
    Value words = spirv::LoadOp::create(r, loc, unit);
    const size_t perWord = op.getValues().size() / 4;
    auto zeroBits = [](Value v) { return matchPattern(v, m_Zero()) || matchPattern(v, m_PosZeroFloat()); };
    SmallVector<Value> out;
    for (int32_t w = 0; w < 4; ++w) {
      Value word = spirv::CompositeExtractOp::create(r, loc, words, ArrayRef<int32_t>{w});
      if (cond) {
        ValueRange other = adaptor.getOtherwise().slice(size_t(w) * perWord, perWord);
        word = spirv::SelectOp::create(r, loc, cond, word,
                                       llvm::all_of(other, zeroBits) ? spirv::ConstantOp::getZero(word.getType(), loc, r)
                                                                     : elementsWord(r, loc, other));
      }
      out.append(wordElements(r, loc, word, elem));
    }
    r.replaceOp(op, out);
    return success();
  }
};

/// tile.buffer_store_run => the run's elements packed into four words, one 16-byte store.
struct BufferStoreRunLowering final : OpConversionPattern<tile::BufferStoreRunOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::BufferStoreRunOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    ValueRange values = adaptor.getValues();
    if (values.front().getType().getIntOrFloatBitWidth() > 32)
      return r.notifyMatchFailure(op, "64-bit runs are written element by element");
    Value unit = sixteenByteUnit(r, loc, adaptor.getBuffer(), adaptor.getIndex());
    if (!unit)
      return r.notifyMatchFailure(op, "the buffer is not a kernel argument");
    const size_t perWord = values.size() / 4;
    SmallVector<Value> words;
    for (size_t w = 0; w < 4; ++w)
      words.push_back(elementsWord(r, loc, values.slice(w * perWord, perWord)));
    Value v = spirv::CompositeConstructOp::create(r, loc, VectorType::get({4}, r.getI32Type()), words);
    spirv::StoreOp::create(r, loc, unit, v);
    r.eraseOp(op);
    return success();
  }
};

/// tile.store_component => an access chain to the component of the array's vector, one scalar
/// store.
struct StoreComponentLowering final : OpConversionPattern<tile::StoreComponentOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::StoreComponentOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto &converter = *getTypeConverter<SPIRVTypeConverter>();
    Value vec = spirv::getElementPtr(converter, cast<MemRefType>(op.getBuffer().getType()), adaptor.getBuffer(),
                                     ValueRange{adaptor.getIndex()}, loc, r);
    if (!vec)
      return r.notifyMatchFailure(op, "cannot address the array's vector");
    Value elem = spirv::AccessChainOp::create(r, loc, vec, ValueRange{adaptor.getComponent()});
    spirv::StoreOp::create(r, loc, elem, adaptor.getValue());
    r.eraseOp(op);
    return success();
  }
};

/// Whether `ptr` (a variable's address or a pointer into it) is only read: every use an access
/// chain that is itself only read, or a load. Anything else counts as a write.
bool onlyRead(Value ptr) {
  for (Operation *user : ptr.getUsers()) {
    if (auto chain = dyn_cast<spirv::AccessChainOp>(user)) {
      if (chain.getBasePtr() != ptr || !onlyRead(chain.getResult())) return false;
    } else if (!isa<spirv::LoadOp, spirv::KHRCooperativeMatrixLoadOp>(user)) {
      return false;
    }
  }
  return true;
}

/// Decorates the buffers' variables. A binding that no access writes gets NonWritable on each of
/// its variables (GLSL's `readonly`: the driver may read it through its read-only caches). A
/// written binding with several variables (a buffer and its 16-byte view) gets Aliased on each, so
/// that the driver keeps a thread's accesses through the two in order; a read-only one needs no
/// order.
void decorateBuffers(spirv::ModuleOp module) {
  std::map<std::pair<uint32_t, uint32_t>, SmallVector<spirv::GlobalVariableOp>> byBinding;
  module.walk([&](spirv::GlobalVariableOp var) {
    if (auto set = var.getDescriptorSetAttr(), binding = var.getBindingAttr(); set && binding)
      byBinding[{uint32_t(set.getInt()), uint32_t(binding.getInt())}].push_back(var);
  });
  llvm::DenseSet<Operation *> written;
  module.walk([&](spirv::AddressOfOp address) {
    if (!onlyRead(address.getPointer()))
      if (Operation *var = SymbolTable::lookupNearestSymbolFrom(address, address.getVariableAttr())) written.insert(var);
  });
  MLIRContext *ctx = module.getContext();
  for (auto &[key, vars] : byBinding) {
    const bool anyWritten = llvm::any_of(vars, [&](spirv::GlobalVariableOp v) { return written.contains(v); });
    for (spirv::GlobalVariableOp var : vars) {
      if (!anyWritten) var->setAttr("non_writable", UnitAttr::get(ctx));
      else if (vars.size() > 1) var->setAttr("aliased", UnitAttr::get(ctx));
    }
  }
}

/// An scf.if with results that the software f32 denormals made (kPhiBranchAttr) becomes a
/// spirv.mlir.selection whose merge block takes the results as arguments (OpPhi), where the
/// upstream lowering stores each result into a Function variable in both branches and loads it
/// after the merge: hundreds of those variables (one per element of each tile operation) went
/// to local memory on NVIDIA's Vulkan driver (GPU run 58: 1.4 KB a thread).
struct IfWithPhisLowering final : OpConversionPattern<scf::IfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(scf::IfOp ifOp, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!ifOp->hasAttr(kPhiBranchAttr) || ifOp.getElseRegion().empty())
      return failure();
    // A result a loop carries would be a phi's operand on the back edge, where the serializer
    // (MLIR 22) writes id 0 for a selection's result: those keep the variables.
    // (The loop may already be a spirv.mlir.loop.)
    for (Operation *user : ifOp->getUsers())
      if (user->hasTrait<OpTrait::IsTerminator>() && !isa<scf::IfOp>(user->getParentOp()))
        return failure();
    SmallVector<Type> types;
    SmallVector<Location> locs;
    for (Value r : ifOp.getResults()) {
      Type t = getTypeConverter()->convertType(r.getType());
      if (!t)
        return rewriter.notifyMatchFailure(ifOp, "a result type has no SPIR-V type");
      types.push_back(t);
      locs.push_back(r.getLoc());
    }
    Location loc = ifOp.getLoc();
    auto selection = spirv::SelectionOp::create(rewriter, loc, types, spirv::SelectionControl::None);
    Block *merge = rewriter.createBlock(&selection.getBody(), selection.getBody().end(), types, locs);
    spirv::MergeOp::create(rewriter, loc, merge->getArguments());
    Block *header = rewriter.createBlock(&selection.getBody().front());
    Block *thenBlock = &ifOp.getThenRegion().front(), *elseBlock = &ifOp.getElseRegion().front();
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      auto yield = cast<scf::YieldOp>(region->back().getTerminator());
      rewriter.setInsertionPoint(yield);
      spirv::BranchOp::create(rewriter, loc, merge, yield.getOperands());
      rewriter.eraseOp(yield);
      rewriter.inlineRegionBefore(*region, merge);
    }
    rewriter.setInsertionPointToEnd(header);
    spirv::BranchConditionalOp::create(rewriter, loc, adaptor.getCondition(), thenBlock, ValueRange(), elseBlock,
                                       ValueRange());
    rewriter.replaceOp(ifOp, selection.getResults());
    return success();
  }
};

/// math ops GLSL.std.450 has but the upstream math conversion does not map (exp2, log2).
template <class MathOp, class GLOp> struct GLUnaryLowering final : OpConversionPattern<MathOp> {
  using OpConversionPattern<MathOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor, ConversionPatternRewriter &r) const override {
    Type t = this->getTypeConverter()->convertType(op.getType());
    if (!t)
      return failure();
    r.replaceOpWithNewOp<GLOp>(op, t, adaptor.getOperand());
    return success();
  }
};

/// Whether a type is or holds bf16.
bool holdsBF16(Type t) {
  if (auto m = dyn_cast<MemRefType>(t))
    return m.getElementType().isBF16();
  return t.isBF16();
}

Type asI16(Type t) {
  Type i16 = IntegerType::get(t.getContext(), 16);
  if (auto m = dyn_cast<MemRefType>(t))
    return MemRefType::get(m.getShape(), i16, m.getLayout(), m.getMemorySpace());
  return i16;
}

/// f32 -> bf16 (round to nearest even) in integer operations only. Upstream's expansion tests
/// for NaN with `x != x`, which a Vulkan driver may fold to false when the module does not
/// declare SignedZeroInfNanPreserve (NVIDIA's does: a NaN then rounded into -0); an integer
/// test of the bits cannot be folded away.
void expandTruncToBF16(arith::TruncFOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = op.getIn().getType();
  Type i32 = b.getI32Type(), i16 = b.getIntegerType(16);
  if (auto v = dyn_cast<VectorType>(f32)) {
    i32 = v.clone(i32);
    i16 = v.clone(i16);
  }
  auto c = [&](uint32_t value) -> Value {
    auto attr = b.getI32IntegerAttr(int32_t(value));
    if (auto v = dyn_cast<VectorType>(i32))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(v, attr));
    return arith::ConstantOp::create(b, loc, attr);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, op.getIn());
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7fffffffu));
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, magnitude, c(0x7f800000u));
  Value high = arith::ShRUIOp::create(b, loc, bits, c(16));
  Value lsb = arith::AndIOp::create(b, loc, high, c(1));
  Value bias = arith::AddIOp::create(b, loc, lsb, c(0x7fffu));
  Value rounded = arith::ShRUIOp::create(b, loc, arith::AddIOp::create(b, loc, bits, bias), c(16));
  Value quietNan = arith::OrIOp::create(b, loc, high, c(0x40u)); // sign and payload kept, quiet bit set
  Value chosen = arith::SelectOp::create(b, loc, isNan, quietNan, rounded);
  Value narrow = arith::TruncIOp::create(b, loc, i16, chosen);
  op.replaceAllUsesWith(arith::BitcastOp::create(b, loc, op.getType(), narrow).getResult());
  op.erase();
}

/// Vulkan devices need not have bf16, so bf16 lives in 16-bit integers: conversions to and
/// from f32 become integer operations (round to nearest even), and what is left of bf16 only
/// moves data (loads, stores, selects, branches), which is the same on i16.
LogicalResult legalizeBF16(gpu::GPUModuleOp module) {
  // Integer <-> bf16 conversions (canonicalization may fuse them) go through f32 first.
  module.walk([](Operation *op) {
    if (!isa<arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp>(op))
      return;
    OpBuilder b(op);
    Type f32 = b.getF32Type();
    if (op->getResult(0).getType().isBF16()) {
      Operation *wide = b.clone(*op);
      wide->getResult(0).setType(f32);
      op->getResult(0).replaceAllUsesWith(arith::TruncFOp::create(b, op->getLoc(), b.getBF16Type(), wide->getResult(0)));
      op->erase();
    } else if (op->getOperand(0).getType().isBF16()) {
      op->setOperand(0, arith::ExtFOp::create(b, op->getLoc(), f32, op->getOperand(0)));
    }
  });
  SmallVector<arith::TruncFOp> truncs;
  module.walk([&](arith::TruncFOp t) {
    if (getElementTypeOrSelf(t.getType()).isBF16() && getElementTypeOrSelf(t.getIn().getType()).isF32())
      truncs.push_back(t);
  });
  for (arith::TruncFOp t : truncs)
    expandTruncToBF16(t);
  RewritePatternSet patterns(module.getContext());
  arith::populateExpandBFloat16Patterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return failure();
  WalkResult walk = module.walk([](Operation *op) {
    if (isa<arith::ArithDialect>(op->getDialect()) && !isa<arith::BitcastOp, arith::SelectOp, arith::ConstantOp>(op))
      for (Type t : op->getOperandTypes())
        if (t.isBF16())
          return WalkResult(op->emitOpError("bf16 arithmetic is not supported on SPIR-V (the front end computes in f32)"));
    for (Value r : op->getResults())
      if (holdsBF16(r.getType()))
        r.setType(asI16(r.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          if (holdsBF16(a.getType()))
            a.setType(asI16(a.getType()));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // gpu.func signatures carry their argument types in an attribute too.
  for (auto f : module.getOps<gpu::GPUFuncOp>()) {
    SmallVector<Type> inputs(f.getArgumentTypes());
    for (Type &t : inputs)
      if (holdsBF16(t))
        t = asI16(t);
    f.setFunctionType(FunctionType::get(f.getContext(), inputs, {}));
  }
  // A constant of bf16 bits retyped to i16 must be an integer attribute again.
  module.walk([](arith::ConstantOp c) {
    if (auto f = dyn_cast<FloatAttr>(c.getValue()); f && c.getType().isInteger(16))
      c.setValueAttr(IntegerAttr::get(c.getType(), f.getValue().bitcastToAPInt()));
  });
  return success();
}

/// bf16 cooperative matrices (SPV_KHR_bfloat16). The gpu dialect's matrices have no bf16, so a
/// bf16 dot's A and B come as f16 matrices loaded from arrays of their bits, the loads marked
/// (kBF16MatrixAttr; matrixStandIn, DotOpToGPU.cpp): each such load's result becomes the bf16
/// matrix it is, and the mark goes. A product then multiplies two bf16 matrices or none.
LogicalResult retypeBF16Matrices(spirv::ModuleOp module) {
  bool any = false;
  module.walk([&](spirv::KHRCooperativeMatrixLoadOp load) {
    auto matrix = dyn_cast<spirv::CooperativeMatrixType>(load.getType());
    if (!load->removeAttr(kBF16MatrixAttr) || !matrix || !matrix.getElementType().isF16())
      return;
    load.getResult().setType(spirv::CooperativeMatrixType::get(BFloat16Type::get(module.getContext()), matrix.getRows(),
                                                               matrix.getColumns(), matrix.getScope(), matrix.getUse()));
    any = true;
  });
  if (!any)
    return success();
  WalkResult walk = module.walk([](spirv::KHRCooperativeMatrixMulAddOp product) {
    auto in = [](Value v) { return cast<spirv::CooperativeMatrixType>(v.getType()).getElementType(); };
    if (in(product.getA()) != in(product.getB()))
      return WalkResult(product.emitOpError("multiplies a bf16 matrix by an f16 one"));
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace

void registerSPIRVBackend(DialectRegistry &registry) {
  registry.insert<spirv::SPIRVDialect, math::MathDialect>();
}

LogicalResult lowerGPUToSPIRV(ModuleOp module, bool portable, bool noContraction, bool softF32Denormals) {
  MLIRContext *ctx = module.getContext();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    // GLSL.std.450 has no erf: expand it into a polynomial first.
    RewritePatternSet math(ctx);
    populatePolynomialApproximateErfPattern(math);
    if (failed(applyPatternsGreedily(gpuModule, std::move(math))) || failed(legalizeBF16(gpuModule)))
      return failure();
    if (portable && softF32Denormals && failed(emulateF32Denormals(gpuModule)))
      return failure();
    packHalfPairsAcrossLoops(gpuModule);
    spirv::TargetEnvAttr targetAttr = spirv::lookupTargetEnvOrDefault(gpuModule);
    std::unique_ptr<ConversionTarget> target = SPIRVConversionTarget::get(targetAttr);
    SPIRVConversionOptions options;
    // Never widen 8/16-bit buffers to 32 bits behind the user's back: fail instead.
    options.emulateLT32BitScalarTypes = false;
    SPIRVTypeConverter typeConverter(targetAttr, options);
    RewritePatternSet patterns(ctx);
    populateGPUToSPIRVPatterns(typeConverter, patterns);
    ScfToSPIRVContext scfContext;
    populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
    arith::populateArithToSPIRVPatterns(typeConverter, patterns);
    populateMathToSPIRVPatterns(typeConverter, patterns);
    populateMemRefToSPIRVPatterns(typeConverter, patterns);
    populateFuncToSPIRVPatterns(typeConverter, patterns);
    // gpu.subgroup_mma_* (dot on cooperative matrices) => spirv.KHR.CooperativeMatrix*.
    populateMMAToSPIRVCoopMatrixTypeConversion(typeConverter);
    populateGpuWMMAToSPIRVCoopMatrixKHRConversionPatterns(typeConverter, patterns);
    populateWorkgroupMatmulToSPIRVPatterns(typeConverter, patterns);
    patterns.add<PushConstantLowering, BufferAtomicLowering, BufferLoadRunLowering, BufferStoreRunLowering, StoreComponentLowering, FromElementsLowering, ExtractLowering,
                 GLUnaryLowering<math::Exp2Op, spirv::GLExp2Op>,
                 GLUnaryLowering<math::Log2Op, spirv::GLLog2Op>>(typeConverter, ctx);
    patterns.add<IfWithPhisLowering, BF16MatrixLoadLowering>(typeConverter, ctx, /*benefit=*/2);
    if (failed(applyFullConversion(gpuModule.getOperation(), *target, std::move(patterns))))
      return failure();
  }
  for (auto spvModule : module.getOps<spirv::ModuleOp>())
    if (failed(retypeBF16Matrices(spvModule)))
      return failure();
  PassManager pm(ctx);
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
  if (failed(runPasses(pm, module)))
    return failure();
  for (auto spvModule : module.getOps<spirv::ModuleOp>())
    decorateBuffers(spvModule);
  // lower-abi-attrs lists every global of a kernel in its OpEntryPoint when the target is SPIR-V
  // 1.4 or newer (cooperative matrices: 1.6), which an older version forbids; update-vce may have
  // deduced one. Such a module keeps the target's version.
  // update-vce does not know that bf16 cooperative matrices need BFloat16CooperativeMatrixKHR
  // (only BFloat16TypeKHR, for the type): added where a module loads one.
  for (auto spvModule : module.getOps<spirv::ModuleOp>()) {
    spirv::TargetEnvAttr env = spirv::lookupTargetEnvOrDefault(spvModule);
    auto vce = spvModule.getVceTriple();
    if (!vce)
      continue;
    SmallVector<spirv::Capability> caps(vce->getCapabilities());
    SmallVector<spirv::Extension> exts(vce->getExtensions());
    spirv::Version version = vce->getVersion();
    if (env.getVersion() >= spirv::Version::V_1_4 && version < spirv::Version::V_1_4)
      version = env.getVersion();
    const bool bf16Matrices = spvModule.walk([](spirv::KHRCooperativeMatrixLoadOp load) {
      auto m = dyn_cast<spirv::CooperativeMatrixType>(load.getType());
      return m && m.getElementType().isBF16() ? WalkResult::interrupt() : WalkResult::advance();
    }).wasInterrupted();
    const bool addCap = bf16Matrices && !llvm::is_contained(caps, spirv::Capability::BFloat16CooperativeMatrixKHR);
    if (addCap)
      caps.push_back(spirv::Capability::BFloat16CooperativeMatrixKHR);
    if (version != vce->getVersion() || addCap)
      spvModule.setVceTripleAttr(spirv::VerCapExtAttr::get(version, caps, exts, ctx));
  }
  // update-vce does not know that 64-bit atomics need Int64Atomics: add it where used.
  for (auto spvModule : module.getOps<spirv::ModuleOp>()) {
    bool atomics64 = false;
    spvModule.walk([&](Operation *op) {
      if (op->getName().getStringRef().starts_with("spirv.Atomic") && op->getNumResults() &&
          op->getResult(0).getType().isInteger(64))
        atomics64 = true;
    });
    auto vce = spvModule.getVceTriple();
    if (!atomics64 || !vce)
      continue;
    SmallVector<spirv::Capability> caps(vce->getCapabilities());
    if (!llvm::is_contained(caps, spirv::Capability::Int64Atomics))
      caps.push_back(spirv::Capability::Int64Atomics);
    SmallVector<spirv::Extension> exts(vce->getExtensions());
    spvModule.setVceTripleAttr(spirv::VerCapExtAttr::get(vce->getVersion(), caps, exts, ctx));
  }
  if (portable)
    for (auto spvModule : module.getOps<spirv::ModuleOp>())
      applyPortableFloatControls(spvModule, noContraction, softF32Denormals);
  return success();
}

LogicalResult checkBufferABI(ModuleOp module, const std::vector<ArgSpec> &signature, std::string &error) {
  LogicalResult result = success();
  module.walk([&](spirv::GlobalVariableOp var) {
    auto binding = var.getBindingAttr();
    auto ptr = dyn_cast<spirv::PointerType>(var.getType());
    if (!binding || !ptr || ptr.getStorageClass() != spirv::StorageClass::StorageBuffer)
      return;
    auto block = dyn_cast<spirv::StructType>(ptr.getPointeeType());
    auto array = block ? dyn_cast<spirv::RuntimeArrayType>(block.getElementType(0)) : nullptr;
    if (!array || isa<VectorType>(array.getElementType())) // no array, or a 16-byte view (decorateBuffers)
      return;
    unsigned bits = array.getElementType().getIntOrFloatBitWidth();
    for (const ArgSpec &a : signature)
      if (a.kind == ArgKind::Buffer && a.abiSlot == binding.getInt() && bits != sizeOf(a.dtype) * 8) {
        error = "buffer argument '" + a.name + "' holds " + std::string(toString(a.dtype)) +
                " but the SPIR-V module would access it as " + std::to_string(bits) +
                "-bit elements; the target lacks the capabilities for " + std::to_string(sizeOf(a.dtype) * 8) +
                "-bit storage";
        result = failure();
      }
  });
  return result;
}

LogicalResult serializeSPIRV(ModuleOp module, std::vector<uint32_t> &words, std::string &error) {
  auto spvModules = module.getOps<spirv::ModuleOp>();
  if (std::distance(spvModules.begin(), spvModules.end()) != 1) {
    error = "expected exactly one spirv.module after lowering";
    return failure();
  }
  SmallVector<uint32_t> out;
  if (failed(spirv::serialize(*spvModules.begin(), out))) {
    error = "SPIR-V serialization failed";
    return failure();
  }
  words.assign(out.begin(), out.end());
  return success();
}

namespace {

constexpr uint32_t kOpCapability = 17, kCapabilityCooperativeMatrixKHR = 6022;

/// Whether a module declares OpCapability CooperativeMatrixKHR (`words` has at least a header).
bool usesCoopMatrix(std::span<const uint32_t> words) {
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0)
      return false;
    if (opcode == kOpCapability && count >= 2 && i + 1 < words.size() && words[i + 1] == kCapabilityCooperativeMatrixKHR)
      return true;
    i += count;
  }
  return false;
}

/// The Vulkan environment of a module's SPIR-V version: 1.6 (cooperative matrices) needs 1.3.
spv_target_env environmentOf(std::span<const uint32_t> words) {
  return words.size() > 1 && words[1] >= 0x00010400u ? SPV_ENV_VULKAN_1_3 : SPV_ENV_VULKAN_1_1;
}

} // namespace

std::string disassembleSPIRV(const std::vector<uint32_t> &words) {
  if (words.size() > 5 && usesCoopMatrix(words))
    return "<cannot disassemble: this SPIRV-Tools predates SPV_KHR_cooperative_matrix; --emit=spirv-mlir shows the "
           "module>";
  spvtools::SpirvTools tools(environmentOf(words));
  std::string text;
  if (!tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return "<cannot disassemble>";
  return text;
}

} // namespace tessera::backend

namespace tessera {

Status validateSpirv(std::span<const uint32_t> words) {
  // SPIRV-Tools of Debian 12 (2023.1) predates SPV_KHR_cooperative_matrix and rejects its
  // capability: such a module is checked by MLIR's verifier only (and by the driver at load).
  if (words.size() > 5 && words[0] == 0x07230203u && backend::usesCoopMatrix(words))
    return Status();
  spvtools::SpirvTools tools(backend::environmentOf(words));
  // Without friendly names (naming every id for messages was 40% of the validation); a module
  // that fails is validated again with them, for the message.
  spvtools::ValidatorOptions quick;
  quick.SetFriendlyNames(false);
  if (tools.Validate(words.data(), words.size(), quick))
    return Status();
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char *, const spv_position_t &pos, const char *msg) {
    messages += "word " + std::to_string(pos.index) + ": " + msg + "\n";
  });
  if (!tools.Validate(words.data(), words.size()))
    return Status(StatusCode::Internal, std::string("generated SPIR-V does not validate (") +
                                            (backend::environmentOf(words) == SPV_ENV_VULKAN_1_3 ? "vulkan1.3" : "vulkan1.1") +
                                            "):\n" + messages);
  return Status();
}

} // namespace tessera
