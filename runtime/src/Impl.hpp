// Private state behind the public handles (Device, Buffer, Module): who owns what, and in which order it dies.
#pragma once

#include "Driver.hpp"

#include <atomic>

namespace tessera::detail {

struct DeviceImpl {
  DeviceInfo info;
  Backend backend = Backend::Vulkan;
  size_t backendIndex = 0;                 // into info.backends
  std::unique_ptr<DriverDevice> native;
  Device *owner = nullptr;                 // the Device object Runtime::open returned
};

struct BufferImpl {
  std::shared_ptr<DeviceImpl> device;      // keeps the native device alive while memory exists
  DType dtype = DType::F32;
  size_t count = 0;
  std::unique_ptr<DriverBuffer> native;    // declared last: freed before the device
  ~BufferImpl() { native.reset(); }
};

struct ModuleImpl {
  std::shared_ptr<DeviceImpl> device;
  Package package;                         // owned copy: Kernel points into it
  std::vector<const Artifact *> artifacts; // per kernel, the one chosen for this device
  /// Per kernel, its chosen code loaded; null where that code cannot run on the device but a
  /// variant on workgroup-scope matrices can (plainFailures says why not).
  std::vector<std::unique_ptr<DriverKernel>> kernels;
  std::vector<Status> plainFailures;
  /// Per kernel, its variants in the order launches try them: the one on workgroup-scope matrices
  /// (the chosen target's chip + kWorkgroupMatrixSuffix, where the device runs it), then the one
  /// for arguments that are multiples of kSpecializedDivisor (the chosen artifact's target); a
  /// launch whose arguments have a variant's divisors (Artifact::divisorOf) runs it instead.
  struct Variant {
    const Artifact *artifact = nullptr;
    std::unique_ptr<DriverKernel> kernel;
    std::unique_ptr<std::atomic<uint64_t>> launches = std::make_unique<std::atomic<uint64_t>>(0);
  };
  std::vector<std::vector<Variant>> variants;
  ~ModuleImpl() {
    variants.clear();
    kernels.clear();
  }
};

struct StreamImpl {
  std::shared_ptr<DeviceImpl> device;
  std::unique_ptr<DriverStream> owned;     // null for the default stream (the device owns it)
  DriverStream *native = nullptr;
  ~StreamImpl() { owned.reset(); }
};

struct EventImpl {
  std::shared_ptr<DeviceImpl> device;
  std::unique_ptr<DriverEvent> native;     // declared last: destroyed before the device
  ~EventImpl() { native.reset(); }
};

} // namespace tessera::detail
