// The unified runtime: devices found through every driver present, buffers, loaded packages
// and launches. Links neither LLVM nor MLIR; driver libraries are loaded at run time.
#pragma once

#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Package.hpp"
#include "tessera/runtime/Status.hpp"

#include <array>
#include <cstdint>
#include <cstring>
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
  uint32_t maxSharedMemBytes = 0;     // per program (workgroup); CUDA: the opt-in limit, past 48 KiB
  uint64_t maxBufferBytes = 0;        // largest buffer one binding can address
  uint32_t computeCapability = 0;     // CUDA only: 90 for sm_90
  /// Vulkan only: the shader features of this device that Tessera kernels may need, by stable
  /// name ("float16", "int64", "storage16", "subgroup.arithmetic", "atomic.float32.add",
  /// "denorm.preserve.f32", ...; the full list is in docs/runtime.md), in that list's order.
  std::vector<std::string> features;
  /// Vulkan only: every cooperative-matrix shape the device reports (VK_KHR_cooperative_matrix),
  /// as "MxNxK A*B+C->Result", e.g. "16x16x16 f16*f16+f32->f32" (a scope other than the
  /// subgroup's, and saturating accumulation, are appended), in the driver's order; then, where the
  /// device offers VK_NV_cooperative_matrix2, its flexible-dimension entries ("16x16x16-granular
  /// f16*f16+f32->f32 workgroup of 256") and a line on workgroup-scope limits.
  std::vector<std::string> matrixShapes;
  bool hasFeature(std::string_view name) const;
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
class Stream;
namespace detail {
struct BufferImpl;
struct ModuleImpl;
struct DeviceImpl;
struct StreamImpl;
struct EventImpl;
class DriverStream;
} // namespace detail

/// A point in one stream's work, made by Stream::record(). A cheap, shareable handle.
///
///   tessera::Event start = *stream.record();
///   kernel.launch(grid, args, stream);
///   tessera::Event end = *stream.record();
///   double seconds = *end.secondsSince(start);   // device time; waits for `end`
class Event {
public:
  bool valid() const { return impl_ != nullptr; }
  /// Whether every piece of work the event follows has finished. Never blocks.
  Result<bool> query() const;
  /// Blocks the calling thread until that work has finished (and async downloads before it
  /// have reached host memory).
  Status synchronize() const;
  /// Device seconds from `start` to this event (both recorded on streams of this event's device);
  /// waits for both.
  Result<double> secondsSince(const Event &start) const;

  std::shared_ptr<detail::EventImpl> impl_;
};

/// An ordered queue of work on one device: launches, copies, async uploads and downloads run in
/// the order they were enqueued, each after the one before has finished. Work on different streams
/// has no order unless an Event sets one (Stream::wait). Every device has a default stream (what
/// launches without a stream use); Device::createStream makes more. A cheap, shareable handle;
/// the stream finishes its work before it goes.
///
///   tessera::Stream copyIn = *device->createStream(), compute = device->defaultStream();
///   x.uploadAsync(host.data(), bytes, 0, copyIn);
///   compute.wait(*copyIn.record());             // the kernel starts after the upload
///   kernel.launch(grid, {x, y}, compute);
///   y.downloadAsync(out.data(), bytes, 0, compute);
///   compute.synchronize();                      // `out` is filled
///
/// Thread safety: every call on a Stream (and on Event, Buffer, Kernel, Module, Device) may come
/// from any thread, also at the same time; calls on one stream from several threads are ordered
/// in the order they take the stream (docs/runtime.md, "Threads").
class Stream {
public:
  bool valid() const { return impl_ != nullptr; }
  /// The device the stream belongs to (null for a default-constructed Stream).
  const Device *device() const;
  /// An event after all the work enqueued on this stream so far.
  Result<Event> record();
  /// Work enqueued on this stream from now on starts after `event`'s work has finished. The event
  /// may come from any stream of the same device.
  Status wait(const Event &event);
  /// Blocks until every piece of work enqueued on this stream so far has finished.
  Status synchronize();

  std::shared_ptr<detail::StreamImpl> impl_;
};

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

  /// Synchronous copies: they first wait for all work on every stream of the device, then copy;
  /// on return the data is in place.
  Status upload(const void *src, size_t bytes, size_t offsetBytes = 0);
  Status download(void *dst, size_t bytes, size_t offsetBytes = 0) const;
  template <class T> Status upload(std::span<const T> host) { return upload(host.data(), host.size_bytes()); }
  template <class T> Status download(std::span<T> host) const { return download(host.data(), host.size_bytes()); }
  /// Asynchronous copies, ordered on `stream` like launches. uploadAsync has read `src` when it
  /// returns (the host memory may be reused at once). downloadAsync fills `dst` by the time the
  /// stream's work up to it is seen finished: Stream::synchronize, Device::synchronize, or an
  /// Event recorded after it (synchronize, or query returning true); `dst` must stay valid until then.
  Status uploadAsync(const void *src, size_t bytes, size_t offsetBytes, const Stream &stream);
  Status downloadAsync(void *dst, size_t bytes, size_t offsetBytes, const Stream &stream) const;
  /// Copies all of `src` into the start of this buffer, on the device (both on one device; this
  /// one at least as large), on the default stream or on `stream`. Timed like a launch while
  /// timing is on.
  Status copyFrom(const Buffer &src);
  Status copyFrom(const Buffer &src, const Stream &stream);

  std::shared_ptr<detail::BufferImpl> impl_;
};

// `= delete("why")` (C++26; clang accepts it earlier) puts the reason into the compile error.
#if defined(__clang__) && defined(__cpp_deleted_function) && __cpp_deleted_function >= 202403L
#define TESSERA_DELETED_WITH_REASON(decl, reason)                                                              \
  _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wc++26-extensions\"") decl =          \
      delete (reason);                                                                                         \
  _Pragma("clang diagnostic pop")
#else
#define TESSERA_DELETED_WITH_REASON(decl, reason) decl = delete
#endif

/// One launch argument: a buffer or a scalar. A scalar's dtype comes from its C++ type, and
/// the launch requires it to equal the kernel's declared dtype exactly:
///
///   kernel.launch(grid, {x, out, 2.0f, int32_t(n)});        // f32 and i32 scalars
///   kernel.launch(grid, {x, int64_t(offset), uint32_t(m)});  // i64, u32
///   kernel.launch(grid, {x, tessera::f16::fromFloat(0.5f)}); // f16 (2 bytes)
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
  /// Any other arithmetic type (size_t, long, short, char, bool, double, ...) would convert
  /// silently, so it does not compile: cast to the kernel's scalar type, e.g. int32_t(n).
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, int32_t> && !std::is_same_v<T, int64_t> &&
             !std::is_same_v<T, uint32_t> && !std::is_same_v<T, float>)
  TESSERA_DELETED_WITH_REASON(KernelArg(T),
                              "KernelArg: no implicit scalar conversion; cast explicitly to int32_t, int64_t, "
                              "uint32_t or float (tessera::f16 / bf16 for 16-bit floats, KernelArg::scalar<T>(v) "
                              "for i8/i16/u8)");
  /// A scalar of any element type, named explicitly: KernelArg::scalar<int16_t>(-3) is an i16.
  template <class T>
    requires requires { DTypeOf<T>::value; }
  static KernelArg scalar(T v) {
    static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
    KernelArg a(v, DTypeOf<T>::value);
    return a;
  }
  ArgKind kind() const { return kind_; }
  DType dtype() const { return dtype_; }
  const Buffer *buffer() const { return buffer_; }
  /// A scalar's value in its first sizeOf(dtype()) bytes (host byte order).
  const void *scalarBytes() const { return &bits_; }

private:
  template <class T> KernelArg(T v, DType t) : kind_(ArgKind::Scalar), dtype_(t) {
    std::memcpy(static_cast<void *>(&bits_), &v, sizeof v);
  }
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
/// One figure a driver reports about a loaded kernel's machine code (Kernel::statistics).
struct KernelStatistic {
  std::string name;        // the driver's name for it, e.g. "registers per thread"
  std::string description; // the driver's explanation
  double value = 0;        // a count, bytes, or 0 / 1 for a yes-or-no figure
};

class Kernel {
public:
  const KernelEntry &entry() const { return *entry_; }
  /// What the driver reports about this kernel's machine code, for tuning (spills, occupancy):
  /// through CUDA the registers per thread, local memory per thread (register spills and stack),
  /// static shared memory, the most threads per program the code allows and the dynamic shared
  /// memory each launch asks for (past 48 KiB, all of it); through Vulkan the
  /// driver's own pipeline statistics (VK_KHR_pipeline_executable_properties; their names and
  /// meaning are the driver's), or none where the device does not offer them.
  std::vector<KernelStatistic> statistics() const;
  const Artifact &artifact() const { return *artifact_; }
  /// Enqueues one launch over `grid` programs on the device's default stream, or on `stream`
  /// (a stream of the kernel's device). Completion: Stream/Device::synchronize(), an Event, or
  /// any synchronous download.
  Status launch(Grid grid, std::span<const KernelArg> args) const;
  Status launch(Grid grid, std::span<const KernelArg> args, const Stream &stream) const;
  Status launch(Grid grid, std::initializer_list<KernelArg> args) const {
    return launch(grid, std::span<const KernelArg>(args.begin(), args.size()));
  }
  Status launch(Grid grid, std::initializer_list<KernelArg> args, const Stream &stream) const {
    return launch(grid, std::span<const KernelArg>(args.begin(), args.size()), stream);
  }

  std::shared_ptr<detail::ModuleImpl> module_;
  const KernelEntry *entry_ = nullptr;
  Status launchOn(detail::DriverStream &stream, Grid grid, std::span<const KernelArg> args) const;
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
  /// Whether float denormals (16-, 32-, 64-bit) are kept, and on what grounds, for reports:
  /// "promised" (CUDA; a Vulkan driver promising shaderDenormPreserveFloat16/32/64), else per width
  /// e.g. "measured (16, 32, 64)" (a probe kernel found them kept: weaker than a promise),
  /// "promised (32), flushed (16, 64)", "not measured (16, 32, 64): <why>". On Vulkan the first
  /// call may run the probe (docs/runtime.md, "Denormals").
  std::string denormalSupport() const;
  /// Which matrix units fast-mode `dot` uses here, for reports. CUDA: "tensor cores (mma.sync,
  /// f16 and bf16 -> f32)" from sm_80, else "none (sm_XY)". Vulkan: "cooperative matrices: self-test
  /// passed (16x16x16 f16 x f16 + f32 -> f32)", or "none: " and why (no VK_KHR_cooperative_matrix,
  /// the shape not reported, the self-test failed and how). On Vulkan the first call may run the
  /// self-test (docs/runtime.md, "Cooperative matrices").
  std::string matrixUnits() const;
  /// Whether code on workgroup-scope matrices (chips ending +wgmat; docs/compiler.md) runs here:
  /// the most invocations its workgroup may have, where the device offers such matrices and their
  /// self-test passed (with bf16 inputs too, for `bf16`); else 0. Vulkan only; the first call may
  /// run the self-test.
  uint32_t workgroupMatrixInvocations(bool bf16 = false) const;

  Result<Buffer> allocate(DType dtype, size_t count);
  /// Picks each kernel's artifact for this device; fails if a kernel has none.
  Result<Module> load(const Package &pkg);
  /// Blocks until the work of every stream of this device has finished.
  Status synchronize();
  /// The stream launches and copies without a stream go to.
  Stream defaultStream() const;
  /// A new stream, independent of the others (CUDA: a non-blocking stream; Vulkan: command
  /// buffers signalling a timeline semaphore, on one of the device's compute queues).
  Result<Stream> createStream();

  /// Device-side timing: between beginTiming() and endTiming(), every launch and copy on this
  /// device (on any stream) is timed by the device itself (CUDA events recorded around it on its stream; Vulkan
  /// timestamp queries written before and after it in its command buffer), so host overhead is
  /// left out. endTiming() waits for the work and returns the seconds of each, in order.
  ///
  ///   device->beginTiming();
  ///   for (int i = 0; i < 100; ++i) kernel.launch(grid, args);
  ///   std::vector<double> seconds = *device->endTiming();   // 100 entries
  Status beginTiming();
  Result<std::vector<double>> endTiming();

  std::shared_ptr<detail::DeviceImpl> impl_;
};

/// Where Tessera keeps what it caches on disk (compiled kernels, Vulkan pipelines, autotuning
/// choices): $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera; "" when
/// none of them is set (then nothing is cached on disk).
std::string cacheDirectory();

/// Entry point: discovers devices through every driver it can load (only the one TESSERA_BACKEND
/// names, when it names one: the other driver's start-up is not paid for).
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
