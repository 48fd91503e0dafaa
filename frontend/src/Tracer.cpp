// The tracer: runs a kernel function once with symbolic arguments, recording each tile-language
// call as tile IR; plus the value, dtype and shape helpers every traced operation shares.
#include "TraceState.hpp"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace mlir;

namespace tessera::tracer {

void fail(SourceLoc loc, std::string message) { throw UserError{std::move(message), loc}; }

std::vector<int64_t> TVal::shape() const {
  if (auto r = dyn_cast<RankedTensorType>(value.getType()))
    return {r.getShape().begin(), r.getShape().end()};
  return {};
}

Location TraceState::loc(SourceLoc l) { return FileLineColLoc::get(ctx(), l.file_name(), l.line(), l.column()); }

uint32_t TraceState::add(Value v, DType t) {
  values.push_back({v, t});
  return uint32_t(values.size() - 1);
}

const TVal &TraceState::get(uint32_t id, SourceLoc l) {
  if (id >= values.size())
    fail(l, "this tile was not produced by the kernel being traced (a default-constructed tl::Tile, or "
            "one kept from another trace); make it with a tile-language operation inside this kernel");
  const TVal &v = values[id];
  // A tile made inside a for_range body lives only there (its region), like a C++ local.
  if (mlir::Block *here = builder.getInsertionBlock())
    if (mlir::Region *home = mlir::Value(v.value).getParentRegion(); home && !home->isAncestor(here->getParent()))
      fail(l, "this tile was made inside a for_range body and is used after the loop; return it as part of the "
              "loop's state to use it outside");
  return v;
}

static thread_local TraceState *current = nullptr;

TraceState &state(SourceLoc loc) {
  if (!current)
    fail(loc, "tile-language operations can only run inside tessera::trace");
  return *current;
}

// ---- dtypes ---------------------------------------------------------------------------------

Type mlirType(MLIRContext *ctx, DType t) {
  switch (t) {
  case DType::F32: return Float32Type::get(ctx);
  case DType::F16: return Float16Type::get(ctx);
  case DType::BF16: return BFloat16Type::get(ctx);
  case DType::Bool: return IntegerType::get(ctx, 1);
  case DType::I8:
  case DType::U8: return IntegerType::get(ctx, 8);
  case DType::I16: return IntegerType::get(ctx, 16);
  case DType::I32:
  case DType::U32: return IntegerType::get(ctx, 32);
  case DType::I64: return IntegerType::get(ctx, 64);
  }
  return {};
}

DType computeType(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16: return DType::F32;
  case DType::I8:
  case DType::I16: return DType::I32;
  case DType::U8: return DType::U32;
  default: return t;
  }
}

const char *dtypeName(DType t) { return toString(t).data(); }

int bitWidth(DType t) { return t == DType::Bool ? 1 : int(sizeOf(t) * 8); }

// ---- shapes ---------------------------------------------------------------------------------

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? " x " : "") + std::to_string(shape[i]);
  return s;
}

std::string describe(const TVal &v) {
  if (v.isScalar())
    return std::string("a scalar ") + dtypeName(v.dtype);
  return "a tile of " + shapeString(v.shape()) + " x " + dtypeName(v.dtype);
}

Type tileType(MLIRContext *ctx, const std::vector<int64_t> &shape, DType t) {
  Type e = mlirType(ctx, t);
  return shape.empty() ? e : Type(RankedTensorType::get(shape, e));
}

void checkShape(const std::vector<int64_t> &shape, SourceLoc loc, const char *what) {
  if (shape.size() > 3)
    fail(loc, std::string(what) + ": tiles have at most 3 dimensions, got " + std::to_string(shape.size()) +
                  "; fold dimensions together with reshape");
  int64_t total = 1;
  for (int64_t d : shape) {
    if (!tile::isPowerOfTwo(d))
      fail(loc, std::string(what) + ": shape [" + shapeString(shape) + "] has a dimension that is not a power of "
                    "two; pad it to the next power of two and mask the tail");
    total *= d;
  }
  if (total > (1 << 20))
    fail(loc, std::string(what) + ": a tile of " + std::to_string(total) + " elements is larger than the 2^20 "
                  "a tile may hold; split the work over more programs");
}

std::vector<int64_t> broadcastShape(const TVal &a, const TVal &b, const char *what, SourceLoc loc) {
  std::vector<int64_t> sa = a.shape(), sb = b.shape();
  size_t r = std::max(sa.size(), sb.size());
  sa.insert(sa.begin(), r - sa.size(), 1);
  sb.insert(sb.begin(), r - sb.size(), 1);
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      fail(loc, std::string("shape mismatch in '") + what + "': " + describe(a) + " and " + describe(b) +
                    "; each dimension must match or be 1 (Triton's broadcasting rules): reshape or expand_dims one operand "
                    "so its dimensions line up");
    out[i] = std::max(sa[i], sb[i]);
  }
  if (a.isScalar() && b.isScalar())
    return {};
  return out;
}

TVal broadcastTo(TraceState &st, const TVal &v, const std::vector<int64_t> &shape, SourceLoc loc, const char *what) {
  std::vector<int64_t> have = v.shape();
  if (have == shape)
    return v;
  Location l = st.loc(loc);
  if (v.isScalar())
    return {tile::SplatOp::create(st.builder, l, tileType(st.ctx(), shape, v.dtype), v.value), v.dtype};
  if (have.size() > shape.size())
    fail(loc, std::string("cannot broadcast ") + describe(v) + " to [" + shapeString(shape) + "] in " + what +
                  ": the shape has fewer dimensions than the tile; reduce or reshape the tile first");
  TVal cur = v;
  while (have.size() < shape.size()) { // leading 1s
    have.insert(have.begin(), 1);
    cur = {tile::ExpandDimsOp::create(st.builder, l, tileType(st.ctx(), have, v.dtype), cur.value, 0), v.dtype};
  }
  for (size_t i = 0; i < shape.size(); ++i)
    if (have[i] != shape[i] && have[i] != 1)
      fail(loc, std::string("cannot broadcast ") + describe(v) + " to [" + shapeString(shape) + "] in " + what +
                    ": dimension " + std::to_string(i) + " is " + std::to_string(have[i]) +
                    "; only dimensions of size 1 repeat: reshape or expand_dims the tile so its dimensions line up");
  if (have == shape)
    return cur;
  return {tile::BroadcastOp::create(st.builder, l, tileType(st.ctx(), shape, v.dtype), cur.value), v.dtype};
}

// ---- values ---------------------------------------------------------------------------------

static std::string formatNumber(const Number &n) {
  if (!n.isFloat)
    return std::to_string(n.i);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", n.f);
  return buf;
}

TVal constant(TraceState &st, DType t, Number n, const std::vector<int64_t> &shape, SourceLoc loc) {
  Location l = st.loc(loc);
  Type type = mlirType(st.ctx(), t);
  Value c;
  if (isFloat(t)) {
    double v = n.isFloat ? n.f : double(n.i);
    c = arith::ConstantOp::create(st.builder, l, FloatAttr::get(type, v));
  } else if (t == DType::Bool) {
    fail(loc, "a number cannot be combined with a mask; compare it to get a mask, or use & and | between masks");
  } else {
    if (n.isFloat)
      fail(loc, "the floating-point constant " + formatNumber(n) + " is combined with an " + dtypeName(t) +
                    " tile; write an integer constant, or tl::cast the tile to a float type");
    int w = bitWidth(t);
    bool fits = isUnsigned(t) ? n.i >= 0 && (w == 64 || n.i < (int64_t(1) << w))
                              : w == 64 || (n.i >= -(int64_t(1) << (w - 1)) && n.i < (int64_t(1) << (w - 1)));
    if (!fits)
      fail(loc, "the constant " + formatNumber(n) + " does not fit in " + dtypeName(t) +
                    "; use a constant in its range, or tl::cast the tile to a wider type first");
    c = arith::ConstantOp::create(st.builder, l, IntegerAttr::get(type, APInt(w, uint64_t(n.i), !isUnsigned(t))));
  }
  return broadcastTo(st, {c, t}, shape, loc, "a constant");
}

static Type sameShape(TraceState &st, const TVal &v, DType t) { return tileType(st.ctx(), v.shape(), t); }

TVal widen(TraceState &st, const TVal &v, SourceLoc loc) {
  DType c = computeType(v.dtype);
  if (c == v.dtype)
    return v;
  Location l = st.loc(loc);
  Type to = sameShape(st, v, c);
  if (isFloat(v.dtype))
    return {arith::ExtFOp::create(st.builder, l, to, v.value), c};
  if (isUnsigned(v.dtype))
    return {arith::ExtUIOp::create(st.builder, l, to, v.value), c};
  return {arith::ExtSIOp::create(st.builder, l, to, v.value), c};
}

TVal narrow(TraceState &st, const TVal &v, DType to, SourceLoc loc) {
  if (v.dtype == to)
    return v;
  Location l = st.loc(loc);
  Type type = sameShape(st, v, to);
  if (isFloat(to)) // round to nearest even
    return {arith::TruncFOp::create(st.builder, l, type, v.value), to};
  return {arith::TruncIOp::create(st.builder, l, type, v.value), to};
}

/// float -> integer: truncation toward zero, saturating, NaN -> 0 (SPIR-V and LLVM leave the
/// out-of-range cases undefined, so the bounds are applied before converting).
static TVal floatToInt(TraceState &st, const TVal &f32, DType to, SourceLoc loc) {
  Location l = st.loc(loc);
  OpBuilder &b = st.builder;
  DType wide = (to == DType::I64) ? DType::I64 : (isUnsigned(to) ? DType::U32 : DType::I32);
  // (no 64-bit unsigned dtype, so the unsigned limit 2^32 always fits below)
  int w = bitWidth(wide);
  bool uns = isUnsigned(wide);
  double lo = uns ? 0.0 : -std::ldexp(1.0, w - 1), hiExcl = uns ? std::ldexp(1.0, w) : std::ldexp(1.0, w - 1);
  float loF = float(lo), hiBelow = std::nextafter(float(hiExcl), 0.0f); // largest float below the limit
  auto fconst = [&](float v) { return constant(st, DType::F32, Number(v), f32.shape(), loc).value; };
  auto cmp = [&](arith::CmpFPredicate p, Value a, Value c) { return arith::CmpFOp::create(b, l, p, a, c); };
  Value x = f32.value;
  Value clamped = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OLT, x, fconst(loF)), fconst(loF), x);
  clamped = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OGT, clamped, fconst(hiBelow)), fconst(hiBelow), clamped);
  Type it = sameShape(st, f32, wide);
  Value r = uns ? Value(arith::FPToUIOp::create(b, l, it, clamped)) : Value(arith::FPToSIOp::create(b, l, it, clamped));
  int64_t maxInt = uns ? int64_t((uint64_t(1) << w) - 1) : int64_t((uint64_t(1) << (w - 1)) - 1);
  Value top = constant(st, wide, Number(maxInt), f32.shape(), loc).value;
  Value zero = constant(st, wide, Number(0), f32.shape(), loc).value;
  r = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OGE, x, fconst(float(hiExcl))), top, r);
  r = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::UNO, x, x), zero, r);
  TVal result{r, wide};
  if (wide == to)
    return result;
  // Narrower integers saturate to their own range, then wrap (which is exact after clamping).
  int tw = bitWidth(to);
  int64_t tlo = isUnsigned(to) ? 0 : -(int64_t(1) << (tw - 1)), thi = isUnsigned(to) ? (int64_t(1) << tw) - 1 : (int64_t(1) << (tw - 1)) - 1;
  Value lov = constant(st, wide, Number(tlo), f32.shape(), loc).value, hiv = constant(st, wide, Number(thi), f32.shape(), loc).value;
  Value v = uns ? Value(arith::MaxUIOp::create(b, l, r, lov)) : Value(arith::MaxSIOp::create(b, l, r, lov));
  v = uns ? Value(arith::MinUIOp::create(b, l, v, hiv)) : Value(arith::MinSIOp::create(b, l, v, hiv));
  return narrow(st, {v, wide}, to, loc);
}

TVal convert(TraceState &st, const TVal &v, DType to, SourceLoc loc) {
  if (v.dtype == to)
    return v;
  Location l = st.loc(loc);
  OpBuilder &b = st.builder;
  Type target = sameShape(st, v, to);
  DType from = v.dtype;
  if (to == DType::Bool) { // x != 0 (NaN counts as true, as in C++)
    if (isFloat(from)) {
      TVal w = widen(st, v, loc);
      return {arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, w.value, constant(st, DType::F32, Number(0), v.shape(), loc).value), to};
    }
    return {arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v.value, constant(st, from, Number(0), v.shape(), loc).value), to};
  }
  if (from == DType::Bool) {
    if (isFloat(to))
      return {arith::UIToFPOp::create(b, l, target, v.value), to};
    return {arith::ExtUIOp::create(b, l, target, v.value), to};
  }
  if (isFloat(from) && isFloat(to)) {
    TVal f = widen(st, v, loc); // exact
    return narrow(st, f, to, loc);
  }
  if (isFloat(from))
    return floatToInt(st, widen(st, v, loc), to, loc);
  if (isFloat(to)) {
    // Integers convert to f32 (or f16) with one rounding; bf16 goes through f32.
    DType via = to == DType::BF16 ? DType::F32 : to;
    Type vt = sameShape(st, v, via);
    Value f = isUnsigned(from) ? Value(arith::UIToFPOp::create(b, l, vt, v.value)) : Value(arith::SIToFPOp::create(b, l, vt, v.value));
    return narrow(st, {f, via}, to, loc);
  }
  // Integer to integer: wrap when narrowing, extend by the source's signedness when widening.
  int fw = bitWidth(from), tw = bitWidth(to);
  if (fw == tw)
    return {v.value, to};
  if (fw > tw)
    return {arith::TruncIOp::create(b, l, target, v.value), to};
  if (isUnsigned(from))
    return {arith::ExtUIOp::create(b, l, target, v.value), to};
  return {arith::ExtSIOp::create(b, l, target, v.value), to};
}

} // namespace tessera::tracer

namespace tessera::detail {

bool isIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}
using namespace tessera::tracer;

Result<TracedKernel> runTrace(std::string name, const std::vector<ParamDecl> &params, const KernelOptions &options,
                              SourceLoc loc, const std::function<void(const std::vector<uint32_t> &)> &body) {
  auto where = [&](const std::string &msg) {
    return Status(StatusCode::CompileError,
                  std::string(loc.file_name()) + ":" + std::to_string(loc.line()) + ": error: " + msg);
  };
  if (!isIdentifier(name))
    return where("kernel name '" + name + "' is not an identifier; use letters, digits and '_'");
  if (!tile::isPowerOfTwo(options.numWarps) || options.numWarps > 32)
    return where("numWarps = " + std::to_string(options.numWarps) + " must be a power of two from 1 to 32; use 1, 2, 4, 8, 16 or 32 "
                 "(4 is the default)");
  if (options.numStages != 1 && options.numStages != 2)
    return where("numStages = " + std::to_string(options.numStages) +
                 " is not supported; use 1 (loads where written) or 2 (loop loads one iteration ahead)");
  if (!options.argNames.empty() && options.argNames.size() != params.size())
    return where("argNames has " + std::to_string(options.argNames.size()) + " names but the kernel has " +
                 std::to_string(params.size()) + " parameters; give one name per parameter, or none");
  if (current)
    return where("tessera::trace was called while another kernel was being traced");

  TraceState st(makeTileContext());
  MLIRContext *ctx = st.ctx();
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
  st.func->setAttr(tile::kNumericsAttr, st.builder.getStringAttr(toString(options.numerics)));
  if (options.numStages > 1)
    st.func->setAttr(tile::kNumStagesAttr, st.builder.getI32IntegerAttr(int32_t(options.numStages)));
  if (!options.specializedArgs.empty()) {
    SmallVector<int64_t> indices;
    for (const std::string &want : options.specializedArgs) {
      auto found = std::find(options.argNames.begin(), options.argNames.end(), want);
      if (found == options.argNames.end())
        return where("specializedArgs names '" + want + "', which is not one of the kernel's argNames" +
                     (options.argNames.empty() ? " (it has none: name the arguments)" : ""));
      const size_t i = size_t(found - options.argNames.begin());
      if (params[i].kind != ArgKind::Scalar || params[i].dtype != DType::I32) {
        const std::string type(toString(params[i].dtype)); // "an f16", "an i64", "a u32", "a bf16"
        const std::string what = params[i].kind == ArgKind::Buffer
                                     ? "a buffer"
                                     : (type[0] == 'f' || type[0] == 'i' ? "an " : "a ") + type + " scalar";
        return where("specializedArgs names '" + want + "', which is " + what + "; only i32 scalars can be specialized");
      }
      indices.push_back(int64_t(i));
    }
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    st.func->setAttr(tile::kSpecializedArgsAttr, st.builder.getDenseI64ArrayAttr(indices));
  }
  Block *entry = st.func.addEntryBlock();
  std::vector<uint32_t> ids;
  for (unsigned i = 0; i < params.size(); ++i) {
    std::string argName = options.argNames.empty() ? "arg" + std::to_string(i) : options.argNames[i];
    if (!isIdentifier(argName))
      return where("argument name '" + argName + "' is not an identifier; use letters, digits and '_'");
    st.func.setArgAttr(i, tile::kArgNameAttr, StringAttr::get(ctx, argName));
    if (isUnsigned(params[i].dtype)) // signless in MLIR: the signature keeps the dtype
      st.func.setArgAttr(i, tile::kArgDTypeAttr, StringAttr::get(ctx, dtypeName(params[i].dtype)));
    st.args.push_back(entry->getArgument(i));
    st.argDTypes.push_back(params[i].dtype);
    ids.push_back(params[i].kind == ArgKind::Scalar ? st.add(entry->getArgument(i), params[i].dtype) : ~0u);
  }
  st.builder.setInsertionPointToStart(entry);

  current = &st;
  struct EndTrace { // whatever the kernel throws, the next trace starts clean
    ~EndTrace() { current = nullptr; }
  } endTrace;
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
  return kernelFromFunc(st.context, std::move(st.module));
}

} // namespace tessera::detail
