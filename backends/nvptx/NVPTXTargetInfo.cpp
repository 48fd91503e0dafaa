// TargetInfo for NVPTX: buffers are global-memory pointers, scalars are plain parameters.
#include "NVPTXTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tessera::backend {

void registerNVPTXLoweringDialects(DialectRegistry &registry) { registry.insert<LLVM::LLVMDialect>(); }

namespace {

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;

class NVPTXTargetInfo final : public TargetInfo {
public:
  uint32_t subgroupSize() const override { return 32; }

  Type paramType(const ArgSpec &spec, Type elem) const override {
    if (spec.kind == ArgKind::Buffer)
      return LLVM::LLVMPointerType::get(elem.getContext(), kGlobalAddressSpace);
    return elem;
  }

  Value abiArgument(OpBuilder &, Location, const ArgSpec &, Type, uint32_t) const override {
    return {}; // every argument is a parameter
  }

  void annotateParam(gpu::GPUFuncOp, unsigned, const ArgSpec &) const override {}

  Value loadElement(OpBuilder &b, Location loc, Value buffer, Value index, Type elem) const override {
    Value p = LLVM::GEPOp::create(b, loc, buffer.getType(), elem, buffer, ValueRange{index},
                                  LLVM::GEPNoWrapFlags::inbounds);
    return LLVM::LoadOp::create(b, loc, elem, p);
  }

  void storeElement(OpBuilder &b, Location loc, Value buffer, Value index, Value value) const override {
    Value p = LLVM::GEPOp::create(b, loc, buffer.getType(), value.getType(), buffer, ValueRange{index},
                                  LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, value, p);
  }

  // A run as one vector access aligned to its size: ld.global.v4.f32 / st.global.v4.f32 for 4 f32.
  SmallVector<Value> loadRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem) const override {
    const unsigned n = indices.size(), bytes = n * elem.getIntOrFloatBitWidth() / 8;
    if (n < 2 || bytes > 16 || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8)
      return TargetInfo::loadRun(b, loc, buffer, indices, elem);
    auto vecType = VectorType::get({int64_t(n)}, elem);
    Value p = LLVM::GEPOp::create(b, loc, buffer.getType(), elem, buffer, ValueRange{indices[0]},
                                  LLVM::GEPNoWrapFlags::inbounds);
    Value v = LLVM::LoadOp::create(b, loc, vecType, p, bytes);
    SmallVector<Value> out;
    for (unsigned k = 0; k < n; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, v, LLVM::ConstantOp::create(b, loc, b.getI32Type(), k)));
    return out;
  }

  void storeRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, ValueRange values) const override {
    const unsigned n = indices.size();
    Type elem = values[0].getType();
    const unsigned bytes = n * elem.getIntOrFloatBitWidth() / 8;
    if (n < 2 || bytes > 16 || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8)
      return TargetInfo::storeRun(b, loc, buffer, indices, values);
    auto vecType = VectorType::get({int64_t(n)}, elem);
    Value v = LLVM::UndefOp::create(b, loc, vecType);
    for (unsigned k = 0; k < n; ++k)
      v = LLVM::InsertElementOp::create(b, loc, v, values[k], LLVM::ConstantOp::create(b, loc, b.getI32Type(), k));
    Value p = LLVM::GEPOp::create(b, loc, buffer.getType(), elem, buffer, ValueRange{indices[0]},
                                  LLVM::GEPNoWrapFlags::inbounds);
    LLVM::StoreOp::create(b, loc, v, p, bytes);
  }

  Value allocShared(OpBuilder &b, Location loc, gpu::GPUFuncOp func, Type elem, int64_t count) const override {
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    std::string name;
    for (int i = 0;; ++i) {
      name = "__tessera_shared_" + std::to_string(i);
      if (!SymbolTable::lookupSymbolIn(module, name))
        break;
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(elem, count), /*isConstant=*/false,
                             LLVM::Linkage::Internal, name, Attribute(), /*alignment=*/16, kSharedAddressSpace);
    }
    return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace),
                                     FlatSymbolRefAttr::get(b.getContext(), name));
  }

  Value loadShared(OpBuilder &b, Location loc, Value buffer, Value index, Type elem) const override {
    return loadElement(b, loc, buffer, index, elem);
  }

  void storeShared(OpBuilder &b, Location loc, Value buffer, Value index, Value value) const override {
    storeElement(b, loc, buffer, index, value);
  }

  Value atomic(OpBuilder &b, Location loc, tile::AtomicKind kind, tile::MemoryOrder order, Value buffer, Value index,
               Value value, Value cmp) const override {
    Value p = LLVM::GEPOp::create(b, loc, buffer.getType(), value.getType(), buffer, ValueRange{index},
                                  LLVM::GEPNoWrapFlags::inbounds);
    auto ordering = order == tile::MemoryOrder::Relaxed   ? LLVM::AtomicOrdering::monotonic
                    : order == tile::MemoryOrder::Acquire ? LLVM::AtomicOrdering::acquire
                    : order == tile::MemoryOrder::Release ? LLVM::AtomicOrdering::release
                                                          : LLVM::AtomicOrdering::acq_rel;
    if (kind == tile::AtomicKind::Cas) {
      // The failure ordering may not release.
      auto failure = order == tile::MemoryOrder::AcqRel || order == tile::MemoryOrder::Acquire
                         ? LLVM::AtomicOrdering::acquire
                         : LLVM::AtomicOrdering::monotonic;
      Value pair = LLVM::AtomicCmpXchgOp::create(b, loc, p, cmp, value, ordering, failure);
      return LLVM::ExtractValueOp::create(b, loc, pair, ArrayRef<int64_t>{0});
    }
    LLVM::AtomicBinOp op;
    switch (kind) {
    case tile::AtomicKind::Add: op = isa<FloatType>(value.getType()) ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add; break;
    case tile::AtomicKind::Max: op = LLVM::AtomicBinOp::max; break;
    case tile::AtomicKind::Min: op = LLVM::AtomicBinOp::min; break;
    case tile::AtomicKind::UMax: op = LLVM::AtomicBinOp::umax; break;
    case tile::AtomicKind::UMin: op = LLVM::AtomicBinOp::umin; break;
    default: op = LLVM::AtomicBinOp::xchg; break;
    }
    return LLVM::AtomicRMWOp::create(b, loc, op, p, value, ordering, /*syncscope=*/StringAttr(), IntegerAttr(),
                                     false, ArrayAttr(), ArrayAttr(), ArrayAttr(), ArrayAttr());
  }

  void annotateModule(gpu::GPUModuleOp) const override {}

  void annotateKernel(gpu::GPUFuncOp func, uint32_t threads) const override {
    Builder b(func.getContext());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  }
};

} // namespace

std::unique_ptr<TargetInfo> createNVPTXTargetInfo() { return std::make_unique<NVPTXTargetInfo>(); }

} // namespace tessera::backend
