// Names of the small public enums (StatusCode, DType, TargetKind, Backend) and Status::toString.
#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Package.hpp"
#include "tessera/runtime/Runtime.hpp"
#include "tessera/runtime/Status.hpp"

#include <cctype>

namespace tessera {

const char *toString(StatusCode code) {
  switch (code) {
  case StatusCode::Ok: return "ok";
  case StatusCode::InvalidArgument: return "invalid argument";
  case StatusCode::NotFound: return "not found";
  case StatusCode::Unavailable: return "unavailable";
  case StatusCode::Unsupported: return "unsupported";
  case StatusCode::Corrupt: return "corrupt";
  case StatusCode::OutOfMemory: return "out of memory";
  case StatusCode::DriverError: return "driver error";
  case StatusCode::CompileError: return "compile error";
  case StatusCode::Internal: return "internal error";
  }
  return "unknown status";
}

std::string Status::toString() const {
  if (ok()) return "ok";
  std::string s = tessera::toString(code_);
  s += ": ";
  s += message_;
  // Driver messages normally quote the native name already; add it only when they do not.
  if (!nativeName_.empty() && message_.find(nativeName_) == std::string::npos) {
    s += " [" + nativeName_;
    if (nativeCode_) s += " = " + std::to_string(*nativeCode_);
    s += "]";
  }
  return s;
}

namespace {

struct DTypeName {
  DType type;
  std::string_view name;
  size_t bytes;
};

// Bool is 1 byte only as an in-kernel mask; no buffer or argument holds it.
constexpr DTypeName kDTypeNames[] = {
    {DType::F32, "f32", 4}, {DType::I32, "i32", 4}, {DType::Bool, "bool", 1}, {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2}, {DType::I8, "i8", 1},  {DType::I16, "i16", 2},   {DType::I64, "i64", 8},
    {DType::U8, "u8", 1},     {DType::U32, "u32", 4},
};

} // namespace

std::string_view toString(DType t) {
  for (const DTypeName &d : kDTypeNames)
    if (d.type == t) return d.name;
  return "unknown-dtype";
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeName &d : kDTypeNames)
    if (d.name == name) return d.type;
  return std::nullopt;
}

size_t sizeOf(DType t) {
  for (const DTypeName &d : kDTypeNames)
    if (d.type == t) return d.bytes;
  return 0;
}

const char *toString(TargetKind t) {
  switch (t) {
  case TargetKind::PTX: return "ptx";
  case TargetKind::SPIRV: return "spirv";
  }
  return "unknown-target";
}

const char *toString(Backend b) {
  switch (b) {
  case Backend::CUDA: return "cuda";
  case Backend::Vulkan: return "vulkan";
  }
  return "unknown-backend";
}

std::optional<Backend> parseBackend(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cuda") return Backend::CUDA;
  if (lower == "vulkan" || lower == "vk") return Backend::Vulkan;
  return std::nullopt;
}

} // namespace tessera
