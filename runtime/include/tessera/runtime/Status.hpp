// Status and Result: how every runtime and compiler call reports failure without aborting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tessera {

/// What kind of failure a Status reports. `Ok` is the only success value.
enum class StatusCode : uint8_t {
  Ok = 0,
  InvalidArgument,  // the caller passed something wrong (bad launch arguments, bad options)
  NotFound,         // a named device, kernel or file does not exist
  Unavailable,      // a driver, device or backend is not present on this machine
  Unsupported,      // the request is valid but this device/backend/version cannot do it
  Corrupt,          // a package or file failed its integrity checks
  OutOfMemory,      // a device or host allocation failed
  DriverError,      // the native driver returned an error (see nativeCode/nativeName)
  CompileError,     // the user's kernel is wrong (message names the user's source line)
  Internal,         // a bug in Tessera
};

const char *toString(StatusCode code);

/// A success or a failure with a message. Failures from a native driver also carry the
/// driver's own code and its name (`CUDA_ERROR_OUT_OF_MEMORY`, `VK_ERROR_DEVICE_LOST`).
///
///   tessera::Status s = buffer.upload(host.data(), bytes);
///   if (!s) std::fprintf(stderr, "%s\n", s.toString().c_str());
class Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status success() { return {}; }
  static Status native(std::string message, int64_t nativeCode, std::string nativeName) {
    Status s(StatusCode::DriverError, std::move(message));
    s.nativeCode_ = nativeCode;
    s.nativeName_ = std::move(nativeName);
    return s;
  }

  bool ok() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  std::optional<int64_t> nativeCode() const { return nativeCode_; }
  const std::string &nativeName() const { return nativeName_; }
  /// "invalid argument: kernel 'add' expects 4 arguments, got 3".
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
  std::optional<int64_t> nativeCode_;
  std::string nativeName_;
};

/// A value or the Status that explains why there is none.
///
///   tessera::Result<tessera::Package> pkg = tessera::readPackageFile("k.tspkg");
///   if (!pkg) return pkg.status();
///   use(*pkg);
template <class T> class Result {
public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status status) : v_(std::move(status)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T &value() & { return std::get<0>(v_); }
  const T &value() const & { return std::get<0>(v_); }
  T &&value() && { return std::get<0>(std::move(v_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  Status status() const { return ok() ? Status() : std::get<1>(v_); }

private:
  std::variant<T, Status> v_;
};

} // namespace tessera
