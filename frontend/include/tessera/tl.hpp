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
class TracedKernel {
public:
  const std::string &name() const;
  const std::vector<ArgSpec> &signature() const;
  uint32_t numWarps() const;
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

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Rem, And, Or, Lt, Le, Gt, Ge, Eq, Ne };

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

/// A tile of values: a scalar (shape {}) or a 1-D tile of a power-of-two length, of f32, i32
/// or Bool (a mask). Tiles are cheap handles to traced values; element types are checked when
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

/// A scalar kernel argument of type T (int32_t or float).
template <class T> class Scalar : public Tile {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int32_t>,
                "tl::Scalar<T>: T must be float or int32_t");

public:
  using Tile::Tile;
};

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
  friend PtrTile operator-(const PtrTile &p, At less) {
    return PtrTile(p.arg_, p.elem_, Tile(detail::binary(BinaryOp::Sub, p.offsets_.id(), less.tile.id(), less.loc)));
  }

private:
  uint32_t arg_;
  DType elem_;
  Tile offsets_;
};

/// A buffer kernel argument of element type T (float or int32_t). `p + offsets` addresses
/// elements; pointers are never computed from memory.
template <class T> class Ptr {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int32_t>,
                "tl::Ptr<T>: T must be float or int32_t");

public:
  explicit Ptr(uint32_t arg) : arg_(arg) {}
  uint32_t arg() const { return arg_; }
  friend PtrTile operator+(const Ptr &p, At offsets) {
    return PtrTile(p.arg_, DTypeOf<T>::value, Tile(detail::checkOffsets(offsets.tile.id(), offsets.loc)));
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
/// A tile of `length` copies of `value`, with the dtype of `value` (or `dtype` when given).
Tile full(int64_t length, Number value, DType dtype, SourceLoc loc = SourceLoc::current());

/// Reads `p` where `mask` is true and gives `other` (default 0) where it is false; masked-off
/// elements are never read, so their offsets may be out of bounds.
Tile load(const PtrTile &p, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, Number other, SourceLoc loc = SourceLoc::current());
Tile load(const PtrTile &p, const Tile &mask, const Tile &other, SourceLoc loc = SourceLoc::current());
/// Writes `values` to `p` where `mask` is true (everywhere without a mask).
void store(const PtrTile &p, const Tile &values, SourceLoc loc = SourceLoc::current());
void store(const PtrTile &p, const Tile &values, const Tile &mask, SourceLoc loc = SourceLoc::current());

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
