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

std::string_view toString(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::I32: return "i32";
  case DType::Bool: return "bool";
  }
  return "unknown-dtype";
}

std::optional<DType> parseDType(std::string_view name) {
  if (name == "f32") return DType::F32;
  if (name == "i32") return DType::I32;
  if (name == "bool") return DType::Bool;
  return std::nullopt;
}

size_t sizeOf(DType t) {
  switch (t) {
  case DType::F32: return 4;
  case DType::I32: return 4;
  case DType::Bool: return 1; // in-kernel masks only; no buffer or argument holds it yet
  }
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
