// The tracer: records each tile-language call of a kernel function as tile IR, checking
// shapes and types as it goes and reporting mistakes at the user's source line.
#include "KernelImpl.hpp"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdio>
#include <cmath>
#include <limits>

using namespace mlir;
using tessera::tl::BinaryOp;
using tessera::tl::Number;
using tessera::tl::SourceLoc;

namespace tessera::tracer {
namespace {

/// A mistake in the user's kernel; `trace` turns it into a CompileError Status.
struct UserError {
  std::string message;
  SourceLoc loc;
};

[[noreturn]] void fail(SourceLoc loc, std::string message) { throw UserError{std::move(message), loc}; }

const char *binaryName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::And: return "&";
  case BinaryOp::Or: return "|";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  }
  return "?";
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt; }
bool isLogical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or; }

/// One kernel being traced. Values are referred to from the public API by index.
struct TraceState {
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  OpBuilder builder;
  std::vector<Value> values;
  std::vector<BlockArgument> args;

  explicit TraceState(std::shared_ptr<MLIRContext> ctx) : context(std::move(ctx)), builder(context.get()) {}

  Location loc(SourceLoc l) {
    return FileLineColLoc::get(context.get(), l.file_name(), l.line(), l.column());
  }
  uint32_t add(Value v) {
    values.push_back(v);
    return uint32_t(values.size() - 1);
  }
  Value get(uint32_t id, SourceLoc l) {
    if (id >= values.size())
      fail(l, "this tile was not produced by the kernel being traced (a default-constructed "
              "tl::Tile, or one kept from another trace)");
    return values[id];
  }
};

thread_local TraceState *current = nullptr;

TraceState &state(SourceLoc loc) {
  if (!current)
    fail(loc, "tile-language operations can only run inside tessera::trace");
  return *current;
}

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

std::string describe(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  Type t = v.getType();
  if (auto r = dyn_cast<RankedTensorType>(t)) {
    os << "a tile of " << r.getDimSize(0) << " x " << r.getElementType();
  } else {
    os << "a scalar " << t;
  }
  return s;
}

std::string typeName(Type t) {
  if (t.isInteger(1))
    return "bool";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

int64_t lengthOf(Value v) {
  if (auto r = dyn_cast<RankedTensorType>(v.getType()))
    return r.getDimSize(0);
  return 0; // scalar
}

/// Broadcasts a scalar to the shape of `like` (Triton's rule for a scalar and a 1-D tile).
Value broadcastTo(TraceState &st, Value v, int64_t length, Location loc) {
  if (length == 0 || isa<RankedTensorType>(v.getType()))
    return v;
  auto type = RankedTensorType::get({length}, v.getType());
  return tile::SplatOp::create(st.builder, loc, type, v);
}

/// Makes two operands agree in shape, or explains why they cannot.
std::pair<Value, Value> unify(TraceState &st, Value a, Value b, const char *what, SourceLoc sl) {
  int64_t la = lengthOf(a), lb = lengthOf(b);
  if (la != 0 && lb != 0 && la != lb)
    fail(sl, std::string("shape mismatch in '") + what + "': " + describe(a) + " and " + describe(b) +
                 "; both sides must have the same length, or one must be a scalar");
  int64_t length = la ? la : lb;
  Location loc = st.loc(sl);
  return {broadcastTo(st, a, length, loc), broadcastTo(st, b, length, loc)};
}

std::string formatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

Value constantLike(TraceState &st, Type elem, Number n, SourceLoc sl) {
  Location loc = st.loc(sl);
  if (elem.isF32()) {
    double v = n.isFloat ? n.f : double(n.i);
    return arith::ConstantOp::create(st.builder, loc, st.builder.getF32FloatAttr(float(v)));
  }
  if (elem.isInteger(1))
    fail(sl, "a number cannot be combined with a mask; compare it to get a mask, or use & and | "
             "between masks");
  if (n.isFloat)
    fail(sl, "the floating-point constant " + formatNumber(n.f) +
                 " is combined with an i32 tile; write an integer constant");
  if (n.i < std::numeric_limits<int32_t>::min() || n.i > std::numeric_limits<int32_t>::max())
    fail(sl, "the constant " + std::to_string(n.i) + " does not fit in i32");
  return arith::ConstantOp::create(st.builder, loc, st.builder.getI32IntegerAttr(int32_t(n.i)));
}

Value emitBinary(TraceState &st, BinaryOp op, Value a, Value b, SourceLoc sl) {
  Type ea = elementTypeOf(a), eb = elementTypeOf(b);
  if (ea != eb)
    fail(sl, std::string("type mismatch in '") + binaryName(op) + "': " + typeName(ea) + " and " +
                 typeName(eb) + "; both operands must have the same element type");
  auto [x, y] = unify(st, a, b, binaryName(op), sl);
  Location loc = st.loc(sl);
  OpBuilder &bld = st.builder;
  bool isMask = ea.isInteger(1), isFloat = ea.isF32();
  if (isMask != isLogical(op)) {
    if (isMask)
      fail(sl, std::string("'") + binaryName(op) + "' is not defined on masks; use & , | and ! "
               "to combine masks");
    fail(sl, std::string("'") + binaryName(op) + "' needs masks (bool tiles), got " + typeName(ea) +
                 "; compare values first, e.g. (offs < n) & (offs >= 0)");
  }
  switch (op) {
  case BinaryOp::Add: return isFloat ? Value(arith::AddFOp::create(bld, loc, x, y)) : Value(arith::AddIOp::create(bld, loc, x, y));
  case BinaryOp::Sub: return isFloat ? Value(arith::SubFOp::create(bld, loc, x, y)) : Value(arith::SubIOp::create(bld, loc, x, y));
  case BinaryOp::Mul: return isFloat ? Value(arith::MulFOp::create(bld, loc, x, y)) : Value(arith::MulIOp::create(bld, loc, x, y));
  case BinaryOp::Div: return isFloat ? Value(arith::DivFOp::create(bld, loc, x, y)) : Value(arith::DivSIOp::create(bld, loc, x, y));
  case BinaryOp::Rem: return isFloat ? Value(arith::RemFOp::create(bld, loc, x, y)) : Value(arith::RemSIOp::create(bld, loc, x, y));
  case BinaryOp::And: return arith::AndIOp::create(bld, loc, x, y);
  case BinaryOp::Or: return arith::OrIOp::create(bld, loc, x, y);
  default: break;
  }
  // Comparisons: ordered for floats (false when either side is NaN), except != which is true
  // for NaN, as in C++.
  if (isFloat) {
    arith::CmpFPredicate p;
    switch (op) {
    case BinaryOp::Lt: p = arith::CmpFPredicate::OLT; break;
    case BinaryOp::Le: p = arith::CmpFPredicate::OLE; break;
    case BinaryOp::Gt: p = arith::CmpFPredicate::OGT; break;
    case BinaryOp::Ge: p = arith::CmpFPredicate::OGE; break;
    case BinaryOp::Eq: p = arith::CmpFPredicate::OEQ; break;
    default: p = arith::CmpFPredicate::UNE; break;
    }
    return arith::CmpFOp::create(bld, loc, p, x, y);
  }
  arith::CmpIPredicate p;
  switch (op) {
  case BinaryOp::Lt: p = arith::CmpIPredicate::slt; break;
  case BinaryOp::Le: p = arith::CmpIPredicate::sle; break;
  case BinaryOp::Gt: p = arith::CmpIPredicate::sgt; break;
  case BinaryOp::Ge: p = arith::CmpIPredicate::sge; break;
  case BinaryOp::Eq: p = arith::CmpIPredicate::eq; break;
  default: p = arith::CmpIPredicate::ne; break;
  }
  return arith::CmpIOp::create(bld, loc, p, x, y);
}

Type mlirType(MLIRContext *ctx, DType t) {
  switch (t) {
  case DType::F32: return Float32Type::get(ctx);
  case DType::I32: return IntegerType::get(ctx, 32);
  case DType::Bool: return IntegerType::get(ctx, 1);
  }
  return {};
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

} // namespace
} // namespace tessera::tracer

namespace tessera::detail {
using namespace tessera::tracer;

Result<TracedKernel> runTrace(std::string name, const std::vector<ParamDecl> &params,
                        const KernelOptions &options, SourceLoc loc,
                        const std::function<void(const std::vector<uint32_t> &)> &body) {
  auto where = [&](const std::string &msg) {
    return Status(StatusCode::CompileError, std::string(loc.file_name()) + ":" + std::to_string(loc.line()) +
                                                ": error: " + msg);
  };
  if (!isIdentifier(name))
    return where("kernel name '" + name + "' is not an identifier; use letters, digits and '_'");
  if (!tile::isPowerOfTwo(options.numWarps) || options.numWarps > 32)
    return where("numWarps = " + std::to_string(options.numWarps) +
                 " must be a power of two from 1 to 32");
  if (!options.argNames.empty() && options.argNames.size() != params.size())
    return where("argNames has " + std::to_string(options.argNames.size()) + " names but the kernel has " +
                 std::to_string(params.size()) + " parameters");
  if (current)
    return where("tessera::trace was called while another kernel was being traced");

  TraceState st(makeTileContext());
  MLIRContext *ctx = st.context.get();
  Location kernelLoc = st.loc(loc);
  st.module = ModuleOp::create(kernelLoc);
  st.builder.setInsertionPointToEnd(st.module->getBody());

  SmallVector<Type> argTypes;
  for (const ParamDecl &p : params) {
    Type elem = mlirType(ctx, p.dtype);
    argTypes.push_back(p.kind == ArgKind::Buffer ? Type(tile::PtrType::get(ctx, elem)) : elem);
  }
  st.func = func::FuncOp::create(st.builder, kernelLoc, name, FunctionType::get(ctx, argTypes, {}));
  st.func->setAttr(tile::kKernelAttr, UnitAttr::get(ctx));
  st.func->setAttr(tile::kNumWarpsAttr, st.builder.getI32IntegerAttr(int32_t(options.numWarps)));
  Block *entry = st.func.addEntryBlock();
  std::vector<uint32_t> ids;
  for (unsigned i = 0; i < params.size(); ++i) {
    std::string argName = options.argNames.empty() ? "arg" + std::to_string(i) : options.argNames[i];
    if (!isIdentifier(argName))
      return where("argument name '" + argName + "' is not an identifier");
    st.func.setArgAttr(i, tile::kArgNameAttr, StringAttr::get(ctx, argName));
    st.args.push_back(entry->getArgument(i));
    ids.push_back(params[i].kind == ArgKind::Scalar ? st.add(entry->getArgument(i)) : ~0u);
  }
  st.builder.setInsertionPointToStart(entry);

  current = &st;
  try {
    body(ids);
  } catch (const UserError &e) {
    current = nullptr;
    return Status(StatusCode::CompileError, std::string(e.loc.file_name()) + ":" + std::to_string(e.loc.line()) +
                                                ":" + std::to_string(e.loc.column()) + ": error: " + e.message);
  }
  current = nullptr;
  func::ReturnOp::create(st.builder, kernelLoc);

  // The tracer checks user mistakes itself, so a verifier failure here is our bug.
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  if (failed(verify(*st.module)))
    return Status(StatusCode::Internal, "the traced tile IR of '" + name + "' does not verify:\n" + diagnostics);

  Result<TracedKernel> k = kernelFromFunc(st.context, std::move(st.module));
  if (k && !options.argNames.empty())
    for (size_t i = 0; i < params.size(); ++i)
      k->impl_->signature[i].name = options.argNames[i];
  return k;
}

} // namespace tessera::detail

namespace tessera::tl {
using namespace tessera::tracer;

namespace detail {

uint32_t binary(BinaryOp op, uint32_t lhs, uint32_t rhs, SourceLoc loc) {
  auto &st = state(loc);
  return st.add(emitBinary(st, op, st.get(lhs, loc), st.get(rhs, loc), loc));
}

uint32_t binaryConst(BinaryOp op, uint32_t lhs, Number rhs, bool constOnLeft, SourceLoc loc) {
  auto &st = state(loc);
  Value t = st.get(lhs, loc);
  Value c = constantLike(st, elementTypeOf(t), rhs, loc);
  Value v = constOnLeft ? emitBinary(st, op, c, t, loc) : emitBinary(st, op, t, c, loc);
  return st.add(v);
}

uint32_t logicalNot(uint32_t value, SourceLoc loc) {
  auto &st = state(loc);
  Value v = st.get(value, loc);
  if (!elementTypeOf(v).isInteger(1))
    fail(loc, "'!' needs a mask (bool tile), got " + describe(v));
  Location l = st.loc(loc);
  Value one = arith::ConstantOp::create(st.builder, l, st.builder.getBoolAttr(true));
  one = broadcastTo(st, one, lengthOf(v), l);
  return st.add(arith::XOrIOp::create(st.builder, l, v, one));
}

uint32_t negate(uint32_t value, SourceLoc loc) {
  auto &st = state(loc);
  Value v = st.get(value, loc);
  Type e = elementTypeOf(v);
  Location l = st.loc(loc);
  if (e.isF32())
    return st.add(arith::NegFOp::create(st.builder, l, v));
  if (e.isInteger(1))
    fail(loc, "unary '-' is not defined on masks; use '!'");
  Value zero = constantLike(st, e, Number(0), loc);
  auto [z, x] = unify(st, zero, v, "-", loc);
  return st.add(arith::SubIOp::create(st.builder, l, z, x));
}

uint32_t checkOffsets(uint32_t offsets, SourceLoc loc) {
  auto &st = state(loc);
  Value v = st.get(offsets, loc);
  if (!elementTypeOf(v).isSignlessInteger(32))
    fail(loc, "pointer offsets must be an i32 tile, got " + describe(v));
  if (!isa<RankedTensorType>(v.getType()))
    fail(loc, "pointer offsets must be a 1-D tile, got a scalar; add tl::arange(0, N) to address "
              "N elements");
  return offsets;
}

DType dtypeOf(uint32_t value) {
  auto loc = SourceLoc::current();
  Type e = elementTypeOf(state(loc).get(value, loc));
  if (e.isF32())
    return DType::F32;
  if (e.isInteger(1))
    return DType::Bool;
  return DType::I32;
}

std::vector<int64_t> shapeOf(uint32_t value) {
  auto loc = SourceLoc::current();
  Value v = state(loc).get(value, loc);
  if (auto r = dyn_cast<RankedTensorType>(v.getType()))
    return {r.getShape().begin(), r.getShape().end()};
  return {};
}

} // namespace detail

static Value gridQuery(bool isNum, int axis, SourceLoc loc) {
  auto &st = state(loc);
  if (axis < 0 || axis > 2)
    fail(loc, std::string(isNum ? "num_programs" : "program_id") + " axis " + std::to_string(axis) +
                  " is out of range; the grid has axes 0, 1 and 2");
  Location l = st.loc(loc);
  Type i32 = st.builder.getI32Type();
  if (isNum)
    return tile::NumProgramsOp::create(st.builder, l, i32, axis);
  return tile::ProgramIdOp::create(st.builder, l, i32, axis);
}

Tile program_id(int axis, SourceLoc loc) { return Tile(state(loc).add(gridQuery(false, axis, loc))); }
Tile num_programs(int axis, SourceLoc loc) { return Tile(state(loc).add(gridQuery(true, axis, loc))); }

Tile arange(int32_t lo, int32_t hi, SourceLoc loc) {
  auto &st = state(loc);
  if (hi <= lo)
    fail(loc, "arange(" + std::to_string(lo) + ", " + std::to_string(hi) + ") is empty; hi must be greater than lo");
  int64_t n = int64_t(hi) - lo;
  if (!tile::isPowerOfTwo(n))
    fail(loc, "arange(" + std::to_string(lo) + ", " + std::to_string(hi) + ") has " + std::to_string(n) +
                  " elements; tile lengths must be powers of two (mask the tail instead, e.g. "
                  "arange(0, 1024) with offs < n)");
  if (n > (1 << 20))
    fail(loc, "arange of " + std::to_string(n) + " elements is larger than the 2^20 a tile may hold");
  auto type = RankedTensorType::get({n}, st.builder.getI32Type());
  return Tile(st.add(tile::ArangeOp::create(st.builder, st.loc(loc), type, lo, hi)));
}

Tile full(int64_t length, Number value, DType dtype, SourceLoc loc) {
  auto &st = state(loc);
  if (!tile::isPowerOfTwo(length))
    fail(loc, "full() of " + std::to_string(length) + " elements: tile lengths must be powers of two");
  if (dtype == DType::Bool)
    fail(loc, "full() makes f32 or i32 tiles; compare values to make a mask");
  Value c = constantLike(st, mlirType(st.context.get(), dtype), value, loc);
  return Tile(st.add(broadcastTo(st, c, length, st.loc(loc))));
}

/// Resolves a PtrTile's base argument and checks the mask of a load or store.
static std::pair<Value, Value> access(const PtrTile &p, const Tile *mask, const char *what, SourceLoc loc) {
  auto &st = state(loc);
  if (p.arg() >= st.args.size() || !isa<tile::PtrType>(st.args[p.arg()].getType()))
    fail(loc, std::string(what) + " through a pointer that is not a buffer argument of this kernel");
  Value offs = st.get(p.offsets().id(), loc);
  Value m;
  if (mask) {
    m = st.get(mask->id(), loc);
    if (!elementTypeOf(m).isInteger(1))
      fail(loc, std::string(what) + " mask must be a mask (bool tile), got " + describe(m) +
                    "; compare to make one, e.g. offs < n");
    int64_t lm = lengthOf(m), lo = lengthOf(offs);
    if (lm != 0 && lm != lo)
      fail(loc, std::string("shape mismatch in ") + what + ": the offsets are " + describe(offs) +
                    " but the mask is " + describe(m));
    m = broadcastTo(st, m, lo, st.loc(loc));
  }
  return {offs, m};
}

static Tile loadImpl(const PtrTile &p, const Tile *mask, const Tile *otherTile, const Number *otherNum,
                     SourceLoc loc) {
  auto &st = state(loc);
  auto [offs, m] = access(p, mask, "load", loc);
  Value ptr = st.args[p.arg()];
  Type elem = cast<tile::PtrType>(ptr.getType()).getElementType();
  int64_t n = lengthOf(offs);
  auto resultType = RankedTensorType::get({n}, elem);
  Location l = st.loc(loc);
  Value other;
  if (otherNum) {
    other = broadcastTo(st, constantLike(st, elem, *otherNum, loc), n, l);
  } else if (otherTile) {
    other = st.get(otherTile->id(), loc);
    if (elementTypeOf(other) != elem)
      fail(loc, "load 'other' has element type " + typeName(elementTypeOf(other)) +
                    " but the buffer holds " + typeName(elem));
    if (lengthOf(other) != 0 && lengthOf(other) != n)
      fail(loc, "shape mismatch in load: the offsets are " + describe(offs) + " but 'other' is " +
                    describe(other));
    other = broadcastTo(st, other, n, l);
  }
  return Tile(st.add(tile::LoadOp::create(st.builder, l, resultType, ptr, offs, m, other)));
}

Tile load(const PtrTile &p, SourceLoc loc) { return loadImpl(p, nullptr, nullptr, nullptr, loc); }
Tile load(const PtrTile &p, const Tile &mask, SourceLoc loc) { return loadImpl(p, &mask, nullptr, nullptr, loc); }
Tile load(const PtrTile &p, const Tile &mask, Number other, SourceLoc loc) {
  return loadImpl(p, &mask, nullptr, &other, loc);
}
Tile load(const PtrTile &p, const Tile &mask, const Tile &other, SourceLoc loc) {
  return loadImpl(p, &mask, &other, nullptr, loc);
}

static void storeImpl(const PtrTile &p, const Tile &values, const Tile *mask, SourceLoc loc) {
  auto &st = state(loc);
  auto [offs, m] = access(p, mask, "store", loc);
  Value ptr = st.args[p.arg()];
  Type elem = cast<tile::PtrType>(ptr.getType()).getElementType();
  Value v = st.get(values.id(), loc);
  if (elementTypeOf(v) != elem)
    fail(loc, "store of " + typeName(elementTypeOf(v)) + " values into a buffer of " +
                  typeName(elem) + "; the element types must match");
  int64_t n = lengthOf(offs);
  if (lengthOf(v) != 0 && lengthOf(v) != n)
    fail(loc, "shape mismatch in store: the offsets are " + describe(offs) + " but the values are " +
                  describe(v));
  v = broadcastTo(st, v, n, st.loc(loc));
  tile::StoreOp::create(st.builder, st.loc(loc), ptr, offs, v, m);
}

void store(const PtrTile &p, const Tile &values, SourceLoc loc) { storeImpl(p, values, nullptr, loc); }
void store(const PtrTile &p, const Tile &values, const Tile &mask, SourceLoc loc) {
  storeImpl(p, values, &mask, loc);
}

} // namespace tessera::tl
