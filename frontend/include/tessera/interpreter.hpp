// The reference interpreter: runs a traced kernel's tile IR on the CPU, on host buffers, with
// exact IEEE arithmetic, in the canonical orders of portable mode (docs/interpreter.md).
//
//   auto kernel = tessera::trace("add", add);            // add(Ptr<float> x, y, out, Scalar<int32_t> n)
//   auto x = tessera::HostBuffer::of(std::vector<float>{1, 2, 3});
//   auto y = tessera::HostBuffer::of(std::vector<float>{4, 5, 6});
//   tessera::HostBuffer out(tessera::DType::F32, 3);
//   tessera::Status s = tessera::interpret(*kernel, {1}, {x, y, out, int32_t(3)});
//   std::vector<float> result = out.values<float>();     // {5, 7, 9}, the golden bits
//
// With `{.shadow = true}` every float value also carries a float64 value computed by the same
// operations in double; stores leave it in HostBuffer::shadow, which measures how far the f32
// result is from the (nearly) exact one. This header includes no MLIR.
#pragma once

#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Runtime.hpp" // Grid (the runtime headers hold no driver API)
#include "tessera/runtime/Status.hpp"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <vector>

namespace tessera {

class TracedKernel; // tessera/tl.hpp

/// A host buffer the interpreter reads and writes: `count()` elements of `dtype` as raw bytes in
/// the device layout (f16/bf16 as their 16-bit patterns, little-endian like the host), and,
/// after a shadow run stored into it, the float64 value of each element in `shadow` (empty
/// until then; a load reads it when present).
///
///   tessera::HostBuffer b(tessera::DType::I32, 1024);   // zeros
///   b.data<int32_t>()[5] = 7;
///   std::vector<int32_t> v = b.values<int32_t>();
struct HostBuffer {
  DType dtype = DType::F32;
  std::vector<uint8_t> bytes;
  std::vector<double> shadow;

  HostBuffer() = default;
  /// `count` zero elements.
  HostBuffer(DType t, size_t count) : dtype(t), bytes(count * sizeOf(t), 0) {}
  /// A copy of `values`; the dtype comes from T (float, f16, bf16, int8_t ... uint32_t).
  template <class T>
    requires requires { DTypeOf<T>::value; }
  static HostBuffer of(std::span<const T> values) {
    HostBuffer b(DTypeOf<T>::value, values.size());
    if (!values.empty())
      std::memcpy(b.bytes.data(), values.data(), values.size_bytes());
    return b;
  }
  template <class T>
    requires requires { DTypeOf<T>::value; }
  static HostBuffer of(const std::vector<T> &values) {
    return of(std::span<const T>(values));
  }

  size_t count() const { return sizeOf(dtype) ? bytes.size() / sizeOf(dtype) : 0; }
  /// The elements as T; null unless sizeof(T) is the element size (so an f32 buffer can be
  /// read as uint32_t bits).
  template <class T> T *data() { return sizeof(T) == sizeOf(dtype) ? reinterpret_cast<T *>(bytes.data()) : nullptr; }
  template <class T> const T *data() const {
    return sizeof(T) == sizeOf(dtype) ? reinterpret_cast<const T *>(bytes.data()) : nullptr;
  }
  /// A copy of the elements as T (empty unless sizeof(T) is the element size).
  template <class T> std::vector<T> values() const {
    if (sizeof(T) != sizeOf(dtype))
      return {};
    std::vector<T> out(count());
    if (!out.empty())
      std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
  /// Sets every byte to `byte` (0xFF poisons: NaN as f32, -1 as i32) and drops the shadow.
  void fill(uint8_t byte) {
    std::memset(bytes.data(), byte, bytes.size());
    shadow.clear();
  }
};

/// One interpreter argument: a HostBuffer (read and written in place) or a scalar, made like
/// the runtime's KernelArg. A scalar's dtype comes from its C++ type and must equal the
/// kernel's declared dtype:
///
///   tessera::interpret(kernel, grid, {x, out, 2.0f, int32_t(n)});
///   tessera::interpret(kernel, grid, {x, tessera::InterpArg::scalar<int16_t>(-3)});
class InterpArg {
public:
  InterpArg(HostBuffer &b) : kind_(ArgKind::Buffer), buffer_(&b) {}
  InterpArg(HostBuffer *b) : kind_(ArgKind::Buffer), buffer_(b) {}
  InterpArg(int32_t v) : InterpArg(v, DType::I32) {}
  InterpArg(int64_t v) : InterpArg(v, DType::I64) {}
  InterpArg(uint32_t v) : InterpArg(v, DType::U32) {}
  InterpArg(float v) : InterpArg(v, DType::F32) {}
  InterpArg(f16 v) : InterpArg(v.bits, DType::F16) {}
  InterpArg(bf16 v) : InterpArg(v.bits, DType::BF16) {}
  /// Other arithmetic types would convert silently: cast to the kernel's scalar type.
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, int32_t> && !std::is_same_v<T, int64_t> &&
             !std::is_same_v<T, uint32_t> && !std::is_same_v<T, float>)
  InterpArg(T) = delete;
  /// A scalar of any element type, named explicitly: InterpArg::scalar<uint8_t>(200) is a u8.
  template <class T>
    requires requires { DTypeOf<T>::value; }
  static InterpArg scalar(T v) {
    static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
    return InterpArg(v, DTypeOf<T>::value);
  }

  ArgKind kind() const { return kind_; }
  DType dtype() const { return dtype_; }
  HostBuffer *buffer() const { return buffer_; }
  /// A scalar's bits in the low sizeOf(dtype()) bytes, zero-extended.
  uint64_t scalarBits() const { return bits_; }

private:
  template <class T> InterpArg(T v, DType t) : kind_(ArgKind::Scalar), dtype_(t) { std::memcpy(&bits_, &v, sizeof v); }
  ArgKind kind_;
  DType dtype_ = DType::F32;
  HostBuffer *buffer_ = nullptr;
  uint64_t bits_ = 0;
};

struct InterpretOptions {
  /// Carry a float64 shadow of every float value (see HostBuffer::shadow).
  bool shadow = false;
  /// Run the canonicalizer on a copy of the kernel first (what `tessera::compile` does before
  /// lowering); the result is the same bits either way.
  bool canonicalize = false;
  /// A portable kernel runs after the compiler's tile passes (the expansion of math into basic
  /// operations, then canonicalization): its outputs are the golden bits every backend must
  /// reproduce. False runs the IR as traced, math ops and all: with `shadow` that carries the
  /// float64 value of each math function itself, the reference the golden bits are measured
  /// against (an expanded run's shadow would only repeat the expansion in double).
  bool portableExpansion = true;
};

/// Runs `kernel` over `grid` programs (x fastest, then y, then z), one program at a time, each
/// op over its elements in index order: atomics see exactly that order. Arguments are checked
/// against kernel.signature() like Kernel::launch checks them (InvalidArgument); an unmasked
/// load, store or atomic outside its buffer stops the run with an InvalidArgument naming the
/// argument, the program and the offset (programs before it have run); an op the
/// interpreter does not know is Unsupported.
Status interpret(const TracedKernel &kernel, Grid grid, std::span<const InterpArg> args,
                 const InterpretOptions &options = {});
inline Status interpret(const TracedKernel &kernel, Grid grid, std::initializer_list<InterpArg> args,
                        const InterpretOptions &options = {}) {
  return interpret(kernel, grid, std::span<const InterpArg>(args.begin(), args.size()), options);
}

} // namespace tessera
