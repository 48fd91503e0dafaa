// CUDA driver classes: CudaDriver (discovery), CudaDevice (a primary context), CudaBuffer, CudaKernel.
#pragma once

#include "Driver.hpp"
#include "cuda/CudaApi.h"

#include <atomic>
#include <mutex>

namespace tessera::cuda {

class CudaDriver final : public detail::Driver {
public:
  CudaDriver(const CudaApi &api, std::vector<detail::PhysicalDevice> devices) : api_(api), devices_(std::move(devices)) {}
  Backend backend() const override { return Backend::CUDA; }
  const std::vector<detail::PhysicalDevice> &devices() const override { return devices_; }
  Result<std::unique_ptr<detail::DriverDevice>> open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) override;

private:
  const CudaApi &api_;
  std::vector<detail::PhysicalDevice> devices_;
};

class CudaDevice;

/// A CUstream: the legacy null stream for the device's default stream, else a non-blocking
/// stream of its own (no implicit order against the others).
class CudaStream final : public detail::DriverStream {
public:
  CudaStream(CudaDevice &device, CUstream stream) : device_(device), stream_(stream) {}
  ~CudaStream() override;
  Result<std::unique_ptr<detail::DriverEvent>> record() override;
  Status wait(detail::DriverEvent &event) override;
  Status synchronize() override;
  CUstream handle() const { return stream_; }

private:
  CudaDevice &device_;
  CUstream stream_;
};

class CudaEvent final : public detail::DriverEvent {
public:
  CudaEvent(CudaDevice &device, CUevent event) : device_(device), event_(event) {}
  ~CudaEvent() override;
  Result<bool> query() override;
  Status synchronize() override;
  Result<double> secondsSince(detail::DriverEvent &start) override;
  CUevent handle() const { return event_; }

private:
  CudaDevice &device_;
  CUevent event_;
};

class CudaDevice final : public detail::DriverDevice {
public:
  CudaDevice(std::shared_ptr<detail::Driver> driver, const CudaApi &api, const detail::PhysicalDevice &info,
             CUdevice device, CUcontext context)
      : driver_(std::move(driver)), api_(api), info_(info), device_(device), context_(context),
        defaultStream_(*this, nullptr) {}
  ~CudaDevice() override;

  TargetDesc target() override;
  std::string matrixUnits() override;
  Result<const Artifact *> selectArtifact(const KernelEntry &kernel) override;
  Result<std::unique_ptr<detail::DriverBuffer>> allocate(size_t bytes) override;
  Result<std::unique_ptr<detail::DriverKernel>> loadKernel(const KernelEntry &kernel, const Artifact &artifact) override;
  Status synchronize() override;
  detail::DriverStream &defaultStream() override { return defaultStream_; }
  Result<std::unique_ptr<detail::DriverStream>> createStream() override;
  Status beginTiming() override;
  Result<std::vector<double>> endTiming() override;
  Status copy(detail::DriverStream &stream, detail::DriverBuffer &dst, detail::DriverBuffer &src, size_t bytes) override;

  /// With timing on: records an event on `stream` before a launch or copy and returns its slot
  /// (kNotTimed when timing is off); `timedAfter` records the matching one after it.
  static constexpr size_t kNotTimed = ~size_t(0);
  Result<size_t> timedBefore(CUstream stream);
  Status timedAfter(size_t slot, CUstream stream);

  /// Makes this device's context current on the calling thread; every entry point starts with it.
  Status makeCurrent() const;
  const CudaApi &api() const { return api_; }
  const detail::PhysicalDevice &info() const { return info_; }

private:
  std::shared_ptr<detail::Driver> driver_; // keeps the driver (and its device list) alive
  const CudaApi &api_;
  detail::PhysicalDevice info_;
  CUdevice device_;
  CUcontext context_;
  CudaStream defaultStream_;
  std::mutex timingLock_; // guards timing_ and timed_: launches on several threads record events
  bool timing_ = false;
  std::vector<std::pair<CUevent, CUevent>> timed_; // (before, after) per timed launch or copy
  void destroyEvents();
};

class CudaBuffer final : public detail::DriverBuffer {
public:
  CudaBuffer(CudaDevice &device, CUdeviceptr ptr) : device_(device), ptr_(ptr) {}
  ~CudaBuffer() override;
  Status upload(const void *src, size_t bytes, size_t offsetBytes) override;
  Status download(void *dst, size_t bytes, size_t offsetBytes) override;
  Status uploadAsync(detail::DriverStream &stream, const void *src, size_t bytes, size_t offsetBytes) override;
  Status downloadAsync(detail::DriverStream &stream, void *dst, size_t bytes, size_t offsetBytes) override;
  CUdeviceptr address() const { return ptr_; }

private:
  CudaDevice &device_;
  CUdeviceptr ptr_;
};

/// An artifact's PTX loaded by the driver's JIT: its function and the dynamic shared memory a
/// launch asks for.
struct CudaCode {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  uint32_t dynamicSharedBytes = 0;
  const Artifact *artifact = nullptr;
};

/// A kernel's code. Where the package also holds the artifact's bulk-tensor-copy form
/// (Artifact::tensorMaps) and the driver can build tensor maps, that form is loaded too and
/// each launch whose arguments the maps can describe (tensorMapRequest) runs it, with the maps
/// after the arguments; the others run the artifact.
class CudaKernel final : public detail::DriverKernel {
public:
  CudaKernel(CudaDevice &device, std::string name, CudaCode code, CudaCode copies)
      : device_(device), name_(std::move(name)), code_(code), copies_(copies) {}
  ~CudaKernel() override;
  Status launch(detail::DriverStream &stream, Grid grid, std::span<const detail::LaunchArg> args) override;
  std::vector<KernelStatistic> statistics() override;

private:
  CudaDevice &device_;
  std::string name_;
  CudaCode code_, copies_; // copies_.fn null: no tensor-copy form
  std::atomic<uint64_t> copyLaunches_{0};
};

/// Parses "sm_90" / "sm_90a" into 90 and whether the code is arch-specific ('a': runs only on that chip).
bool parseSmChip(const std::string &chip, uint32_t &cc, bool &archSpecific);

} // namespace tessera::cuda
