// Element types shared by the compiler, the package format and the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera {

/// Element type of a buffer or a scalar kernel argument. The numeric values are part of the
/// kernel package format: never renumber, only append.
enum class DType : uint8_t {
  F32 = 1,
  I32 = 2,
  Bool = 3, // masks inside kernels; not (yet) a buffer or argument type
};

/// "f32", "i32".
std::string_view toString(DType t);
std::optional<DType> parseDType(std::string_view name);
size_t sizeOf(DType t);

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };

} // namespace tessera
