// Block matmuls on workgroup-scope cooperative matrices (SPIR-V chips with +wgmat,
// VK_NV_cooperative_matrix2): formWorkgroupMatmuls finds, in a kernel's tile IR, the loop
//
//   acc = for k = 0 to K step BK (acc = 0):  acc + dot(load(A window), load(B window))
//
// whose result goes, through an optional row bias (acc + broadcast(load(bias + cols))) and a
// conversion, to one masked store of C, and replaces loop and epilogue with a tile.workgroup_matmul
// under `row0 < M && col0 < N`. The op's matrices are unmasked: the kernel is right only where M,
// N and K are multiples of BM, BN and BK and the block's first row and column multiples of BM and
// BN (what the program numbering gives). The compiler therefore emits such code as a variant the
// runtime launches only for arguments with those divisors (kWorkgroupDivisorsAttr).
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>
#include <numeric>

using namespace mlir;

namespace tessera::backend {
namespace {

/// sameScalar where either may be absent (null: not the same).
bool same(Value a, Value b) { return a && b && sameScalar(a, b); }

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// Is `v` a product with a constant factor that `block` divides (x * c or c * x)?
bool multipleOf(Value v, int64_t block) {
  auto mul = v ? v.getDefiningOp<arith::MulIOp>() : nullptr;
  if (!mul)
    return false;
  for (Value f : {mul.getLhs(), mul.getRhs()})
    if (std::optional<int64_t> c = constantOf(f); c && *c % block == 0)
      return true;
  return false;
}

/// The single user of `v`, or null.
Operation *soleUser(Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; }

/// expand_dims(splat(col0) + arange(0, n), 0) (either order of the sum): col0, else null.
Value rowOfColumns(Value offsets, int64_t n) {
  auto expand = offsets.getDefiningOp<tile::ExpandDimsOp>();
  if (!expand || expand.getAxis() != 0)
    return {};
  auto add = expand.getSrc().getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto splat = x.getDefiningOp<tile::SplatOp>();
    auto range = y.getDefiningOp<tile::ArangeOp>();
    if (splat && range && range.getStart() == 0 && range.getEnd() == n)
      return splat.getValue();
  }
  return {};
}

bool zeroSplat(Value v, bool allowAbsent) {
  if (!v)
    return allowAbsent;
  auto splat = v.getDefiningOp<tile::SplatOp>();
  APFloat f(0.0);
  return splat && matchPattern(splat.getValue(), m_ConstantFloat(&f)) && f.isPosZero();
}

struct Candidate {
  scf::ForOp loop;
  tile::StoreOp store;
  TensorWindow a, b, c;
  Value bias, biasCol0;
  int64_t bm = 0, bn = 0, bk = 0;
  Type in;
  SmallVector<Operation *> epilogue; // between the loop and the store: erased with them
};

/// The loop's workgroup-matmul form, if it has one (the file's comment).
std::optional<Candidate> match(scf::ForOp loop, bool bf16) {
  if (loop.getNumRegionIterArgs() != 1 || loop->getNumResults() != 1)
    return std::nullopt;
  auto accType = dyn_cast<RankedTensorType>(loop->getResult(0).getType());
  if (!accType || accType.getRank() != 2 || !accType.getElementType().isF32() || !zeroSplat(loop.getInitArgs()[0], false))
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto dot = yield.getOperand(0).getDefiningOp<tile::DotOp>();
  if (!dot || dot.getTransposeB() || dot.getAcc() != loop.getRegionIterArgs()[0] || !dot->hasOneUse() ||
      !loop.getRegionIterArgs()[0].hasOneUse())
    return std::nullopt;
  auto la = dot.getA().getDefiningOp<tile::LoadOp>(), lb = dot.getB().getDefiningOp<tile::LoadOp>();
  if (!la || !lb || !la->hasOneUse() || !lb->hasOneUse() || la->getParentOp() != loop || lb->getParentOp() != loop)
    return std::nullopt;
  // Nothing else in the body touches memory.
  for (Operation &op : *loop.getBody())
    if (&op != la && &op != lb && &op != dot && &op != yield && !isMemoryEffectFree(&op))
      return std::nullopt;
  Candidate m;
  m.loop = loop;
  m.in = cast<RankedTensorType>(la.getType()).getElementType();
  if ((!m.in.isF16() && !(bf16 && m.in.isBF16())) || cast<RankedTensorType>(lb.getType()).getElementType() != m.in)
    return std::nullopt;
  m.bm = accType.getDimSize(0);
  m.bn = accType.getDimSize(1);
  m.bk = cast<RankedTensorType>(la.getType()).getDimSize(1);
  if (m.bm % 16 || m.bn % 16 || m.bk % 16)
    return std::nullopt;
  std::optional<int64_t> lb0 = constantOf(loop.getLowerBound()), step = constantOf(loop.getStep());
  Value iv = loop.getInductionVar(), K = loop.getUpperBound();
  if (!lb0 || *lb0 != 0 || !step || *step != m.bk)
    return std::nullopt;
  std::optional<TensorWindow> wa = tensorWindowOf(la), wb = tensorWindowOf(lb);
  if (!wa || !wb || wa->slice || wb->slice || wa->rowOffset || wa->colOffset || wb->rowOffset || wb->colOffset)
    return std::nullopt;
  // A: rows row0.., columns k..; B: rows k.., columns col0..; both bounded by K along k.
  if (wa->col0 != iv || !same(wa->cols, K) || wb->row0 != iv || !same(wb->rows, K) || !wa->row0 || !wb->col0 ||
      !wb->cols || !multipleOf(wa->row0, m.bm) || !multipleOf(wb->col0, m.bn))
    return std::nullopt;
  for (Value v : {wa->row0, wa->stride, wa->rows, wb->col0, wb->stride, wb->cols})
    if (Operation *def = v.getDefiningOp(); def && loop->isAncestor(def))
      return std::nullopt;
  m.a = *wa;
  m.b = *wb;

  // The epilogue: [acc + broadcast(load(bias + cols, cols < N))], [truncf], store.
  Value v = loop->getResult(0);
  Operation *user = soleUser(v);
  if (auto add = dyn_cast_or_null<arith::AddFOp>(user)) {
    Value other = add.getLhs() == v ? add.getRhs() : add.getLhs();
    auto broadcast = other.getDefiningOp<tile::BroadcastOp>();
    auto load = broadcast ? broadcast.getSrc().getDefiningOp<tile::LoadOp>() : nullptr;
    auto loadType = load ? cast<RankedTensorType>(load.getType()) : RankedTensorType();
    if (!load || !broadcast->hasOneUse() || !load->hasOneUse() || loadType.getShape() != ArrayRef<int64_t>{1, m.bn} ||
        !loadType.getElementType().isF32() || !zeroSplat(load.getOther(), true) || !load.getMask())
      return std::nullopt;
    Value col0 = rowOfColumns(load.getOffsets(), m.bn);
    auto cmp = stripBroadcast(load.getMask()).getDefiningOp<arith::CmpIOp>();
    auto bound = cmp ? cmp.getRhs().getDefiningOp<tile::SplatOp>() : nullptr;
    if (!same(col0, m.b.col0) || !cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
        cmp.getLhs() != load.getOffsets() || !bound || !same(bound.getValue(), m.b.cols))
      return std::nullopt;
    m.bias = load.getPtr();
    m.biasCol0 = col0;
    m.epilogue.append({add, broadcast, load});
    v = add.getResult();
    user = soleUser(v);
  }
  if (auto trunc = dyn_cast_or_null<arith::TruncFOp>(user)) {
    m.epilogue.push_back(trunc);
    v = trunc.getResult();
    user = soleUser(v);
  }
  auto store = dyn_cast_or_null<tile::StoreOp>(user);
  if (!store || store.getValue() != v)
    return std::nullopt;
  Type out = cast<RankedTensorType>(v.getType()).getElementType();
  if (!out.isF16() && !(bf16 && out.isBF16()) && !out.isF32())
    return std::nullopt;
  std::optional<TensorWindow> wc = tensorWindowOf(store);
  if (!wc || wc->slice || wc->rowOffset || wc->colOffset || !same(wc->row0, m.a.row0) || !same(wc->col0, m.b.col0) ||
      !same(wc->rows, m.a.rows) || !same(wc->cols, m.b.cols))
    return std::nullopt;
  if (Operation *def = wc->stride.getDefiningOp(); def && loop->isAncestor(def))
    return std::nullopt;
  m.c = *wc;
  m.store = store;
  return m;
}

/// Records that the kernel's code assumes `v` (a kernel argument or a constant) divisible by
/// `block`; false where a constant is not.
bool assumeDivisible(func::FuncOp f, Value v, int64_t block, std::map<unsigned, int64_t> &divisors) {
  if (std::optional<int64_t> c = constantOf(v))
    return *c % block == 0;
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &f.getBody().front() || !v.getType().isInteger(32))
    return false;
  int64_t &d = divisors[arg.getArgNumber()];
  d = d ? std::lcm(d, block) : block;
  return true;
}

} // namespace

int64_t formWorkgroupMatmuls(func::FuncOp f, bool bf16, int64_t threads) {
  // NVIDIA's driver takes workgroup-scope matrices in workgroups of up to 256 invocations
  // (cooperativeMatrixWorkgroupScopeMaxWorkgroupSize; the runtime checks the device's).
  if (threads > kMaxWorkgroupMatrixThreads)
    return 0;
  std::vector<Candidate> found;
  std::map<unsigned, int64_t> divisors;
  f.walk([&](scf::ForOp loop) {
    if (loop->getParentOp() != f.getOperation())
      return;
    std::optional<Candidate> m = match(loop, bf16);
    if (!m)
      return;
    // The strides too are multiples of 8 elements (16 bytes of f16): the sizes' divisors give
    // that where a stride is one of them; `& ~7` then tells the driver (below).
    std::map<unsigned, int64_t> tried = divisors;
    if (assumeDivisible(f, m->a.rows, m->bm, tried) && assumeDivisible(f, m->b.cols, m->bn, tried) &&
        assumeDivisible(f, m->loop.getUpperBound(), m->bk, tried) && assumeDivisible(f, m->a.stride, 8, tried) &&
        assumeDivisible(f, m->b.stride, 8, tried) && assumeDivisible(f, m->c.stride, 8, tried)) {
      divisors = tried;
      found.push_back(*m);
    }
  });
  for (Candidate &m : found) {
    OpBuilder b(m.store);
    Location loc = m.loop.getLoc();
    auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
    Value inRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m.a.row0, m.a.rows);
    Value inCols = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m.b.col0, m.b.cols);
    Value inside = arith::AndIOp::create(b, loc, inRows, inCols);
    auto branch = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    // Offsets and strides as multiples of 8 (x & ~7, which they are): the driver's loads of the
    // matrices can then move 16 bytes at a time.
    auto aligned = [&](Value v) -> Value { return arith::AndIOp::create(b, loc, v, i32(~int64_t(7))); };
    Value aStride = aligned(m.a.stride), bStride = aligned(m.b.stride), cStride = aligned(m.c.stride);
    Value aOffset = aligned(arith::MulIOp::create(b, loc, m.a.row0, aStride));
    Value bOffset = aligned(m.b.col0);
    Value steps = arith::DivSIOp::create(b, loc, m.loop.getUpperBound(), i32(m.bk));
    Value cOffset = aligned(arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, m.c.row0, cStride), m.c.col0));
    tile::WorkgroupMatmulOp::create(b, loc, m.a.buffer, aOffset, aStride, m.b.buffer, bOffset, bStride, steps,
                                    m.c.buffer, cOffset, cStride, m.bias, m.bias ? bOffset : Value(),
                                    b.getI64IntegerAttr(m.bm), b.getI64IntegerAttr(m.bn), b.getI64IntegerAttr(m.bk),
                                    TypeAttr::get(m.in));
    m.store->erase();
    // The epilogue's ops, each once nothing uses it, then the loop.
    while (!m.epilogue.empty())
      for (auto it = m.epilogue.begin(); it != m.epilogue.end();)
        if ((*it)->use_empty()) {
          (*it)->erase();
          it = m.epilogue.erase(it);
        } else {
          ++it;
        }
    m.loop->erase();
  }
  if (found.empty())
    return 0;
  // What the loops and epilogues computed alone (offsets, masks) is dead now.
  bool changed = true;
  while (changed) {
    changed = false;
    f.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op != f.getOperation() && isOpTriviallyDead(op)) {
        op->erase();
        changed = true;
      }
    });
  }
  SmallVector<int64_t> flat;
  for (auto [arg, d] : divisors)
    flat.append({int64_t(arg), d});
  f->setAttr(kWorkgroupDivisorsAttr, DenseI64ArrayAttr::get(f.getContext(), flat));
  return int64_t(found.size());
}

namespace {

/// tile.workgroup_matmul after the kernel's conversion: the same op on the converted buffers.
struct WorkgroupMatmulToGPU final : OpConversionPattern<tile::WorkgroupMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::WorkgroupMatmulOp op, OpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    r.modifyOpInPlace(op, [&] { op->setOperands(adaptor.getOperands()); });
    return success();
  }
};

} // namespace

void populateWorkgroupMatmulToGPUPatterns(TypeConverter &converter, RewritePatternSet &patterns,
                                          ConversionTarget &legal) {
  patterns.add<WorkgroupMatmulToGPU>(converter, patterns.getContext());
  legal.addDynamicallyLegalOp<tile::WorkgroupMatmulOp>(
      [](tile::WorkgroupMatmulOp op) { return isa<MemRefType>(op.getA().getType()); });
}

} // namespace tessera::backend
