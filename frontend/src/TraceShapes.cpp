// Traced grid queries, tile constructors, loads and stores, shape changes, reductions and
// scans.
#include "TraceState.hpp"

using namespace mlir;

namespace tessera::tl {
using namespace tessera::tracer;

static Value gridQuery(bool isNum, int axis, SourceLoc loc) {
  auto &st = state(loc);
  if (axis < 0 || axis > 2)
    fail(loc, std::string(isNum ? "num_programs" : "program_id") + " axis " + std::to_string(axis) +
                  " is out of range; the grid has axes 0, 1 and 2: fold further "
                  "dimensions into one of them");
  Location l = st.loc(loc);
  Type i32 = st.builder.getI32Type();
  if (isNum)
    return tile::NumProgramsOp::create(st.builder, l, i32, axis);
  return tile::ProgramIdOp::create(st.builder, l, i32, axis);
}

Tile program_id(int axis, SourceLoc loc) { return Tile(state(loc).add(gridQuery(false, axis, loc), DType::I32)); }
Tile num_programs(int axis, SourceLoc loc) { return Tile(state(loc).add(gridQuery(true, axis, loc), DType::I32)); }

Tile arange(int32_t lo, int32_t hi, SourceLoc loc) {
  auto &st = state(loc);
  if (hi <= lo)
    fail(loc, "arange(" + std::to_string(lo) + ", " + std::to_string(hi) + ") is empty; hi must be greater than lo");
  int64_t n = int64_t(hi) - lo;
  if (!tile::isPowerOfTwo(n))
    fail(loc, "arange(" + std::to_string(lo) + ", " + std::to_string(hi) + ") has " + std::to_string(n) +
                  " elements; tile lengths must be powers of two (mask the tail instead, e.g. arange(0, 1024) with "
                  "offs < n)");
  checkShape({n}, loc, "arange");
  auto type = RankedTensorType::get({n}, st.builder.getI32Type());
  return Tile(st.add(tile::ArangeOp::create(st.builder, st.loc(loc), type, lo, hi), DType::I32));
}

Tile full(std::vector<int64_t> shape, Number value, DType dtype, SourceLoc loc) {
  auto &st = state(loc);
  checkShape(shape, loc, "full");
  if (dtype == DType::Bool)
    fail(loc, "full() makes number tiles; compare values to make a mask");
  return Tile(st.add(constant(st, dtype, value, shape, loc)));
}

Tile zeros(std::vector<int64_t> shape, DType dtype, SourceLoc loc) { return full(std::move(shape), Number(0), dtype, loc); }

// ---- memory -------------------------------------------------------------------------------

/// The base argument, offsets and broadcast mask of a load or store.
static std::tuple<BlockArgument, TVal, Value> access(const PtrTile &p, const Tile *mask, const char *what, SourceLoc loc) {
  auto &st = state(loc);
  if (p.arg() >= st.args.size() || !isa<tile::PtrType>(st.args[p.arg()].getType()))
    fail(loc, std::string(what) + " through a pointer that is not a buffer argument of this kernel");
  TVal offs = st.get(p.offsets().id(), loc);
  if (offs.isScalar())
    fail(loc, std::string(what) + " at a scalar offset: pointer offsets must be a tile; add tl::arange(0, N) to "
                                  "address N elements");
  Value m;
  if (mask) {
    TVal mv = st.get(mask->id(), loc);
    if (mv.dtype != DType::Bool)
      fail(loc, std::string(what) + " mask must be a mask (bool tile), got " + describe(mv) + "; compare to make one, e.g. offs < n");
    std::vector<int64_t> shape = broadcastShape(offs, mv, what, loc);
    if (shape != offs.shape())
      fail(loc, std::string("shape mismatch in ") + what + ": the offsets are " + describe(offs) + " but the mask is " + describe(mv) +
                    "; the mask must broadcast to the offsets");
    m = broadcastTo(st, mv, shape, loc, what).value;
  }
  return {st.args[p.arg()], offs, m};
}

static Tile loadImpl(const PtrTile &p, const Tile *mask, const Tile *otherTile, const Number *otherNum, SourceLoc loc) {
  auto &st = state(loc);
  auto [ptr, offs, m] = access(p, mask, "load", loc);
  DType elem = st.argDTypes[p.arg()];
  std::vector<int64_t> shape = offs.shape();
  Location l = st.loc(loc);
  Value other;
  if (otherNum) {
    other = constant(st, elem, *otherNum, shape, loc).value;
  } else if (otherTile) {
    TVal o = st.get(otherTile->id(), loc);
    if (o.dtype != elem)
      fail(loc, std::string("load 'other' is ") + dtypeName(o.dtype) + " but the buffer holds " + dtypeName(elem) +
                    "; they must match (use tl::cast)");
    other = broadcastTo(st, o, shape, loc, "load 'other'").value;
  }
  Type resultType = tileType(st.ctx(), shape, elem);
  return Tile(st.add(tile::LoadOp::create(st.builder, l, resultType, ptr, offs.value, m, other), elem));
}

Tile load(const PtrTile &p, SourceLoc loc) { return loadImpl(p, nullptr, nullptr, nullptr, loc); }
Tile load(const PtrTile &p, const Tile &mask, SourceLoc loc) { return loadImpl(p, &mask, nullptr, nullptr, loc); }
Tile load(const PtrTile &p, const Tile &mask, Number other, SourceLoc loc) { return loadImpl(p, &mask, nullptr, &other, loc); }
Tile load(const PtrTile &p, const Tile &mask, const Tile &other, SourceLoc loc) {
  return loadImpl(p, &mask, &other, nullptr, loc);
}

static void storeImpl(const PtrTile &p, const Tile &values, const Tile *mask, SourceLoc loc) {
  auto &st = state(loc);
  auto [ptr, offs, m] = access(p, mask, "store", loc);
  DType elem = st.argDTypes[p.arg()];
  TVal v = st.get(values.id(), loc);
  if (v.dtype != elem)
    fail(loc, std::string("store of ") + dtypeName(v.dtype) + " values into a buffer of " + dtypeName(elem) +
                  "; the element types must match (convert with tl::cast(values, tessera::DType::...))");
  std::vector<int64_t> shape = broadcastShape(offs, v, "store", loc);
  if (shape != offs.shape())
    fail(loc, "shape mismatch in store: the offsets are " + describe(offs) + " but the values are " + describe(v) +
                  "; the values must broadcast to the offsets (a scalar, or a tile of the offsets' shape)");
  v = broadcastTo(st, v, shape, loc, "store");
  tile::StoreOp::create(st.builder, st.loc(loc), ptr, offs.value, v.value, m);
}

void store(const PtrTile &p, const Tile &values, SourceLoc loc) { storeImpl(p, values, nullptr, loc); }
void store(const PtrTile &p, const Tile &values, const Tile &mask, SourceLoc loc) { storeImpl(p, values, &mask, loc); }

// ---- shapes ---------------------------------------------------------------------------------

static int normalizeAxis(int axis, int64_t rank, const char *what, SourceLoc loc) {
  int a = axis < 0 ? axis + int(rank) : axis;
  if (a < 0 || a >= rank)
    fail(loc, std::string(what) + ": axis " + std::to_string(axis) + " is out of range for a tile of rank " +
                  std::to_string(rank) +
                  (rank ? "; use an axis from -" + std::to_string(rank) + " to " + std::to_string(rank - 1) +
                              " (negative counts from the end)"
                        : "; a scalar has no axes"));
  return a;
}

Tile expand_dims(const Tile &x, int axis, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  std::vector<int64_t> shape = v.shape();
  int a = normalizeAxis(axis, int64_t(shape.size()) + 1, "expand_dims", loc);
  shape.insert(shape.begin() + a, 1);
  checkShape(shape, loc, "expand_dims");
  if (v.isScalar())
    return Tile(st.add(broadcastTo(st, v, shape, loc, "expand_dims")));
  Value r = tile::ExpandDimsOp::create(st.builder, st.loc(loc), tileType(st.ctx(), shape, v.dtype), v.value, a);
  return Tile(st.add(r, v.dtype));
}

Tile broadcast_to(const Tile &x, std::vector<int64_t> shape, SourceLoc loc) {
  auto &st = state(loc);
  checkShape(shape, loc, "broadcast_to");
  return Tile(st.add(broadcastTo(st, st.get(x.id(), loc), shape, loc, "broadcast_to")));
}

Tile reshape(const Tile &x, std::vector<int64_t> shape, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  checkShape(shape, loc, "reshape");
  int64_t have = 1, want = 1;
  for (int64_t d : v.shape())
    have *= d;
  for (int64_t d : shape)
    want *= d;
  if (have != want)
    fail(loc, "reshape of " + describe(v) + " to [" + shapeString(shape) + "]: " + std::to_string(have) + " elements cannot become " +
                  std::to_string(want) + "; the new shape must hold the same number of elements");
  if (v.isScalar() || shape.empty())
    fail(loc, "reshape works on tiles; use broadcast_to to make a tile from a scalar");
  if (shape == v.shape())
    return x;
  return Tile(st.add(tile::ReshapeOp::create(st.builder, st.loc(loc), tileType(st.ctx(), shape, v.dtype), v.value), v.dtype));
}

Tile permute(const Tile &x, std::vector<int> order, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  std::vector<int64_t> shape = v.shape(), out;
  std::vector<bool> seen(shape.size(), false);
  if (order.size() != shape.size())
    fail(loc, "permute: order has " + std::to_string(order.size()) + " entries for " + describe(v) +
                  "; give one entry per dimension, e.g. {1, 0} for a 2-D tile");
  for (int o : order) {
    if (o < 0 || o >= int(shape.size()) || seen[o])
      fail(loc, "permute: order must be a permutation of 0.." + std::to_string(shape.size() - 1) +
                  "; list each dimension exactly once (result dimension i is source dimension order[i])");
    seen[o] = true;
    out.push_back(shape[o]);
  }
  return Tile(st.add(tile::TransOp::create(st.builder, st.loc(loc), tileType(st.ctx(), out, v.dtype), v.value,
                                           SmallVector<int32_t>(order.begin(), order.end())),
                     v.dtype));
}

Tile trans(const Tile &x, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  if (v.rank() != 2)
    fail(loc, "trans needs a 2-D tile, got " + describe(v) + "; use permute for other ranks");
  return permute(x, {1, 0}, loc);
}

// ---- reductions -----------------------------------------------------------------------------

/// Reduces `x` along `axis` (or the whole tile when `axis` is empty).
static Tile reduce(const Tile &x, tile::ReduceKind kind, std::optional<int> axis, bool keepDims, const char *fn, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  if (v.isScalar())
    fail(loc, std::string(fn) + " of a scalar; reductions need a tile (a scalar is already reduced: use it as it is)");
  if (v.dtype == DType::Bool)
    fail(loc, std::string(fn) + " of a mask; convert it first, e.g. tl::cast(mask, tessera::DType::I32)");
  bool isArg = kind == tile::ReduceKind::ArgMax || kind == tile::ReduceKind::ArgMin;
  bool isSum = kind == tile::ReduceKind::Sum;
  // Accumulate in 32 bits (f32 for 16-bit floats); unsigned order maps onto signed order by
  // flipping the sign bit (the lowering compares signed).
  TVal w = widen(st, v, loc);
  if (w.dtype == DType::I64)
    fail(loc, std::string(fn) + " of i64 tiles is not supported yet; reduce i32 or f32 values (tl::cast the tile "
                                "first if its values fit)");
  bool flip = isUnsigned(w.dtype) && !isSum;
  Location l = st.loc(loc);
  auto flipSign = [&](Value val) {
    Value bit = constant(st, DType::I32, Number(int64_t(INT32_MIN)), TVal{val, DType::I32}.shape(), loc).value;
    return Value(arith::XOrIOp::create(st.builder, l, val, bit));
  };
  Value src = flip ? flipSign(w.value) : w.value;
  std::vector<int64_t> shape = w.shape();
  int a;
  if (!axis) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    if (shape.size() > 1)
      src = tile::ReshapeOp::create(st.builder, l, tileType(st.ctx(), {n}, w.dtype), src);
    shape = {n};
    a = 0;
  } else {
    a = normalizeAxis(*axis, int64_t(shape.size()), fn, loc);
  }
  std::vector<int64_t> outShape = shape;
  outShape.erase(outShape.begin() + a);
  DType outType = isArg ? DType::I32 : w.dtype;
  Value r = tile::ReduceOp::create(st.builder, l, tileType(st.ctx(), outShape, outType), src, kind, a);
  if (flip && !isArg)
    r = flipSign(r);
  TVal result{r, outType};
  if (!isArg && !isSum)
    result = narrow(st, result, v.dtype, loc); // max/min are exact: give back the input's dtype
  if (keepDims && axis) {
    outShape.insert(outShape.begin() + a, 1);
    result = result.isScalar() ? broadcastTo(st, result, outShape, loc, fn)
                               : TVal{tile::ExpandDimsOp::create(st.builder, l, tileType(st.ctx(), outShape, result.dtype), result.value, a), result.dtype};
  }
  return Tile(st.add(result));
}

Tile sum(const Tile &x, SourceLoc loc) { return reduce(x, tile::ReduceKind::Sum, std::nullopt, false, "sum", loc); }
Tile sum(const Tile &x, int axis, bool keepDims, SourceLoc loc) { return reduce(x, tile::ReduceKind::Sum, axis, keepDims, "sum", loc); }
Tile max(const Tile &x, SourceLoc loc) { return reduce(x, tile::ReduceKind::Max, std::nullopt, false, "max", loc); }
Tile max(const Tile &x, int axis, bool keepDims, SourceLoc loc) { return reduce(x, tile::ReduceKind::Max, axis, keepDims, "max", loc); }
Tile min(const Tile &x, SourceLoc loc) { return reduce(x, tile::ReduceKind::Min, std::nullopt, false, "min", loc); }
Tile min(const Tile &x, int axis, bool keepDims, SourceLoc loc) { return reduce(x, tile::ReduceKind::Min, axis, keepDims, "min", loc); }
Tile argmax(const Tile &x, SourceLoc loc) { return reduce(x, tile::ReduceKind::ArgMax, std::nullopt, false, "argmax", loc); }
Tile argmax(const Tile &x, int axis, bool keepDims, SourceLoc loc) {
  return reduce(x, tile::ReduceKind::ArgMax, axis, keepDims, "argmax", loc);
}
Tile argmin(const Tile &x, SourceLoc loc) { return reduce(x, tile::ReduceKind::ArgMin, std::nullopt, false, "argmin", loc); }
Tile argmin(const Tile &x, int axis, bool keepDims, SourceLoc loc) {
  return reduce(x, tile::ReduceKind::ArgMin, axis, keepDims, "argmin", loc);
}

Tile cumsum(const Tile &x, int axis, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(x.id(), loc);
  if (v.isScalar())
    fail(loc, "cumsum of a scalar; scans run along an axis of a tile (the prefix sum of one value is the value itself)");
  if (v.dtype == DType::Bool)
    fail(loc, "cumsum of a mask; convert it first, e.g. tl::cast(mask, tessera::DType::I32)");
  int a = normalizeAxis(axis, v.rank(), "cumsum", loc);
  TVal w = widen(st, v, loc);
  Value r = tile::ScanOp::create(st.builder, st.loc(loc), w.value, a);
  return Tile(st.add(r, w.dtype));
}

} // namespace tessera::tl
