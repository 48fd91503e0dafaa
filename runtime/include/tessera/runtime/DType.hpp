// Element types shared by the compiler, the package format and the runtime.
#pragma once

#include "tessera/runtime/Half.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera {

/// Element type of a buffer, a scalar kernel argument or a tile. The numeric values are part
/// of the kernel package format: never renumber, only append.
enum class DType : uint8_t {
  F32 = 1,
  I32 = 2,
  Bool = 3, // masks inside kernels; not a buffer or argument type
  F16 = 4,
  BF16 = 5,
  I8 = 6,
  I16 = 7,
  I64 = 8,
  U8 = 9,
  U32 = 10,
};

/// "f32", "i32", "bool", "f16", "bf16", "i8", "i16", "i64", "u8", "u32".
std::string_view toString(DType t);
std::optional<DType> parseDType(std::string_view name);
size_t sizeOf(DType t);

inline bool isFloat(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }
inline bool isUnsigned(DType t) { return t == DType::U8 || t == DType::U32; }
inline bool isInteger(DType t) { return !isFloat(t) && t != DType::Bool; }

/// The DType of a host C++ element type (for typed uploads and kernel parameters).
template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<f16> { static constexpr DType value = DType::F16; };
template <> struct DTypeOf<bf16> { static constexpr DType value = DType::BF16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::I16; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::U32; };

} // namespace tessera
