// TargetInfo for SPIR-V (Vulkan compute shaders): storage-buffer bindings, one push-constant
// block for scalars, and the SPIR-V target environment.
#include "SPIRVTarget.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tessera::backend {

void registerSPIRVLoweringDialects(DialectRegistry &registry) {
  registry.insert<spirv::SPIRVDialect, memref::MemRefDialect, vector::VectorDialect>();
}

spirv::TargetEnvAttr spirvTargetEnv(MLIRContext *ctx, uint32_t subgroupSize, bool coopMatrix, bool bf16) {
  using spirv::Capability;
  // Vulkan 1.1 guarantees SPIR-V 1.3 and subgroup operations; update-vce later trims the
  // capabilities to those the module uses.
  // The optional capabilities are those every current desktop driver and lavapipe offer; the
  // runtime checks the ones a module uses against the device before creating a pipeline.
  // Cooperative matrices add their capability and extension and need SPIR-V 1.6 (Vulkan 1.3).
  SmallVector<Capability> caps{Capability::Shader,
                               Capability::GroupNonUniform,
                               Capability::GroupNonUniformArithmetic,
                               Capability::GroupNonUniformShuffle,
                               Capability::GroupNonUniformBallot,
                               Capability::Float16,
                               Capability::Int8,
                               Capability::Int16,
                               Capability::Int64,
                               Capability::StorageBuffer16BitAccess,
                               Capability::StorageBuffer8BitAccess,
                               Capability::AtomicFloat32AddEXT,
                               Capability::Int64Atomics,
                               Capability::Float64};
  SmallVector<spirv::Extension> exts{spirv::Extension::SPV_KHR_storage_buffer_storage_class,
                                     spirv::Extension::SPV_KHR_16bit_storage, spirv::Extension::SPV_KHR_8bit_storage,
                                     spirv::Extension::SPV_EXT_shader_atomic_float_add};
  if (coopMatrix) {
    caps.push_back(Capability::CooperativeMatrixKHR);
    exts.push_back(spirv::Extension::SPV_KHR_cooperative_matrix);
  }
  if (coopMatrix && bf16) { // bf16 only as cooperative matrices' A and B (retypeBF16Matrices)
    caps.append({Capability::BFloat16TypeKHR, Capability::BFloat16CooperativeMatrixKHR});
    exts.push_back(spirv::Extension::SPV_KHR_bfloat16);
  }
  auto triple =
      spirv::VerCapExtAttr::get(coopMatrix ? spirv::Version::V_1_6 : spirv::Version::V_1_3, caps, exts, ctx);
  Builder b(ctx);
  auto limits = spirv::ResourceLimitsAttr::get(
      ctx, /*max_compute_shared_memory_size=*/32768, /*max_compute_workgroup_invocations=*/1024,
      b.getI32ArrayAttr({1024, 1024, 64}), int(subgroupSize), int(subgroupSize), int(subgroupSize),
      b.getArrayAttr({}), b.getArrayAttr({}));
  return spirv::TargetEnvAttr::get(triple, limits, spirv::ClientAPI::Vulkan);
}

namespace {

class SPIRVTargetInfo final : public TargetInfo {
public:
  SPIRVTargetInfo(uint32_t subgroupSize, bool coopMatrix, bool mmaLanes, bool bf16)
      : subgroupSize_(subgroupSize), coopMatrix_(coopMatrix), mmaLanes_(mmaLanes), bf16_(bf16) {}

  uint32_t subgroupSize() const override { return subgroupSize_; }

  Type paramType(const ArgSpec &spec, Type elem) const override {
    if (spec.kind == ArgKind::Scalar)
      return {}; // scalars travel in the push-constant block
    auto space = spirv::StorageClassAttr::get(elem.getContext(), spirv::StorageClass::StorageBuffer);
    return MemRefType::get({ShapedType::kDynamic}, elem, MemRefLayoutAttrInterface{}, space);
  }

  Value abiArgument(OpBuilder &b, Location loc, const ArgSpec &spec, Type type,
                    uint32_t blockBytes) const override {
    Value word = tile::PushConstantOp::create(b, loc, b.getI32Type(), spec.abiSlot, blockBytes);
    if (type.isInteger(64)) { // two words, low first (little endian)
      Value high = tile::PushConstantOp::create(b, loc, b.getI32Type(), spec.abiSlot + 4, blockBytes);
      Value lo = arith::ExtUIOp::create(b, loc, type, word), hi = arith::ExtUIOp::create(b, loc, type, high);
      hi = arith::ShLIOp::create(b, loc, hi, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
      return arith::OrIOp::create(b, loc, lo, hi);
    }
    if (type.isInteger(32))
      return word;
    return arith::BitcastOp::create(b, loc, type, word);
  }

  void annotateParam(gpu::GPUFuncOp func, unsigned index, const ArgSpec &spec) const override {
    func.setArgAttr(index, spirv::getInterfaceVarABIAttrName(),
                    spirv::getInterfaceVarABIAttr(/*descriptorSet=*/0, spec.abiSlot,
                                                  std::nullopt, func.getContext()));
  }

  Value loadElement(OpBuilder &b, Location loc, Value buffer, Value index, Type) const override {
    Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
    return memref::LoadOp::create(b, loc, buffer, ValueRange{i});
  }

  void storeElement(OpBuilder &b, Location loc, Value buffer, Value index, Value value) const override {
    Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
    memref::StoreOp::create(b, loc, value, buffer, ValueRange{i});
  }

  // A run of 16 bytes, or of several times 16, as one access per 16 bytes through a 16-byte view
  // of the buffer (tile.buffer_load_run / buffer_store_run, lowered in GPUToSPIRV.cpp); other
  // runs element by element.
  SmallVector<Value> loadRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem) const override {
    const int64_t per = unitElements(indices.size(), elem);
    if (!per)
      return TargetInfo::loadRun(b, loc, buffer, indices, elem);
    SmallVector<Value> out;
    for (size_t j = 0; j < indices.size(); j += size_t(per)) {
      auto run = tile::BufferLoadRunOp::create(b, loc, SmallVector<Type>(size_t(per), elem), buffer,
                                               unitIndex(b, loc, indices[j], per), Value(), ValueRange());
      out.append(run.getValues().begin(), run.getValues().end());
    }
    return out;
  }

  // SPIR-V has no predicated access; a run of whole 16-byte units where `cond` does not hold
  // reads the buffer's first unit instead (every buffer the runtime makes holds at least 16
  // bytes), and its elements then take `otherwise` (tile.buffer_load_run ... if cond else
  // (otherwise), lowered in GPUToSPIRV.cpp): no branch, so the loads of a thread's runs stay in
  // flight together however their bits fall (a load behind a branch was issued only after the
  // previous branch's merge by NVIDIA's Vulkan compiler).
  bool hasPredicatedRuns(Type elem, int64_t n) const override { return unitElements(size_t(n), elem) != 0; }
  SmallVector<Value> loadRunIf(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem, Value cond,
                               ValueRange otherwise) const override {
    const int64_t per = unitElements(indices.size(), elem);
    if (!per)
      return {};
    SmallVector<Value> out;
    for (size_t j = 0; j < indices.size(); j += size_t(per)) {
      auto run = tile::BufferLoadRunOp::create(b, loc, SmallVector<Type>(size_t(per), elem), buffer,
                                               unitIndex(b, loc, indices[j], per), cond,
                                               otherwise.slice(j, size_t(per)));
      out.append(run.getValues().begin(), run.getValues().end());
    }
    return out;
  }

  void storeRun(OpBuilder &b, Location loc, Value buffer, ValueRange indices, ValueRange values) const override {
    const int64_t per = unitElements(indices.size(), values[0].getType());
    if (!per)
      return TargetInfo::storeRun(b, loc, buffer, indices, values);
    for (size_t j = 0; j < indices.size(); j += size_t(per))
      tile::BufferStoreRunOp::create(b, loc, values.slice(j, size_t(per)), buffer, unitIndex(b, loc, indices[j], per));
  }

  Value allocShared(OpBuilder &b, Location loc, gpu::GPUFuncOp func, Type elem, int64_t count, int64_t) const override {
    // Workgroup variables live at module scope in SPIR-V; the alloc goes first in the kernel.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    auto space = spirv::StorageClassAttr::get(b.getContext(), spirv::StorageClass::Workgroup);
    return memref::AllocOp::create(b, loc, MemRefType::get({count}, elem, MemRefLayoutAttrInterface{}, space));
  }

  bool wantsVectorArrays() const override { return true; }
  void storeSharedComponent(OpBuilder &b, Location loc, Value buffer, Value index, Value component,
                            Value value) const override {
    tile::StoreComponentOp::create(b, loc, value, buffer, index, component);
  }
  // What NVIDIA's Vulkan driver gives a workgroup (48 KiB) where subgroups have 32 lanes, else
  // lavapipe's 32 KiB; only with fma-halves=on: through NVIDIA's Vulkan driver run 94 measured
  // halves slower (f32 4096^3: 31.4-31.6 TFLOP/s against 34.6-34.8 at 64 x 256 x 16 / 8).
  int64_t fmaHalvesLimit() const override { return subgroupSize() >= 32 ? 48 * 1024 : 32 * 1024; }
  // 16 k values a step where subgroups have 32 lanes or more (GPUs: run 97 measured 37.1 TFLOP/s
  // against 34.5 at f32 4096^3, 64 x 256 x 16 / 8, through NVIDIA's Vulkan driver), 8 on
  // narrower ones (CPU drivers: llvmpipe took over ten times as long to compile the larger
  // blocks into pipelines).
  int64_t fmaUnroll() const override { return subgroupSize() >= 32 ? 16 : 8; }

  Value loadShared(OpBuilder &b, Location loc, Value buffer, Value index, Type elem) const override {
    return loadElement(b, loc, buffer, index, elem);
  }

  void storeShared(OpBuilder &b, Location loc, Value buffer, Value index, Value value) const override {
    storeElement(b, loc, buffer, index, value);
  }

  std::optional<CoopMatrixShape> coopMatrixShape(Type in, Type acc) const override {
    // 16 x 16 x 16 f16 -> f32 is the shape every VK_KHR_cooperative_matrix driver reports
    // (NVIDIA, AMD, Intel); the runtime checks it, and runs a self-test, before choosing this code.
    // 48 KiB of shared memory: what NVIDIA gives a Vulkan compute shader, the least among them.
    // bf16 where the chip says the device has it (VK_KHR_shader_bfloat16; a self-test of its own).
    if (!coopMatrix_ || !(in.isF16() || (bf16_ && in.isBF16())) || !acc.isF32())
      return std::nullopt;
    return CoopMatrixShape{16, 16, 16, 48 * 1024, mmaLanes_ && subgroupSize_ == 32};
  }

  Value atomic(OpBuilder &b, Location loc, tile::AtomicKind kind, tile::MemoryOrder order, Value buffer, Value index,
               Value value, Value cmp) const override {
    Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
    return tile::BufferAtomicOp::create(b, loc, value.getType(), kind, order, buffer, i, value, cmp);
  }

  void annotateModule(gpu::GPUModuleOp module) const override {
    module->setAttr(spirv::getTargetEnvAttrName(),
                    spirvTargetEnv(module.getContext(), subgroupSize_, coopMatrix_, bf16_));
  }

  void annotateKernel(gpu::GPUFuncOp func, uint32_t threads) const override {
    func->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(func.getContext(), {int32_t(threads), 1, 1}));
  }

private:
  /// Elements of `elem` per 16 bytes where a run of `n` of them is a whole number of 16-byte
  /// units of 8-, 16- or 32-bit elements (runs of 64-bit ones stay element accesses), else 0.
  static int64_t unitElements(size_t n, Type elem) {
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8 || elem.getIntOrFloatBitWidth() > 32)
      return 0;
    const int64_t per = 128 / elem.getIntOrFloatBitWidth();
    return n % size_t(per) == 0 ? per : 0;
  }
  /// The 16-byte unit of element `first` (a multiple of the `per` elements of a unit: runs start
  /// at multiples of their length).
  static Value unitIndex(OpBuilder &b, Location loc, Value first, int64_t per) {
    return arith::ShRUIOp::create(b, loc, first, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(llvm::Log2_64(per))));
  }

  uint32_t subgroupSize_;
  bool coopMatrix_, mmaLanes_, bf16_;
};

} // namespace

std::unique_ptr<TargetInfo> createSPIRVTargetInfo(uint32_t subgroupSize, bool coopMatrix, bool mmaLanes, bool bf16) {
  return std::make_unique<SPIRVTargetInfo>(subgroupSize, coopMatrix, mmaLanes, bf16);
}

} // namespace tessera::backend
