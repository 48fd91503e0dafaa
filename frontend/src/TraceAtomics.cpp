// Traced atomics: read-modify-writes and compare-and-swap on buffer elements.
#include "TraceState.hpp"

using namespace mlir;

namespace tessera::tl {
using namespace tessera::tracer;

namespace {

tile::MemoryOrder orderOf(MemoryOrder o) {
  switch (o) {
  case MemoryOrder::Relaxed: return tile::MemoryOrder::Relaxed;
  case MemoryOrder::Acquire: return tile::MemoryOrder::Acquire;
  case MemoryOrder::Release: return tile::MemoryOrder::Release;
  case MemoryOrder::AcqRel: break;
  }
  return tile::MemoryOrder::AcqRel;
}

struct Access {
  BlockArgument ptr;
  TVal offsets;
  Value mask;
  DType elem;
};

/// The pointer, offsets and mask of an atomic, with `values` checked against the buffer.
Access prepare(const PtrTile &p, const Tile *mask, std::initializer_list<TVal *> values, const char *fn, SourceLoc loc) {
  auto &st = state(loc);
  if (p.arg() >= st.args.size() || !isa<tile::PtrType>(st.args[p.arg()].getType()))
    fail(loc, std::string(fn) + " through a pointer that is not a buffer argument of this kernel");
  Access a{st.args[p.arg()], st.get(p.offsets().id(), loc), Value(), st.argDTypes[p.arg()]};
  if (a.offsets.isScalar())
    fail(loc, std::string(fn) + " at a scalar offset: pointer offsets must be a tile; add tl::arange(0, N) to "
                                "address N elements");
  std::vector<int64_t> shape = a.offsets.shape();
  for (TVal *v : values) {
    if (v->dtype != a.elem)
      fail(loc, std::string(fn) + " of " + dtypeName(v->dtype) + " values on a buffer of " + dtypeName(a.elem) +
                    "; the element types must match (use tl::cast)");
    if (broadcastShape(a.offsets, *v, fn, loc) != shape)
      fail(loc, std::string("shape mismatch in ") + fn + ": the offsets are " + describe(a.offsets) + " but the values are " + describe(*v));
    *v = broadcastTo(st, *v, shape, loc, fn);
  }
  if (mask) {
    TVal m = st.get(mask->id(), loc);
    if (m.dtype != DType::Bool)
      fail(loc, std::string(fn) + " mask must be a mask (bool tile), got " + describe(m));
    if (broadcastShape(a.offsets, m, fn, loc) != shape)
      fail(loc, std::string("shape mismatch in ") + fn + ": the mask does not broadcast to the offsets");
    a.mask = broadcastTo(st, m, shape, loc, fn).value;
  }
  return a;
}

Value rmw(TraceState &st, tile::AtomicKind kind, tile::MemoryOrder order, const Access &a, Value values, Value mask, SourceLoc loc) {
  return tile::AtomicRMWOp::create(st.builder, st.loc(loc), values.getType(), kind, order, a.ptr, a.offsets.value, values, mask);
}

Tile atomicRMW(tile::AtomicKind kind, const PtrTile &p, const Tile &values, const Tile *mask, MemoryOrder order,
               const char *fn, SourceLoc loc) {
  auto &st = state(loc);
  TVal v = st.get(values.id(), loc);
  Access a = prepare(p, mask, {&v}, fn, loc);
  bool isMinMax = kind == tile::AtomicKind::Max || kind == tile::AtomicKind::Min;
  bool ok = a.elem == DType::I32 || a.elem == DType::U32 || (!isMinMax && (a.elem == DType::F32 || a.elem == DType::I64));
  if (!ok)
    fail(loc, std::string(fn) + " works on " + (isMinMax ? "i32 and u32" : "i32, u32, i64 and f32") + " buffers, not " +
                  dtypeName(a.elem) +
                  (isMinMax && a.elem == DType::F32
                       ? "; float max/min atomics are not available on every Vulkan device yet: keep the values as "
                         "ordered integers, or reduce with tl::max first and store once per program"
                       : "; use a buffer of one of those types"));
  if (isMinMax && a.elem == DType::U32)
    kind = kind == tile::AtomicKind::Max ? tile::AtomicKind::UMax : tile::AtomicKind::UMin;
  return Tile(st.add(rmw(st, kind, orderOf(order), a, v.value, a.mask, loc), a.elem));
}

} // namespace

#define TESSERA_ATOMIC(NAME, KIND)                                                                       \
  Tile NAME(const PtrTile &p, const Tile &values, SourceLoc loc) {                                       \
    return atomicRMW(tile::AtomicKind::KIND, p, values, nullptr, MemoryOrder::AcqRel, #NAME, loc);       \
  }                                                                                                      \
  Tile NAME(const PtrTile &p, const Tile &values, const Tile &mask, MemoryOrder order, SourceLoc loc) {  \
    return atomicRMW(tile::AtomicKind::KIND, p, values, &mask, order, #NAME, loc);                       \
  }
TESSERA_ATOMIC(atomic_add, Add)
TESSERA_ATOMIC(atomic_max, Max)
TESSERA_ATOMIC(atomic_min, Min)
TESSERA_ATOMIC(atomic_xchg, Xchg)
#undef TESSERA_ATOMIC

static Tile casImpl(const PtrTile &p, const Tile &cmp, const Tile &values, const Tile *mask, MemoryOrder order, SourceLoc loc) {
  auto &st = state(loc);
  TVal c = st.get(cmp.id(), loc), v = st.get(values.id(), loc);
  Access a = prepare(p, mask, {&c, &v}, "atomic_cas", loc);
  if (a.elem != DType::I32 && a.elem != DType::U32 && a.elem != DType::I64)
    fail(loc, std::string("atomic_cas works on i32, u32 and i64 buffers, not ") + dtypeName(a.elem) +
                  "; for floats, view the buffer as integers of the same width");
  Value r = tile::AtomicCASOp::create(st.builder, st.loc(loc), v.value.getType(), orderOf(order), a.ptr, a.offsets.value,
                                      c.value, v.value, a.mask);
  return Tile(st.add(r, a.elem));
}

Tile atomic_cas(const PtrTile &p, const Tile &cmp, const Tile &values, SourceLoc loc) {
  return casImpl(p, cmp, values, nullptr, MemoryOrder::AcqRel, loc);
}
Tile atomic_cas(const PtrTile &p, const Tile &cmp, const Tile &values, const Tile &mask, MemoryOrder order, SourceLoc loc) {
  return casImpl(p, cmp, values, &mask, order, loc);
}

} // namespace tessera::tl
