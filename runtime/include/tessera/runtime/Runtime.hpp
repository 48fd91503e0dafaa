// The unified runtime: devices found through every driver present, buffers, loaded packages
// and launches. Links neither LLVM nor MLIR; driver libraries are loaded at run time.
#pragma once

#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Package.hpp"
#include "tessera/runtime/Status.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tessera {

enum class Backend : uint8_t { CUDA = 1, Vulkan = 2 };
const char *toString(Backend b); // "cuda", "vulkan"
std::optional<Backend> parseBackend(std::string_view name);

/// One physical device as one backend sees it.
struct BackendInfo {
  Backend backend = Backend::Vulkan;
  std::string driverVersion;          // "580.95.05" / "Mesa 22.3.6"
  std::string apiVersion;             // CUDA "13.0" / Vulkan "1.3.230"
  uint32_t subgroupSize = 0;          // warp size on CUDA
  uint64_t memoryBytes = 0;           // device-local memory
  uint32_t maxThreadsPerGroup = 0;
  std::array<uint32_t, 3> maxGroupCount{0, 0, 0};
  uint32_t maxSharedMemBytes = 0;     // per program (workgroup)
  uint64_t maxBufferBytes = 0;        // largest buffer one binding can address
  uint32_t computeCapability = 0;     // CUDA only: 90 for sm_90
};

/// A physical device. A GPU reached through both CUDA and Vulkan is one DeviceInfo with two
/// backends (matched by UUID).
struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string vendor;                 // "NVIDIA", "Mesa (lavapipe)", ...
  std::array<uint8_t, 16> uuid{};
  std::vector<BackendInfo> backends;
  Backend defaultBackend = Backend::Vulkan; // CUDA on NVIDIA when present, else Vulkan
  bool isCpu = false;                 // a CPU implementation (lavapipe)
  const BackendInfo *find(Backend b) const;
};

/// Why a backend is missing on this machine ("libcuda.so.1: cannot open shared object file").
struct BackendAbsence {
  Backend backend;
  std::string reason;
};

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

class Device;
class Module;
namespace detail {
struct BufferImpl;
struct ModuleImpl;
struct DeviceImpl;
} // namespace detail

/// Typed device memory: `count` elements of `dtype`. A cheap, shareable handle; the memory
/// is freed when the last handle goes.
///
///   auto x = device->allocate(tessera::DType::F32, n);
///   x->upload(std::span<const float>(host));
class Buffer {
public:
  Buffer() = default;
  DType dtype() const;
  size_t count() const;
  size_t bytes() const;
  bool valid() const { return impl_ != nullptr; }
  /// The device this buffer lives on (null for a default-constructed Buffer).
  const Device *device() const;

  Status upload(const void *src, size_t bytes, size_t offsetBytes = 0);
  Status download(void *dst, size_t bytes, size_t offsetBytes = 0) const;
  template <class T> Status upload(std::span<const T> host) { return upload(host.data(), host.size_bytes()); }
  template <class T> Status download(std::span<T> host) const { return download(host.data(), host.size_bytes()); }

  std::shared_ptr<detail::BufferImpl> impl_;
};

/// One launch argument: a buffer or a scalar.
class KernelArg {
public:
  KernelArg(const Buffer &b) : kind_(ArgKind::Buffer), buffer_(&b) {}
  KernelArg(const Buffer *b) : kind_(ArgKind::Buffer), buffer_(b) {}
  KernelArg(int32_t v) : kind_(ArgKind::Scalar), dtype_(DType::I32) { bits_.i32 = v; }
  KernelArg(float v) : kind_(ArgKind::Scalar), dtype_(DType::F32) { bits_.f32 = v; }
  KernelArg(int64_t v) : kind_(ArgKind::Scalar), dtype_(DType::I64) { bits_.i64 = v; }
  KernelArg(uint32_t v) : kind_(ArgKind::Scalar), dtype_(DType::U32) { bits_.u32 = v; }
  KernelArg(f16 v) : kind_(ArgKind::Scalar), dtype_(DType::F16) { bits_.u16 = v.bits; }
  KernelArg(bf16 v) : kind_(ArgKind::Scalar), dtype_(DType::BF16) { bits_.u16 = v.bits; }
  /// Other integer and floating types would have to convert silently: cast to the kernel's
  /// scalar type (int32_t, int64_t, uint32_t, float) instead.
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, int32_t> && !std::is_same_v<T, int64_t> &&
             !std::is_same_v<T, uint32_t> && !std::is_same_v<T, float>)
  KernelArg(T) = delete;
  ArgKind kind() const { return kind_; }
  DType dtype() const { return dtype_; }
  const Buffer *buffer() const { return buffer_; }
  const void *scalarBytes() const { return &bits_; }

private:
  ArgKind kind_;
  DType dtype_ = DType::F32;
  const Buffer *buffer_ = nullptr;
  union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint16_t u16;
    float f32;
    uint64_t raw = 0;
  } bits_;
};

/// A kernel of a loaded module. Every launch is checked against the kernel's signature
/// (count, kind and dtype of each argument, buffer device) and the device's grid limits.
class Kernel {
public:
  const KernelEntry &entry() const { return *entry_; }
  const Artifact &artifact() const { return *artifact_; }
  /// Enqueues one launch over `grid` programs. Completion: Device::synchronize() or any download.
  Status launch(Grid grid, std::span<const KernelArg> args) const;
  Status launch(Grid grid, std::initializer_list<KernelArg> args) const {
    return launch(grid, std::span<const KernelArg>(args.begin(), args.size()));
  }

  std::shared_ptr<detail::ModuleImpl> module_;
  const KernelEntry *entry_ = nullptr;
  const Artifact *artifact_ = nullptr;
  size_t index_ = 0;
};

/// A package loaded onto one device: each kernel's artifact for that device, ready to launch.
class Module {
public:
  Result<Kernel> kernel(std::string_view name) const;
  std::shared_ptr<detail::ModuleImpl> impl_;
};

/// One physical device opened through one backend.
class Device {
public:
  const DeviceInfo &info() const;
  Backend backend() const;
  const BackendInfo &backendInfo() const;
  /// What the compiler must produce for this device and backend.
  TargetDesc target() const;
  /// "NVIDIA H200 via cuda".
  std::string describe() const;

  Result<Buffer> allocate(DType dtype, size_t count);
  /// Picks each kernel's artifact for this device; fails if a kernel has none.
  Result<Module> load(const Package &pkg);
  Status synchronize();

  std::shared_ptr<detail::DeviceImpl> impl_;
};

/// Entry point: discovers devices through every driver it can load.
///
///   auto rt = tessera::Runtime::create();
///   auto dev = (*rt)->openDefault();  // TESSERA_DEVICE / TESSERA_BACKEND override the choice
class Runtime {
public:
  static Result<std::shared_ptr<Runtime>> create();
  virtual ~Runtime();
  const std::vector<DeviceInfo> &devices() const;
  const std::vector<BackendAbsence> &absentBackends() const;
  /// The best device (a GPU before a CPU implementation) on its default backend.
  /// TESSERA_DEVICE (an index, or a substring of the name) and TESSERA_BACKEND (cuda|vulkan)
  /// override; an override that names nothing present is an error, not a silent fallback.
  Result<std::shared_ptr<Device>> openDefault();
  Result<std::shared_ptr<Device>> open(uint32_t deviceIndex, std::optional<Backend> backend = std::nullopt);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tessera
