// The internal driver interface every backend implements (one folder per driver under runtime/drivers/).
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tessera::detail {

/// One physical device as a single driver reports it, before devices are merged by UUID.
struct PhysicalDevice {
  uint32_t nativeIndex = 0;          // the driver's own ordinal (CUdevice, VkPhysicalDevice index)
  std::string name;
  std::string vendor;
  std::array<uint8_t, 16> uuid{};
  bool isCpu = false;
  int orderRank = 0;                 // 0 discrete GPU, 1 integrated, 2 virtual, 3 other, 4 CPU
  BackendInfo info;
};

class DriverStream;

/// A point in a driver stream (Event). Every call may come from any thread.
class DriverEvent {
public:
  virtual ~DriverEvent() = default;
  virtual Result<bool> query() = 0;
  virtual Status synchronize() = 0;
  /// Device seconds from `start` (an event of the same device) to this one; waits for both.
  virtual Result<double> secondsSince(DriverEvent &start) = 0;
};

/// An ordered queue of device work (Stream). Every call may come from any thread.
class DriverStream {
public:
  virtual ~DriverStream() = default;
  virtual Result<std::unique_ptr<DriverEvent>> record() = 0;
  /// `event` belongs to a stream of the same device.
  virtual Status wait(DriverEvent &event) = 0;
  virtual Status synchronize() = 0;
};

/// Device memory of one driver. Bounds are checked by the caller (Buffer); the synchronous copies
/// are called only once the device is idle.
class DriverBuffer {
public:
  virtual ~DriverBuffer() = default;
  virtual Status upload(const void *src, size_t bytes, size_t offsetBytes) = 0;
  virtual Status download(void *dst, size_t bytes, size_t offsetBytes) = 0;
  /// Stream-ordered copies (Buffer::uploadAsync / downloadAsync for the contract).
  virtual Status uploadAsync(DriverStream &stream, const void *src, size_t bytes, size_t offsetBytes) = 0;
  virtual Status downloadAsync(DriverStream &stream, void *dst, size_t bytes, size_t offsetBytes) = 0;
};

/// One launch argument after the signature checks: exactly one of buffer / scalar is set.
struct LaunchArg {
  const ArgSpec *spec = nullptr;
  DriverBuffer *buffer = nullptr;
  const void *scalar = nullptr;     // sizeOf(spec->dtype) bytes
};

/// One kernel's artifact loaded into native form (CUfunction, VkPipeline).
class DriverKernel {
public:
  virtual ~DriverKernel() = default;
  /// Enqueues a launch on `stream` (of this kernel's device). Arguments are in declaration order
  /// and already checked against the signature and the grid.
  virtual Status launch(DriverStream &stream, Grid grid, std::span<const LaunchArg> args) = 0;
  /// Kernel::statistics: what the driver reports about the machine code.
  virtual std::vector<KernelStatistic> statistics() = 0;
};

/// One physical device opened through one driver. Every call may come from any thread.
class DriverDevice {
public:
  virtual ~DriverDevice() = default;
  virtual TargetDesc target() = 0;
  /// The artifact of `kernel` this device runs best, or an Unsupported status saying why none fits.
  virtual Result<const Artifact *> selectArtifact(const KernelEntry &kernel) = 0;
  /// Whether a variant of the chosen code for a target with more than the chosen one's (a chip
  /// with kWorkgroupMatrixSuffix) runs on this device.
  virtual bool runsVariant(const Artifact &) { return false; }
  virtual Result<std::unique_ptr<DriverBuffer>> allocate(size_t bytes) = 0;
  virtual Result<std::unique_ptr<DriverKernel>> loadKernel(const KernelEntry &kernel, const Artifact &artifact) = 0;
  /// Waits for the work of every stream of the device.
  virtual Status synchronize() = 0;
  virtual DriverStream &defaultStream() = 0;
  virtual Result<std::unique_ptr<DriverStream>> createStream() = 0;
  /// Device-side timing (Device::beginTiming / endTiming): while on, every launch and copy is
  /// timed on the device; endTiming returns the seconds of each, in order, and turns it off.
  virtual Status beginTiming() = 0;
  virtual Result<std::vector<double>> endTiming() = 0;
  /// dst <- src, the first `bytes` of each (buffers of this device), ordered on `stream`.
  virtual Status copy(DriverStream &stream, DriverBuffer &dst, DriverBuffer &src, size_t bytes) = 0;
  /// Where denormal preservation comes from (Device::denormalSupport). The default suits CUDA:
  /// PTX without .ftz keeps denormals at every width, so "promised".
  virtual std::string denormalSupport() { return "promised"; }
  /// Which matrix units fast-mode `dot` uses on this device (Device::matrixUnits).
  virtual std::string matrixUnits() = 0;
  /// The most invocations a workgroup of code on workgroup-scope matrices may have here, 0 where
  /// such code does not run (Device::workgroupMatrixInvocations).
  virtual uint32_t workgroupMatrixInvocations(bool /*bf16*/) { return 0; }
};

/// A loaded driver library and the devices it found.
class Driver {
public:
  virtual ~Driver() = default;
  virtual Backend backend() const = 0;
  virtual const std::vector<PhysicalDevice> &devices() const = 0;
  /// `self` is this driver, handed to the device so that the library outlives every device.
  virtual Result<std::unique_ptr<DriverDevice>> open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) = 0;
};

/// Each returns the driver, or an Unavailable status whose message is the reason it is absent.
Result<std::shared_ptr<Driver>> createCudaDriver();
Result<std::shared_ptr<Driver>> createVulkanDriver();

// Helpers shared by drivers.

/// "ptx sm_90 (subgroup 32), spirv vulkan1.1 (subgroup 8)", or "no artifacts".
std::string describeArtifacts(const KernelEntry &kernel);
/// "kernel 'add' has no artifact for <device>: it needs <need>; the package has <has>".
Status noArtifactStatus(const KernelEntry &kernel, const std::string &deviceName, const std::string &need);
/// The function name in a stringified call: "api.cuMemAlloc(&p, n)" gives "cuMemAlloc".
std::string calledFunctionName(const char *callText);
/// 16 bytes as 8-4-4-4-12 hex.
std::string formatUuid(const std::array<uint8_t, 16> &uuid);

} // namespace tessera::detail
