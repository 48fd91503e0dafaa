// The Tessera tile language: the values, operators and functions a kernel is written with.
//
// A kernel is an ordinary C++ function over `tl` values. `tessera::trace` calls it once with
// symbolic arguments and records every operation into tile IR; plain C++ values used inside
// (`int BLOCK = 1024`) are compile-time constants. Every operation remembers the user's source
// line, so a mistake is reported where it was written:
//
//   void add(tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
//     tl::Tile offs = tl::program_id(0) * 1024 + tl::arange(0, 1024);
//     tl::Tile mask = offs < n;
//     tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
//   }
//   tessera::Result<tessera::TracedKernel> k = tessera::trace("add", add);
//
// This header includes no MLIR: kernels compile as fast as any C++.
#pragma once

#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Package.hpp"
#include "tessera/runtime/Status.hpp"

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

namespace detail {
struct KernelImpl;
} // namespace detail

/// A traced kernel: its signature and its tile IR, ready for `tessera::compile`.
/// The numerics contract a kernel is compiled under (docs/numerics.md).
///   Fast:     native instructions and vendor math, within the published error budgets.
///   Portable: the same bits on every backend and device that accepts the mode, and on the
///             reference interpreter; a device that cannot keep the promise refuses the kernel.
enum class Numerics : uint8_t { Fast, Portable };
inline const char *toString(Numerics n) { return n == Numerics::Portable ? "portable" : "fast"; }

class TracedKernel {
public:
  const std::string &name() const;
  const std::vector<ArgSpec> &signature() const;
  uint32_t numWarps() const;
  Numerics numerics() const;
  /// The tile-dialect module, printed (with source locations when `withLocations`).
  std::string tileIR(bool withLocations = false) const;

  std::shared_ptr<detail::KernelImpl> impl_;
};


/// Per-kernel options fixed at trace time.
struct KernelOptions {
  /// Threads per program = numWarps × the device's subgroup size. A power of two, 1..32.
  uint32_t numWarps = 4;
  /// Names for the kernel's arguments, in order (default "arg0", "arg1", ...). They appear
  /// in launch errors and in the package signature.
  std::vector<std::string> argNames;
  /// Fast (the default) or Portable: tessera::trace("k", fn, {.numerics = Numerics::Portable}).
  Numerics numerics = Numerics::Fast;
  /// 1 (the default): loads run where they are written. 2: in each tl::for_range loop that
  /// stores nothing, the loads whose offsets and masks depend only on the loop index are issued
  /// one iteration ahead, so their memory latency overlaps the previous iteration's work (a
  /// `dot`); costs registers for a second copy of those tiles. Results are the same.
  uint32_t numStages = 1;
  /// i32 scalar arguments, by name (argNames), that the Vulkan code reads as specialization
  /// constants: the driver compiles the pipeline with their values known, and the runtime builds
  /// one pipeline for each set of values the launches pass (docs/runtime.md). For sizes that stay
  /// the same over many launches, never for values that change at every one: run 78 (H100,
  /// docs/bench.md) measured matmul f16 4096^3 +27% and +39% at two block shapes, attention +19%,
  /// f32 matmul unchanged. CUDA code is the same either way.
  std::vector<std::string> specializedArgs;
};

namespace tl {

using SourceLoc = std::source_location;

class Tile;

/// A C++ number used inside a kernel: becomes a constant of the other operand's type.
struct Number {
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  Number(T v) : isFloat(std::is_floating_point_v<T>), f(double(v)), i(isFloat ? 0 : int64_t(v)) {}
  bool isFloat;
  double f;
  int64_t i;
};

/// A tile operand together with the user's source position of the expression it appears in.
/// Operators take their first tile through `At`, which is how `a + b` knows its line.
struct At {
  At(const Tile &t, SourceLoc loc = SourceLoc::current()) : tile(t), loc(loc) {}
  const Tile &tile;
  SourceLoc loc;
};

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne };

namespace detail {
/// Implemented in the tracer. Each returns the id of the new value or throws a user error
/// that `trace` turns into a Status.
uint32_t binary(BinaryOp op, uint32_t lhs, uint32_t rhs, SourceLoc loc);
uint32_t binaryConst(BinaryOp op, uint32_t lhs, Number rhs, bool constOnLeft, SourceLoc loc);
uint32_t logicalNot(uint32_t value, SourceLoc loc);
uint32_t negate(uint32_t value, SourceLoc loc);
uint32_t checkOffsets(uint32_t offsets, SourceLoc loc);
DType dtypeOf(uint32_t value);
std::vector<int64_t> shapeOf(uint32_t value);
} // namespace detail

/// A tile of values: a scalar (shape {}) or a tile of up to 3 dimensions, each a power of two,
/// of any DType (Bool for masks). Tiles are cheap handles to traced values; element types are checked when
/// the kernel is traced, with the error at the user's line.
class Tile {
public:
  Tile() = default;
  explicit Tile(uint32_t id) : id_(id) {}
  uint32_t id() const { return id_; }
  /// Element type: F32, I32, or Bool for a mask.
  DType dtype() const { return detail::dtypeOf(id_); }
  std::vector<int64_t> shape() const { return detail::shapeOf(id_); }

#define TESSERA_TL_BINARY(SYM, OP)                                                           \
  friend Tile operator SYM(At a, const Tile &b) {                                            \
    return Tile(detail::binary(BinaryOp::OP, a.tile.id_, b.id_, a.loc));                     \
  }                                                                                          \
  friend Tile operator SYM(At a, Number b) {                                                 \
    return Tile(detail::binaryConst(BinaryOp::OP, a.tile.id_, b, false, a.loc));             \
  }                                                                                          \
  friend Tile operator SYM(Number a, At b) {                                                 \
    return Tile(detail::binaryConst(BinaryOp::OP, b.tile.id_, a, true, b.loc));              \
  }
  TESSERA_TL_BINARY(+, Add)
  TESSERA_TL_BINARY(-, Sub)
  TESSERA_TL_BINARY(*, Mul)
  TESSERA_TL_BINARY(/, Div)
  TESSERA_TL_BINARY(%, Rem)
  TESSERA_TL_BINARY(&, And)
  TESSERA_TL_BINARY(|, Or)
  TESSERA_TL_BINARY(^, Xor)
  TESSERA_TL_BINARY(<<, Shl)
  TESSERA_TL_BINARY(>>, Shr)
  TESSERA_TL_BINARY(<, Lt)
  TESSERA_TL_BINARY(<=, Le)
  TESSERA_TL_BINARY(>, Gt)
  TESSERA_TL_BINARY(>=, Ge)
  TESSERA_TL_BINARY(==, Eq)
  TESSERA_TL_BINARY(!=, Ne)
#undef TESSERA_TL_BINARY
  friend Tile operator!(At a) { return Tile(detail::logicalNot(a.tile.id_, a.loc)); }
  friend Tile operator-(At a) { return Tile(detail::negate(a.tile.id_, a.loc)); }

private:
  uint32_t id_ = ~0u;
};

/// A scalar kernel argument of type T (float, int32_t, int64_t or uint32_t).
template <class T> class Scalar : public Tile {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                    std::is_same_v<T, uint32_t>,
                "tl::Scalar<T>: T must be float, int32_t, int64_t or uint32_t");

public:
  using Tile::Tile;
};

/// A constant element offset written as a C++ integer (`x + 5`), with where it was written.
struct Offset {
  template <class T>
    requires std::is_integral_v<T>
  Offset(T v, SourceLoc loc = SourceLoc::current()) : value(int64_t(v)), loc(loc) {}
  int64_t value;
  SourceLoc loc;
};

namespace detail {
uint32_t constantOffset(int64_t value, SourceLoc loc);
} // namespace detail

/// A buffer argument offset by a tile of element offsets: what load and store take.
class PtrTile {
public:
  PtrTile(uint32_t arg, DType elem, Tile offsets) : arg_(arg), elem_(elem), offsets_(offsets) {}
  uint32_t arg() const { return arg_; }
  DType elementType() const { return elem_; }
  const Tile &offsets() const { return offsets_; }
  friend PtrTile operator+(const PtrTile &p, At more) {
    return PtrTile(p.arg_, p.elem_, Tile(detail::binary(BinaryOp::Add, p.offsets_.id(), more.tile.id(), more.loc)));
  }
  friend PtrTile operator+(const PtrTile &p, Offset more) {
    return PtrTile(p.arg_, p.elem_, Tile(detail::binary(BinaryOp::Add, p.offsets_.id(), detail::constantOffset(more.value, more.loc), more.loc)));
  }
  friend PtrTile operator-(const PtrTile &p, At less) {
    return PtrTile(p.arg_, p.elem_, Tile(detail::binary(BinaryOp::Sub, p.offsets_.id(), less.tile.id(), less.loc)));
  }

private:
  uint32_t arg_;
  DType elem_;
  Tile offsets_;
};

/// A buffer kernel argument of element type T (float, tessera::f16, tessera::bf16, int8_t,
/// int16_t, int32_t, int64_t, uint8_t or uint32_t). `p + offsets` addresses
/// elements; pointers are never computed from memory.
template <class T> class Ptr {
  static_assert(requires { DTypeOf<T>::value; },
                "tl::Ptr<T>: T must be float, f16, bf16, int8_t, int16_t, int32_t, int64_t, uint8_t or uint32_t");

public:
  explicit Ptr(uint32_t arg) : arg_(arg) {}
  uint32_t arg() const { return arg_; }
  friend PtrTile operator+(const Ptr &p, At offsets) {
    return PtrTile(p.arg_, DTypeOf<T>::value, Tile(detail::checkOffsets(offsets.tile.id(), offsets.loc)));
  }
  friend PtrTile operator+(const Ptr &p, Offset offset) {
    return PtrTile(p.arg_, DTypeOf<T>::value, Tile(detail::constantOffset(offset.value, offset.loc)));
  }

private:
  uint32_t arg_;
};

/// Index of this program along `axis` (0, 1 or 2) of the launch grid: an i32 scalar.
Tile program_id(int axis, SourceLoc loc = SourceLoc::current());
/// Number of programs along `axis` of the launch grid: an i32 scalar.
Tile num_programs(int axis, SourceLoc loc = SourceLoc::current());
/// The i32 tile lo, lo+1, ..., hi-1; hi - lo must be a power of two.
Tile arange(int32_t lo, int32_t hi, SourceLoc loc = SourceLoc::current());
/// A tile of `shape` (each dimension a power of two; {} for a scalar) filled with `value`.
Tile full(std::vector<int64_t> shape, Number value, DType dtype, SourceLoc loc = SourceLoc::current());
Tile zeros(std::vector<int64_t> shape, DType dtype, SourceLoc loc = SourceLoc::current());

// ---- memory -------------------------------------------------------------------------------

/// Reads `p` where `mask` is true and gives `other` (default 0) where it is false; masked-off
/// elements are never read, so their offsets may be out of bounds. The offsets may be a tile
/// of any shape (`x + rows_2d * stride + cols_2d`); mask and other broadcast to it.
Tile load(const PtrTile &p, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, Number other, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, const Tile &other, SourceLoc loc = SourceLoc::current());
/// Writes `values` to `p` where `mask` is true (everywhere without a mask). `values` is
/// converted to nothing: its dtype must be the buffer's (use tl::cast).
void store(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
void store(const PtrTile &p, const Tile &values, const Tile &mask, SourceLoc loc = SourceLoc::current());

// ---- atomics ------------------------------------------------------------------------------

/// Memory ordering of an atomic, at device scope (as in C++; the default is AcqRel).
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel };

/// Atomic read-modify-writes of buffer elements at `p` where `mask` is true; each returns the
/// old values (0 where masked off). add: i32, u32, i64, f32; max/min: i32, u32; xchg: i32,
/// u32, i64, f32. Offsets that repeat within one call are applied one after another in an
/// unspecified order.
Tile atomic_add(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
Tile atomic_add(const PtrTile &p, const Tile &values, const Tile &mask, MemoryOrder order = MemoryOrder::AcqRel,
                SourceLoc loc = SourceLoc::current());
Tile atomic_max(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
Tile atomic_max(const PtrTile &p, const Tile &values, const Tile &mask, MemoryOrder order = MemoryOrder::AcqRel,
                SourceLoc loc = SourceLoc::current());
Tile atomic_min(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
Tile atomic_min(const PtrTile &p, const Tile &values, const Tile &mask, MemoryOrder order = MemoryOrder::AcqRel,
                SourceLoc loc = SourceLoc::current());
Tile atomic_xchg(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
Tile atomic_xchg(const PtrTile &p, const Tile &values, const Tile &mask, MemoryOrder order = MemoryOrder::AcqRel,
                 SourceLoc loc = SourceLoc::current());
/// Where `p[i] == cmp[i]` (bitwise), stores `values[i]`; returns the old values. i32, u32, i64.
Tile atomic_cas(const PtrTile &p, const Tile &cmp, const Tile &values, SourceLoc loc = SourceLoc::current());
Tile atomic_cas(const PtrTile &p, const Tile &cmp, const Tile &values, const Tile &mask,
                MemoryOrder order = MemoryOrder::AcqRel, SourceLoc loc = SourceLoc::current());

// ---- conversions and element-wise functions -------------------------------------------------

/// Converts to `dtype` with defined results everywhere: float -> narrower float rounds to
/// nearest even; float -> integer truncates toward zero, saturates out-of-range values to the
/// integer's range and maps NaN to 0; integer -> integer wraps (narrowing) or sign/zero
/// extends (by the source's signedness); to bool is `!= 0`; from bool is 0 or 1.
Tile cast(const Tile &x, DType dtype, SourceLoc loc = SourceLoc::current());
/// mask ? a : b, element by element (shapes broadcast).
Tile where(const Tile &mask, const Tile &a, const Tile &b, SourceLoc loc = SourceLoc::current());
Tile where(const Tile &mask, const Tile &a, Number b, SourceLoc loc = SourceLoc::current());
Tile where(const Tile &mask, Number a, const Tile &b, SourceLoc loc = SourceLoc::current());
/// Element-wise minimum and maximum; for floats a NaN in either operand gives NaN.
Tile minimum(const Tile &a, const Tile &b, SourceLoc loc = SourceLoc::current());
Tile minimum(const Tile &a, Number b, SourceLoc loc = SourceLoc::current());
Tile maximum(const Tile &a, const Tile &b, SourceLoc loc = SourceLoc::current());
Tile maximum(const Tile &a, Number b, SourceLoc loc = SourceLoc::current());
/// minimum(maximum(x, lo), hi).
Tile clamp(const Tile &x, Number lo, Number hi, SourceLoc loc = SourceLoc::current());
Tile clamp(const Tile &x, const Tile &lo, const Tile &hi, SourceLoc loc = SourceLoc::current());
Tile abs(const Tile &x, SourceLoc loc = SourceLoc::current());
/// a * b + c (floats only): one rounding on CUDA; on Vulkan GLSL.std.450 Fma, which the Vulkan
/// spec lets a driver round as a * b, then + c (lavapipe does).
Tile fma(const Tile &a, const Tile &b, const Tile &c, SourceLoc loc = SourceLoc::current());

/// Math on float tiles (f16/bf16 are computed in f32 and rounded back). Accuracy in fast mode
/// is the device's (libdevice on CUDA, GLSL.std.450 on Vulkan); see docs/language.md.
Tile exp(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile exp2(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile log(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile log2(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile sqrt(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile rsqrt(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile sin(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile cos(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile tanh(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile sigmoid(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile erf(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile floor(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile ceil(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile pow(const Tile &x, const Tile &y, SourceLoc loc = SourceLoc::current());
Tile pow(const Tile &x, Number y, SourceLoc loc = SourceLoc::current());

// ---- shapes ---------------------------------------------------------------------------------

/// Inserts a dimension of size 1 at `axis` (negative counts from the end): [N] -> [N, 1] with
/// axis 1 (Triton's x[:, None]), [1, N] with axis 0 (x[None, :]).
Tile expand_dims(const Tile &x, int axis, SourceLoc loc = SourceLoc::current());
/// Repeats size-1 dimensions (after prepending 1s for a lower rank) to reach `shape`.
Tile broadcast_to(const Tile &x, std::vector<int64_t> shape, SourceLoc loc = SourceLoc::current());
/// The same elements, row-major, under another shape of the same size.
Tile reshape(const Tile &x, std::vector<int64_t> shape, SourceLoc loc = SourceLoc::current());
/// Transpose of a 2-D tile; `permute` reorders any rank (result dim i = source dim order[i]).
Tile trans(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile permute(const Tile &x, std::vector<int> order, SourceLoc loc = SourceLoc::current());

// ---- reductions and scans -----------------------------------------------------------------

/// Reductions over one axis (negative counts from the end; keepDims keeps it as size 1) or, without
/// an axis, over the whole tile to a scalar. `sum` of f16/bf16 accumulates and returns f32; of
/// i8/i16/u8 returns i32. `max`/`min` of floats are NaN if any element is. `argmax`/`argmin`
/// give the i32 index of the first extreme element (a NaN counts as the extreme).
Tile sum(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile sum(const Tile &x, int axis, bool keepDims = false, SourceLoc loc = SourceLoc::current());
Tile max(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile max(const Tile &x, int axis, bool keepDims = false, SourceLoc loc = SourceLoc::current());
Tile min(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile min(const Tile &x, int axis, bool keepDims = false, SourceLoc loc = SourceLoc::current());
Tile argmax(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile argmax(const Tile &x, int axis, bool keepDims = false, SourceLoc loc = SourceLoc::current());
Tile argmin(const Tile &x, SourceLoc loc = SourceLoc::current());
Tile argmin(const Tile &x, int axis, bool keepDims = false, SourceLoc loc = SourceLoc::current());
/// Inclusive prefix sum along `axis` (same accumulation types as sum).
Tile cumsum(const Tile &x, int axis = 0, SourceLoc loc = SourceLoc::current());

// ---- matrix products --------------------------------------------------------------------------

/// acc + a @ b for 2-D tiles a (M x K), b (K x N) and acc (M x N), each dimension a power of two
/// of at least 16: f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32.
/// Portable mode fixes the order (k = 0, 1, ... added one rounded product at a time, no fused
/// multiply-add: docs/numerics.md); fast mode lets the target fuse and use tensor cores. Mask
/// ragged edges when loading (other = 0): the product of a zero row or column adds nothing.
Tile dot(const Tile &a, const Tile &b, const Tile &acc, SourceLoc loc = SourceLoc::current());
/// a @ b with a zero accumulator (f32, or i32 for i8 operands).
Tile dot(const Tile &a, const Tile &b, SourceLoc loc = SourceLoc::current());

// ---- loops -----------------------------------------------------------------------------------

/// A loop bound: an i32 scalar (an argument, program_id, arithmetic on them) or a C++ integer.
struct Bound {
  Bound(const Tile &t) : tile(t.id()), isTile(true) {}
  template <class T>
    requires std::is_integral_v<T>
  Bound(T v) : value(int64_t(v)) {}
  uint32_t tile = ~0u;
  bool isTile = false;
  int64_t value = 0;
};

/// A loop that runs on the device: for (i = lo; i < hi; i += step) state = body(i, state).
/// `i` is an i32 scalar; `state` is the tiles carried from one iteration to the next (a running
/// accumulator, a row maximum, ...): `body` returns the next state, the same number of tiles
/// with the same shapes and dtypes. Gives the final state (`init` when the loop runs no
/// iteration). `step` is a positive C++ integer. Tiles made inside `body` exist only there:
/// carry out what is needed through the state. A C++ `for` around tile code, by contrast,
/// repeats the code in the kernel (use it for short loops over constants).
///
///   tl::Tile acc = tl::for_range(0, K, BLOCK_K, tl::zeros({BM, BN}, DType::F32),
///       [&](tl::Tile k, tl::Tile acc) { return tl::dot(loadA(k), loadB(k), acc); });
using LoopBody = std::function<std::vector<Tile>(const Tile &i, const std::vector<Tile> &state)>;
std::vector<Tile> for_range(Bound lo, Bound hi, int64_t step, const std::vector<Tile> &init, const LoopBody &body,
                            SourceLoc loc = SourceLoc::current());
/// The same with one tile of state.
Tile for_range(Bound lo, Bound hi, int64_t step, const Tile &init, const std::function<Tile(const Tile &i, const Tile &state)> &body,
               SourceLoc loc = SourceLoc::current());

// ---- random numbers (Philox 4x32-10: the same bits on every backend) ------------------------

/// Counter-based random numbers: element i depends only on (seed, offsets[i]), so a kernel
/// can regenerate the same stream later (dropout without storing the mask). `seed` is an
/// integer scalar (an argument or a constant); offsets an i32 tile.
Tile randint(const Tile &seed, const Tile &offsets, SourceLoc loc = SourceLoc::current()); // u32
Tile rand(const Tile &seed, const Tile &offsets, SourceLoc loc = SourceLoc::current());    // f32 in [0, 1)
Tile randn(const Tile &seed, const Tile &offsets, SourceLoc loc = SourceLoc::current());   // f32, N(0, 1)
Tile randint(Number seed, const Tile &offsets, SourceLoc loc = SourceLoc::current());
Tile rand(Number seed, const Tile &offsets, SourceLoc loc = SourceLoc::current());
Tile randn(Number seed, const Tile &offsets, SourceLoc loc = SourceLoc::current());

} // namespace tl

namespace detail {

/// How each C++ parameter type of a kernel becomes a kernel argument.
template <class P> struct KernelParam {
  static_assert(sizeof(P) == 0, "kernel parameters must be tl::Ptr<T> or tl::Scalar<T>");
};
template <class T> struct KernelParam<tl::Ptr<T>> {
  static constexpr ArgKind kind = ArgKind::Buffer;
  static constexpr DType dtype = DTypeOf<T>::value;
  static tl::Ptr<T> make(uint32_t index, uint32_t) { return tl::Ptr<T>(index); }
};
template <class T> struct KernelParam<tl::Scalar<T>> {
  static constexpr ArgKind kind = ArgKind::Scalar;
  static constexpr DType dtype = DTypeOf<T>::value;
  static tl::Scalar<T> make(uint32_t, uint32_t valueId) { return tl::Scalar<T>(valueId); }
};

template <class F> struct CallableParams : CallableParams<decltype(&F::operator())> {};
template <class R, class... P> struct CallableParams<R (*)(P...)> { using type = std::tuple<std::decay_t<P>...>; };
template <class R, class... P> struct CallableParams<R(P...)> { using type = std::tuple<std::decay_t<P>...>; };
template <class C, class R, class... P> struct CallableParams<R (C::*)(P...) const> { using type = std::tuple<std::decay_t<P>...>; };
template <class C, class R, class... P> struct CallableParams<R (C::*)(P...)> { using type = std::tuple<std::decay_t<P>...>; };

struct ParamDecl {
  ArgKind kind;
  DType dtype;
};

/// Runs `body` with a fresh trace of kernel `name`; `body` receives the value id of each
/// argument (scalar arguments are values; buffers are referenced by index).
Result<TracedKernel> runTrace(std::string name, const std::vector<ParamDecl> &params,
                        const KernelOptions &options, std::source_location loc,
                        const std::function<void(const std::vector<uint32_t> &)> &body);

template <class F, class... P, size_t... I>
Result<TracedKernel> traceWith(std::string name, F &fn, const KernelOptions &options,
                         std::source_location loc, std::tuple<P...> *, std::index_sequence<I...>) {
  std::vector<ParamDecl> params{ParamDecl{KernelParam<P>::kind, KernelParam<P>::dtype}...};
  return runTrace(std::move(name), params, options, loc, [&](const std::vector<uint32_t> &ids) {
    fn(KernelParam<P>::make(uint32_t(I), ids[I])...);
  });
}

} // namespace detail

/// Traces `fn` (a function or lambda over tl::Ptr / tl::Scalar parameters) into a kernel.
/// Mistakes in the kernel come back as a CompileError Status naming the user's file and line.
template <class F>
Result<TracedKernel> trace(std::string name, F &&fn, const KernelOptions &options = {},
                     std::source_location loc = std::source_location::current()) {
  using Params = typename detail::CallableParams<std::remove_cvref_t<F>>::type;
  return detail::traceWith(std::move(name), fn, options, loc, static_cast<Params *>(nullptr),
                           std::make_index_sequence<std::tuple_size_v<Params>>{});
}

} // namespace tessera
