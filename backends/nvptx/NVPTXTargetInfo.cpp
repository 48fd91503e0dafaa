// TargetInfo for NVPTX: buffers are global-memory pointers, scalars are plain parameters.
#include "NVPTXTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace tessera::backend {

void registerNVPTXLoweringDialects(DialectRegistry &registry) { registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>(); }

namespace {

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
constexpr unsigned kSharedClusterAddressSpace = 7;

class NVPTXTargetInfo final : public TargetInfo {
public:
  NVPTXTargetInfo(int sm, bool archSpecific) : sm_(sm), archSpecific_(archSpecific) {}
  uint32_t subgroupSize() const override { return 32; }

  // ---- tensor cores: mma.sync m16n8k16, f16 or bf16 -> f32, sm_80+ ---------------------------
  // Lane l is in group g = l / 4 with position t = l % 4 (the PTX ISA's fragment layouts):
  //   A (16 x 16, row-major): word i holds two elements of row g (+8 for i odd) at column 2t
  //     (+8 for i >= 2);
  //   B (16 x 8): word i holds the elements of column g at rows 2t and 2t + 1 (+8 for i = 1);
  //   C (16 x 8): element i at row g (+8 for i >= 2), column 2t + i % 2.
  // The fragments come from shared memory through ldmatrix (sm_75+): each of its 8 x 8 matrices
  // of 16-bit elements gives lane l the word at row l / 4, column 2 (l % 4) (transposed: the two
  // elements at rows 2 (l % 4), +1 of column l / 4), and lanes 8i .. 8i + 7 give the addresses of
  // the rows of matrix i. So A's four words are matrices (rows 0-7 | 8-15) x (columns 0-7 |
  // 8-15) of the block, and B's two words per block are its rows 0-7 and 8-15, transposed (or,
  // staged as B^T, its columns 0-7 and 8-15 of the block's 8 rows, as they lie).
  // (i8 -> i32 would be m16n8k32 with four values per word; not enabled until a GPU run checks it.)

  std::optional<MmaShape> mmaShape(Type in, Type acc) const override {
    if (sm_ < 80)
      return std::nullopt;
    if ((in.isF16() || in.isBF16()) && acc.isF32())
      return MmaShape{16, 8, 16, 4, sharedLimit()};
    return std::nullopt;
  }

  SmallVector<Value> mmaLoadA(OpBuilder &b, Location loc, Value shared, Value aBase, int64_t lda, int64_t rowStep,
                              Value lane, Type in) const override {
    // Lane l addresses row l % 8 (+ rowStep rows for matrices 1 and 3) at column 8 (l / 16).
    Value row = arith::AndIOp::create(b, loc, lane, c32(b, loc, 7));
    Value half = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, lane, c32(b, loc, 3)), c32(b, loc, 1));
    Value col = arith::MulIOp::create(b, loc, arith::ShRUIOp::create(b, loc, lane, c32(b, loc, 4)), c32(b, loc, 8));
    Value rows = arith::AddIOp::create(b, loc, row, arith::MulIOp::create(b, loc, half, c32(b, loc, rowStep)));
    Value offset = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, rows, c32(b, loc, lda)), col);
    return loadMatrices(b, loc, shared, arith::AddIOp::create(b, loc, aBase, offset), 4, /*transposed=*/false, in);
  }

  SmallVector<Value> mmaLoadB(OpBuilder &b, Location loc, Value shared, Value bBase, int64_t ldb, int64_t groups,
                              int64_t groupStep, bool transposed, Value lane, Type in) const override {
    Value block = arith::ShRUIOp::create(b, loc, lane, c32(b, loc, 4)); // lanes 16..31: the second block
    Value offset;
    if (!transposed) {
      // From B: lane l addresses row l % 16 of the k step, in block l / 16 (groupStep columns
      // further); ldmatrix transposes each 8 x 8 matrix into the fragment.
      offset = arith::MulIOp::create(b, loc, arith::AndIOp::create(b, loc, lane, c32(b, loc, 15)), c32(b, loc, ldb));
      if (groups == 2)
        offset = arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, block, c32(b, loc, groupStep)));
    } else {
      // From B^T: lane l addresses row l % 8 of block l / 16 (groupStep rows further) at column
      // 8 ((l / 8) % 2) (rows of B^T are B's columns, so the matrices are the fragments as they lie).
      Value row = arith::AndIOp::create(b, loc, lane, c32(b, loc, 7));
      if (groups == 2)
        row = arith::AddIOp::create(b, loc, row, arith::MulIOp::create(b, loc, block, c32(b, loc, groupStep)));
      Value half = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, lane, c32(b, loc, 3)), c32(b, loc, 1));
      offset = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, c32(b, loc, ldb)),
                                     arith::MulIOp::create(b, loc, half, c32(b, loc, 8)));
    }
    return loadMatrices(b, loc, shared, arith::AddIOp::create(b, loc, bBase, offset), 2 * groups, !transposed, in);
  }

  bool hasMmaPack() const override { return true; }
  Value mmaPack(OpBuilder &b, Location loc, Value lo, Value hi, Type in) const override {
    // The fragment word as ldmatrix gives it: <2 x f16>, or the i32 of <2 x bf16>.
    auto pair = VectorType::get({2}, in);
    Value v = LLVM::PoisonOp::create(b, loc, pair);
    v = LLVM::InsertElementOp::create(b, loc, v, lo, c32(b, loc, 0));
    v = LLVM::InsertElementOp::create(b, loc, v, hi, c32(b, loc, 1));
    return in.isF16() ? v : Value(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
  }

  SmallVector<Value> mma(OpBuilder &b, Location loc, Type in, ValueRange a, ValueRange bFrag, ValueRange acc) const override {
    MLIRContext *ctx = b.getContext();
    Type accType = acc.front().getType();
    auto resultType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(4, accType));
    NVVM::MMATypes types = in.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
    Value d = NVVM::MmaOp::create(b, loc, resultType, a, bFrag, acc, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                                  std::array<NVVM::MMATypes, 2>{types, types},
                                  std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
    return out;
  }

  // ---- warpgroup matrix units: wgmma.mma_async m64nNk16, f16 or bf16 -> f32, sm_90a only ------
  std::optional<WgmmaShape> wgmmaShape(Type in, Type acc) const override {
    if (sm_ != 90 || !archSpecific_)
      return std::nullopt;
    if ((in.isF16() || in.isBF16()) && acc.isF32())
      return WgmmaShape{16, 256, sharedLimit(), 228 * 1024, 1024, 64 * 1024};
    return std::nullopt;
  }

  // The PTX ISA's matrix descriptor: bits 0-13 the start address in the shared window / 16,
  // 16-29 the leading byte offset / 16, 32-45 the stride byte offset / 16, 49-51 the base offset
  // (0: the swizzle pattern starts at a 1024-byte boundary, as the arrays do), 62-63 the swizzle
  // (1: 128 bytes, 2: 64, 3: 32).
  Value wgmmaDescriptor(OpBuilder &b, Location loc, Value shared, Value byteOffset, int64_t leadingBytes,
                        int64_t strideBytes, int64_t swizzle) const override {
    const int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    Value address = arith::AddIOp::create(b, loc, LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), shared), byteOffset);
    Value lo = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, address, c32(b, loc, 4)), c32(b, loc, 0x3FFF));
    lo = arith::OrIOp::create(b, loc, lo, c32(b, loc, ((leadingBytes >> 4) & 0x3FFF) << 16));
    const uint64_t hi = uint64_t((strideBytes >> 4) & 0x3FFF) | (uint64_t(mode) << 30);
    Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), lo);
    return arith::OrIOp::create(b, loc, wide, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(hi << 32))));
  }

  void wgmmaSharedFence(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  }

  SmallVector<Value> wgmma(OpBuilder &b, Location loc, Type in, Value descA, Value descB, int64_t n, bool bRowsAlongN,
                           ValueRange acc) const override {
    MLIRContext *ctx = b.getContext();
    auto type = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(n / 2, b.getF32Type()));
    Value d = LLVM::UndefOp::create(b, loc, type);
    for (int64_t i = 0; i < n / 2; ++i)
      d = LLVM::InsertValueOp::create(b, loc, d, acc[i], ArrayRef<int64_t>{i});
    const NVVM::WGMMATypes t = in.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
    // Layout row for A: K-major (imm-trans-a 0). B: col is K-major (imm-trans-b 0), row N-major.
    d = NVVM::WgmmaMmaAsyncOp::create(b, loc, type, d, descA, descB, NVVM::MMAShapeAttr::get(ctx, 64, int(n), 16), t, t,
                                      NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
                                      NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
                                      bRowsAlongN ? NVVM::MMALayout::row : NVVM::MMALayout::col, nullptr);
    SmallVector<Value> out;
    for (int64_t i = 0; i < n / 2; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
    return out;
  }

  // MLIR's wgmma op takes A through a descriptor only: the register form as inline PTX, the n / 2
  // accumulators tied to the results ("=f" ... and "0" ...), A's words "r", B's descriptor "l".
  SmallVector<Value> wgmmaRegisterA(OpBuilder &b, Location loc, Type in, ValueRange aWords, Value descB, int64_t n,
                                    bool bRowsAlongN, ValueRange acc) const override {
    MLIRContext *ctx = b.getContext();
    const int64_t k = n / 2;
    const char *t = in.isF16() ? "f16" : "bf16";
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
                       "k16.f32." + t + "." + t + " {";
    std::string constraints;
    for (int64_t i = 0; i < k; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += (i ? ",=f" : "=f");
    }
    text += "}, {";
    for (int64_t i = 0; i < 4; ++i)
      text += (i ? ", $" : "$") + std::to_string(k + i);
    text += "}, $" + std::to_string(k + 4) + ", p, 1, 1, " + (bRowsAlongN ? "1" : "0") + ";\n}";
    constraints += ",r,r,r,r,l";
    for (int64_t i = 0; i < k; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> operands;
    for (Value w : aWords)
      operands.push_back(w.getType().isInteger(32) ? w : Value(LLVM::BitcastOp::create(b, loc, b.getI32Type(), w)));
    operands.push_back(descB);
    operands.append(acc.begin(), acc.end());
    auto type = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(k, b.getF32Type()));
    auto asmOp = inlinePtx(b, loc, type, operands, text, constraints);
    SmallVector<Value> out;
    for (int64_t i = 0; i < k; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), ArrayRef<int64_t>{i}));
    return out;
  }

  void wgmmaBegin(OpBuilder &b, Location loc) const override { NVVM::WgmmaFenceAlignedOp::create(b, loc); }
  void wgmmaCommit(OpBuilder &b, Location loc) const override { NVVM::WgmmaGroupSyncAlignedOp::create(b, loc); }
  void wgmmaWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, uint64_t(pending));
  }

  // ---- cp.async (sm_80+): 16-byte copies that skip the registers and L1 (.cg) ---------------
  bool hasAsyncCopy() const override { return sm_ >= 80; }

  void asyncCopy(OpBuilder &b, Location loc, Value shared, Value sharedIndex, Value buffer, Value index, Type elem,
                 int64_t bytes, Value sourceBytes) const override {
    Value dst = LLVM::GEPOp::create(b, loc, shared.getType(), elem, shared, ValueRange{sharedIndex},
                                    LLVM::GEPNoWrapFlags::inbounds);
    Value src = LLVM::GEPOp::create(b, loc, buffer.getType(), elem, buffer, ValueRange{index},
                                    LLVM::GEPNoWrapFlags::inbounds);
    NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(int32_t(bytes)),
                            NVVM::LoadCacheModifierKindAttr::get(b.getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                                                                             : NVVM::LoadCacheModifierKind::CA),
                            sourceBytes); // (cp.async's src-size: the rest zero-filled)
  }

  void asyncCommit(OpBuilder &b, Location loc) const override { NVVM::CpAsyncCommitGroupOp::create(b, loc); }

  void asyncWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(int32_t(pending)));
  }

  // ---- bulk tensor copies (TMA, sm_90+) and their barriers (mbarrier) ----------------------
  // A tensor map is a 128-byte kernel parameter (.param .align 64 .b8 [128]), whose generic
  // address (cvta.param) the copies take: lowerGPUToNVVM marks it byval and grid_constant.
  bool hasTensorCopies() const override { return sm_ >= 90; }
  Type tensorMapType(MLIRContext *ctx) const override { return LLVM::LLVMPointerType::get(ctx); }

  static Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
    return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(), barriers, ValueRange{index},
                               LLVM::GEPNoWrapFlags::inbounds);
  }
  void initBarrier(OpBuilder &b, Location loc, Value barriers, Value index, int64_t arrivals) const override {
    NVVM::MBarrierInitOp::create(b, loc, barrierAt(b, loc, barriers, index), c32(b, loc, arrivals), Value());
  }
  void arriveBarrier(OpBuilder &b, Location loc, Value barriers, Value index) const override {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), barrierAt(b, loc, barriers, index), Value());
  }
  void fenceBarrierInit(OpBuilder &b, Location loc) const override { NVVM::FenceMbarrierInitOp::create(b, loc); }
  void expectBytes(OpBuilder &b, Location loc, Value barriers, Value index, int64_t bytes) const override {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), barrierAt(b, loc, barriers, index), c32(b, loc, bytes),
                                           NVVM::MemScopeKind::CTA, false, Value());
  }
  void tensorCopy(OpBuilder &b, Location loc, Value shared, Value byteOffset, Value map, ValueRange coords,
                  Value barriers, Value index) const override {
    MLIRContext *ctx = b.getContext();
    Value dst = LLVM::GEPOp::create(b, loc, shared.getType(), b.getI8Type(), shared, ValueRange{byteOffset},
                                    LLVM::GEPNoWrapFlags::inbounds);
    // The copy names shared::cluster addresses; a program's own shared memory is in that window.
    dst = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, kSharedClusterAddressSpace), dst);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(b, loc, dst, map, coords,
                                                           barrierAt(b, loc, barriers, index), ValueRange{}, Value(),
                                                           Value(), NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
                                                           b.getBoolAttr(false), NVVM::CTAGroupKindAttr(), Value());
  }
  void waitBarrier(OpBuilder &b, Location loc, Value barriers, Value index, Value parity) const override {
    // Suspends for up to 10 ms a try (CUTLASS's hint); the op loops until the phase completed.
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrierAt(b, loc, barriers, index), parity, c32(b, loc, 0x989680));
  }

  void namedBarrierWait(OpBuilder &b, Location loc, Value id, int64_t threads) const override {
    NVVM::BarrierOp::create(b, loc, TypeRange{}, id, c32(b, loc, threads), {}, Value());
  }
  void exitThread(OpBuilder &b, Location loc) const override { NVVM::Exit::create(b, loc); }
  void setRegisters(OpBuilder &b, Location loc, int64_t count, bool more) const override {
    NVVM::SetMaxRegisterOp::create(b, loc, uint32_t(count),
                                   more ? NVVM::SetMaxRegisterAction::increase : NVVM::SetMaxRegisterAction::decrease);
  }
  void namedBarrierArrive(OpBuilder &b, Location loc, Value id, int64_t threads) const override {
    NVVM::BarrierArriveOp::create(b, loc, id, c32(b, loc, threads));
  }

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

  /// Inline PTX `text` with `constraints` (side effects: it stays where it is written).
  static LLVM::InlineAsmOp inlinePtx(OpBuilder &b, Location loc, TypeRange result, ValueRange operands,
                                     const std::string &text, const std::string &constraints) {
    return LLVM::InlineAsmOp::create(b, loc, result, operands, b.getStringAttr(text), b.getStringAttr(constraints),
                                     b.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
                                     LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  }

  /// `$first` for one operand, `{$first, $first+1, ...}` for several: a vector access's registers.
  static std::string operandList(unsigned first, unsigned count) {
    std::string list;
    for (unsigned i = 0; i < count; ++i)
      list += (i ? ", $" : "$") + std::to_string(first + i);
    return count == 1 ? list : "{" + list + "}";
  }

  /// The address of a run's first element.
  static Value runAddress(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem) {
    return LLVM::GEPOp::create(b, loc, buffer.getType(), elem, buffer, ValueRange{indices[0]},
                               LLVM::GEPNoWrapFlags::inbounds);
  }

  /// A run's elements (8 to 32 bits, 4 to 16 bytes together) as 32-bit words, and back.
  static Type wordType(Type elem) {
    const int64_t perWord = 32 / elem.getIntOrFloatBitWidth();
    return perWord == 1 ? elem : VectorType::get({perWord}, elem);
  }
  static SmallVector<Value> packWords(OpBuilder &b, Location loc, ValueRange elements) {
    Type elem = elements[0].getType(), i32 = b.getI32Type(), word = wordType(elem);
    const unsigned perWord = 32 / elem.getIntOrFloatBitWidth();
    SmallVector<Value> words;
    for (unsigned w = 0; w * perWord < elements.size(); ++w) {
      Value v = elements[w * perWord];
      if (perWord > 1) {
        v = LLVM::UndefOp::create(b, loc, word);
        for (unsigned k = 0; k < perWord; ++k)
          v = LLVM::InsertElementOp::create(b, loc, v, elements[w * perWord + k],
                                            LLVM::ConstantOp::create(b, loc, i32, int64_t(k)));
      }
      words.push_back(v.getType() == i32 ? v : Value(LLVM::BitcastOp::create(b, loc, i32, v)));
    }
    return words;
  }
  static SmallVector<Value> unpackWords(OpBuilder &b, Location loc, ValueRange words, Type elem) {
    Type i32 = b.getI32Type(), word = wordType(elem);
    const unsigned perWord = 32 / elem.getIntOrFloatBitWidth();
    SmallVector<Value> out;
    for (Value w : words) {
      Value v = word == i32 ? w : Value(LLVM::BitcastOp::create(b, loc, word, w));
      if (perWord == 1)
        out.push_back(v);
      else
        for (unsigned k = 0; k < perWord; ++k)
          out.push_back(LLVM::ExtractElementOp::create(b, loc, v, LLVM::ConstantOp::create(b, loc, i32, int64_t(k))));
    }
    return out;
  }

  // `@p ld.global.v4.b32` on words that hold `otherwise` before it (tied operands), and
  // `@p st.global.v4.b32`: 4, 8 or 16 bytes of elements of 8 to 32 bits.
  bool hasPredicatedRuns(Type elem, int64_t n) const override {
    const int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0, bytes = n * bits / 8;
    return n >= 2 && bits >= 8 && bits <= 32 && (bytes == 4 || bytes == 8 || bytes == 16);
  }
  SmallVector<Value> loadRunIf(OpBuilder &b, Location loc, Value buffer, ValueRange indices, Type elem, Value cond,
                               ValueRange otherwise) const override {
    if (!hasPredicatedRuns(elem, int64_t(indices.size())))
      return {};
    SmallVector<Value> operands{cond, runAddress(b, loc, buffer, indices, elem)};
    SmallVector<Value> initial = packWords(b, loc, otherwise);
    operands.append(initial.begin(), initial.end());
    const unsigned words = initial.size();
    std::string constraints;
    for (unsigned w = 0; w < words; ++w)
      constraints += "=r,";
    constraints += "b,l";
    for (unsigned w = 0; w < words; ++w)
      constraints += "," + std::to_string(w);
    const std::string shape = words == 1 ? "" : ".v" + std::to_string(words);
    const std::string text = "@$" + std::to_string(words) + " ld.global" + shape + ".b32 " + operandList(0, words) +
                             ", [$" + std::to_string(words + 1) + "];";
    Type i32 = b.getI32Type();
    Type result = words == 1 ? i32 : Type(LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(words, i32)));
    Value loaded = inlinePtx(b, loc, result, operands, text, constraints).getResult(0);
    SmallVector<Value> loadedWords;
    for (unsigned w = 0; w < words; ++w)
      loadedWords.push_back(words == 1 ? loaded : Value(LLVM::ExtractValueOp::create(b, loc, loaded, ArrayRef<int64_t>{w})));
    return unpackWords(b, loc, loadedWords, elem);
  }

  bool storeRunIf(OpBuilder &b, Location loc, Value buffer, ValueRange indices, ValueRange values,
                  Value cond) const override {
    Type elem = values[0].getType();
    if (!hasPredicatedRuns(elem, int64_t(indices.size())))
      return false;
    SmallVector<Value> operands{cond, runAddress(b, loc, buffer, indices, elem)};
    SmallVector<Value> words = packWords(b, loc, values);
    operands.append(words.begin(), words.end());
    std::string constraints = "b,l";
    for (size_t w = 0; w < words.size(); ++w)
      constraints += ",r";
    const std::string shape = words.size() == 1 ? "" : ".v" + std::to_string(words.size());
    inlinePtx(b, loc, TypeRange{}, operands, "@$0 st.global" + shape + ".b32 [$1], " + operandList(2, words.size()) + ";",
              constraints);
    return true;
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

  Value allocShared(OpBuilder &b, Location loc, gpu::GPUFuncOp func, Type elem, int64_t count, int64_t align) const override {
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    std::string name;
    for (int i = 0;; ++i) {
      name = kSharedPrefix.str() + std::to_string(i);
      if (!SymbolTable::lookupSymbolIn(module, name))
        break;
    }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(elem, count), /*isConstant=*/false,
                             LLVM::Linkage::Internal, name, Attribute(), uint64_t(std::max<int64_t>(align, 16)), kSharedAddressSpace);
    }
    return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace),
                                     FlatSymbolRefAttr::get(b.getContext(), name));
  }

  // Halves stay within static shared memory (48 KiB), and are the default from sm_80 on (100 KiB
  // or more a multiprocessor): run 94 (H100, f32 4096^3) measured 64 x 256 x 16 / 8 at 41.2-41.5
  // TFLOP/s in halves against 40.2, 128 x 128 x 16 / 8 at 40.7 against 39.0, 64 x 128 x 16 / 4 at
  // 38.1 against 37.0 (docs/bench.md).
  int64_t fmaHalvesLimit() const override { return kStaticSharedLimit; }
  bool prefersFmaHalves() const override { return sm_ >= 80; }
  // The whole k step of the usual blocks: ptxas schedules the step's shared loads among its
  // multiply-adds (run 97, H100, f32 4096^3: +5-15% against 8 at every block shape measured,
  // with no more registers; compiling takes about as long).
  int64_t fmaUnroll() const override { return 32; }
  // Stages of an FMA-path dot's copies: as much as keeps two programs on a multiprocessor (each
  // program's 1 KiB reserve on top).
  int64_t fmaStagingLimit() const override { return std::min(sharedLimit(), sharedPerProcessor() / 2 - kProgramReserve); }

  // The programs that fit on a multiprocessor by threads and by shared memory (each program's
  // 1 KiB reserve on top), and what each may have at that count.
  int64_t storeStagingBytes(int64_t sharedBytes, int64_t threads) const override {
    const int64_t perProcessor = sharedPerProcessor(), reserved = kProgramReserve;
    const int64_t maxThreads = sm_ == 86 || sm_ == 89 ? 1536 : 2048;
    const int64_t programs = std::max<int64_t>(1, std::min(maxThreads / threads, perProcessor / (sharedBytes + reserved)));
    return std::max<int64_t>(0, std::min(sharedLimit(), perProcessor / programs - reserved) - sharedBytes);
  }

  // Up to 48 KiB the arrays stay static .shared variables, each its own symbol. Past that CUDA
  // wants dynamic shared memory: one `.extern .shared` array, sized at launch (the runtime opts
  // the kernel in), in which each array gets a range aligned as the array asked (16 bytes, 1024
  // for the operands of wgmma), the extern array aligned to the largest.
  int64_t finalizeShared(gpu::GPUFuncOp func, int64_t requested) const override {
    if (requested <= kStaticSharedLimit)
      return requested;
    auto module = func->getParentOfType<gpu::GPUModuleOp>();
    SmallVector<LLVM::AddressOfOp> uses;
    func.walk([&](LLVM::AddressOfOp a) {
      if (a.getGlobalName().starts_with(kSharedPrefix))
        uses.push_back(a);
    });
    std::map<std::string, int64_t> offsetOf;
    int64_t end = 0, maxAlign = 16;
    SmallVector<LLVM::GlobalOp> arrays;
    for (LLVM::AddressOfOp a : uses) {
      std::string name = a.getGlobalName().str();
      if (offsetOf.count(name))
        continue;
      auto global = cast<LLVM::GlobalOp>(SymbolTable::lookupSymbolIn(module, name));
      auto array = cast<LLVM::LLVMArrayType>(global.getGlobalType());
      const int64_t align = int64_t(global.getAlignment().value_or(16));
      maxAlign = std::max(maxAlign, align);
      end = (end + align - 1) / align * align;
      offsetOf[name] = end;
      end += (int64_t(array.getNumElements()) * (array.getElementType().getIntOrFloatBitWidth() / 8) + 15) / 16 * 16;
      arrays.push_back(global);
    }
    MLIRContext *ctx = func.getContext();
    OpBuilder b(ctx);
    if (!SymbolTable::lookupSymbolIn(module, kDynamicShared)) {
      b.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(b, func.getLoc(), LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0), /*isConstant=*/false,
                             LLVM::Linkage::External, kDynamicShared, Attribute(), uint64_t(maxAlign), kSharedAddressSpace);
    }
    auto ptr = LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
    for (LLVM::AddressOfOp a : uses) {
      b.setInsertionPoint(a);
      Value base = LLVM::AddressOfOp::create(b, a.getLoc(), ptr, FlatSymbolRefAttr::get(ctx, kDynamicShared));
      Value at = LLVM::GEPOp::create(b, a.getLoc(), ptr, IntegerType::get(ctx, 8), base,
                                     ArrayRef<LLVM::GEPArg>{int32_t(offsetOf[a.getGlobalName().str()])},
                                     LLVM::GEPNoWrapFlags::inbounds);
      a.replaceAllUsesWith(at);
      a.erase();
    }
    for (LLVM::GlobalOp g : arrays)
      g.erase();
    return end;
  }

  Value loadShared(OpBuilder &b, Location loc, Value buffer, Value index, Type elem) const override {
    return loadElement(b, loc, buffer, index, elem);
  }

  // Up to 16 bytes as one ld.shared.v2/v4 (shared arrays are 16-byte aligned: allocShared,
  // finalizeShared); longer runs in 16-byte pieces.
  SmallVector<Value> loadSharedRun(OpBuilder &b, Location loc, Value buffer, Value index, Type elem,
                                   int64_t count) const override {
    const int64_t bytes = elem.getIntOrFloatBitWidth() / 8, per = std::min<int64_t>(count, 16 / std::max<int64_t>(bytes, 1));
    if (per < 2 || !elem.isIntOrFloat() || bytes < 1)
      return TargetInfo::loadSharedRun(b, loc, buffer, index, elem, count);
    SmallVector<Value> indices{index}, out;
    for (int64_t k = 1; k < count; ++k)
      indices.push_back(arith::AddIOp::create(b, loc, index, arith::ConstantIntOp::create(b, loc, index.getType(), k)));
    for (int64_t k = 0; k < count; k += per) {
      SmallVector<Value> run = loadRun(b, loc, buffer, ArrayRef<Value>(indices).slice(k, per), elem);
      out.append(run.begin(), run.end());
    }
    return out;
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

private:
  int sm_;
  bool archSpecific_; // sm_90a: the chip's own instructions (wgmma)
  static constexpr int64_t kStaticSharedLimit = 48 * 1024;
  static constexpr llvm::StringLiteral kSharedPrefix = "__tessera_shared_";
  static constexpr llvm::StringLiteral kDynamicShared = "__tessera_dynamic_shared";
  /// Shared memory a multiprocessor of the chip has, and what the driver reserves of it per program.
  static constexpr int64_t kProgramReserve = 1024;
  int64_t sharedPerProcessor() const {
    return sm_ >= 90 ? 228 * 1024 : sm_ == 80 || sm_ == 87 ? 164 * 1024 : sm_ >= 86 ? 100 * 1024 : 64 * 1024;
  }
  /// The most shared memory a program of the chip may have once its kernel opts in.
  int64_t sharedLimit() const {
    if (sm_ >= 90)
      return 227 * 1024;
    if (sm_ == 80 || sm_ == 87)
      return 163 * 1024;
    if (sm_ >= 86)
      return 99 * 1024;
    return 64 * 1024;
  }
  static Value c32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
  }
  /// ldmatrix of `count` 8 x 8 matrices of 16-bit `in` values, this lane's row address at
  /// element `index` of shared memory: a word per matrix, as the operand type mma.sync takes
  /// (vector<2xf16> for f16, i32 for bf16).
  static SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value shared, Value index, int64_t count,
                                         bool transposed, Type in) {
    MLIRContext *ctx = b.getContext();
    Value p = LLVM::GEPOp::create(b, loc, shared.getType(), in, shared, ValueRange{index}, LLVM::GEPNoWrapFlags::inbounds);
    Type result = count == 1 ? Type(b.getI32Type())
                             : Type(LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(count, b.getI32Type())));
    Value m = NVVM::LdMatrixOp::create(b, loc, result, p, uint32_t(count),
                                       transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                                       NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> words;
    for (int64_t i = 0; i < count; ++i) {
      Value word = count == 1 ? m : Value(LLVM::ExtractValueOp::create(b, loc, m, ArrayRef<int64_t>{i}));
      words.push_back(in.isF16() ? Value(LLVM::BitcastOp::create(b, loc, VectorType::get({2}, in), word)) : word);
    }
    return words;
  }

  void annotateKernel(gpu::GPUFuncOp func, uint32_t threads) const override {
    Builder b(func.getContext());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  }
};

} // namespace

std::unique_ptr<TargetInfo> createNVPTXTargetInfo(const std::string &chip) {
  int sm = chip.rfind("sm_", 0) == 0 ? std::atoi(chip.c_str() + 3) : 0;
  return std::make_unique<NVPTXTargetInfo>(sm, !chip.empty() && chip.back() == 'a');
}

} // namespace tessera::backend
