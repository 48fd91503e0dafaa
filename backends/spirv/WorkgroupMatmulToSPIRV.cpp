// tile.workgroup_matmul => workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2): a
// structured loop over the k steps whose header carries the step and the f32 accumulator (OpPhi),
// each step loading its BM x BK slice of A and BK x BN slice of B straight from the buffers
// (OpCooperativeMatrixLoadKHR on StorageBuffer pointers: the driver stages them through shared
// memory) and multiplying them into the accumulator; after it the bias (one row, loaded with
// stride 0 so that every row holds it) is added, the result converted to C's type and stored.
// Measured on its own first: bench/wgmatrix/gen_wg_matmul.py writes the same loop.
#include "spirv/SPIRVPatterns.h"

#include "Tile/IR/TileDialect.h"
#include "common/TargetInfo.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"

using namespace mlir;

namespace tessera::backend {
namespace {

struct WorkgroupMatmulLowering final : OpConversionPattern<tile::WorkgroupMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::WorkgroupMatmulOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    // Is `buffer` a kernel argument's block of one runtime array (as the conversion passes buffers)?
    auto isBlock = [](Value buffer) {
      auto ptr = dyn_cast<spirv::PointerType>(buffer.getType());
      auto block = ptr ? dyn_cast<spirv::StructType>(ptr.getPointeeType()) : nullptr;
      return block && block.getNumElements() == 1 && isa<spirv::RuntimeArrayType>(block.getElementType(0));
    };
    if (!isBlock(adaptor.getA()) || !isBlock(adaptor.getB()) || !isBlock(adaptor.getC()) ||
        (adaptor.getBias() && !isBlock(adaptor.getBias())))
      return r.notifyMatchFailure(op, "a buffer is not a kernel argument's block");
    MLIRContext *ctx = r.getContext();
    const int64_t bm = op.getBlockM(), bn = op.getBlockN(), bk = op.getBlockK();
    const bool bf16 = op.getInType().isBF16();
    // bf16 matrices load as f16 ones marked kBF16MatrixAttr; retypeBF16Matrices makes them bf16.
    Type in = Float16Type::get(ctx), f32 = Float32Type::get(ctx), i32 = r.getI32Type();
    auto matrix = [&](Type t, int64_t rows, int64_t cols, spirv::CooperativeMatrixUseKHR use) {
      return spirv::CooperativeMatrixType::get(t, rows, cols, spirv::Scope::Workgroup, use);
    };
    auto aType = matrix(in, bm, bk, spirv::CooperativeMatrixUseKHR::MatrixA);
    auto bType = matrix(in, bk, bn, spirv::CooperativeMatrixUseKHR::MatrixB);
    auto accType = matrix(f32, bm, bn, spirv::CooperativeMatrixUseKHR::MatrixAcc);
    auto constant = [&](int64_t v) -> Value { return spirv::ConstantOp::create(r, loc, i32, r.getI32IntegerAttr(int32_t(v))); };
    Value zero = constant(0);
    // A pointer to element `index` of such a buffer.
    auto element = [&](Value buffer, Value index) -> Value {
      return spirv::AccessChainOp::create(r, loc, buffer, ValueRange{zero, index});
    };
    auto layout = spirv::CooperativeMatrixLayoutKHRAttr::get(ctx, spirv::CooperativeMatrixLayoutKHR::RowMajor);
    auto load = [&](Type type, Value ptr, Value stride, bool mark) -> Value {
      auto l = spirv::KHRCooperativeMatrixLoadOp::create(r, loc, type, ptr, layout, stride, spirv::MemoryAccessAttr(), IntegerAttr());
      if (mark)
        l->setAttr(kBF16MatrixAttr, r.getUnitAttr());
      return l;
    };

    Value accZero = spirv::CompositeConstructOp::create(r, loc, accType,
                                                        ValueRange{spirv::ConstantOp::getZero(f32, loc, r)});
    auto loop = spirv::LoopOp::create(r, loc, TypeRange{accType}, spirv::LoopControl::None);
    Region &region = loop.getBody();
    Block *entry = r.createBlock(&region);
    Block *header = r.createBlock(&region, region.end(), {i32, accType}, {loc, loc});
    Block *body = r.createBlock(&region);
    Block *next = r.createBlock(&region);
    Block *merge = r.createBlock(&region);
    r.setInsertionPointToEnd(entry);
    spirv::BranchOp::create(r, loc, header, ValueRange{zero, accZero});
    r.setInsertionPointToEnd(header);
    Value t = header->getArgument(0), acc = header->getArgument(1);
    Value more = spirv::SLessThanOp::create(r, loc, t, adaptor.getSteps());
    spirv::BranchConditionalOp::create(r, loc, more, body, ValueRange{}, merge, ValueRange{});
    r.setInsertionPointToEnd(body);
    Value k = spirv::IMulOp::create(r, loc, t, constant(bk));
    Value aIndex = spirv::IAddOp::create(r, loc, adaptor.getAOffset(), k);
    Value bIndex = spirv::IAddOp::create(r, loc, adaptor.getBOffset(), spirv::IMulOp::create(r, loc, k, adaptor.getBStride()));
    Value a = load(aType, element(adaptor.getA(), aIndex), adaptor.getAStride(), bf16);
    Value b = load(bType, element(adaptor.getB(), bIndex), adaptor.getBStride(), bf16);
    Value product = spirv::KHRCooperativeMatrixMulAddOp::create(r, loc, a, b, acc);
    spirv::BranchOp::create(r, loc, next, ValueRange{});
    r.setInsertionPointToEnd(next);
    Value t1 = spirv::IAddOp::create(r, loc, t, constant(1));
    spirv::BranchOp::create(r, loc, header, ValueRange{t1, product});
    r.setInsertionPointToEnd(merge);
    spirv::MergeOp::create(r, loc, ValueRange{acc});

    r.setInsertionPointAfter(loop);
    Value v = loop->getResult(0);
    if (adaptor.getBias()) // every row the bias: its row loaded with stride 0
      v = spirv::FAddOp::create(r, loc, v, load(accType, element(adaptor.getBias(), adaptor.getBiasOffset()), zero, false));
    Value cElement = element(adaptor.getC(), adaptor.getCOffset());
    // C holds f32, f16, or bf16 as its bits (i16: the form formWorkgroupMatmuls gives only floats).
    Type out = cast<spirv::PointerType>(cElement.getType()).getPointeeType();
    if (out.isInteger(16))
      out = BFloat16Type::get(ctx);
    if (out != f32)
      v = spirv::FConvertOp::create(r, loc, matrix(out, bm, bn, spirv::CooperativeMatrixUseKHR::MatrixAcc), v);
    spirv::KHRCooperativeMatrixStoreOp::create(r, loc, cElement, v, layout, adaptor.getCStride(), spirv::MemoryAccessAttr(),
                                               IntegerAttr());
    r.eraseOp(op);
    return success();
  }
};

} // namespace

void populateWorkgroupMatmulToSPIRVPatterns(SPIRVTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WorkgroupMatmulLowering>(converter, patterns.getContext());
}

} // namespace tessera::backend
