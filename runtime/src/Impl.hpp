// Private state behind the public handles (Device, Buffer, Module): who owns what, and in which order it dies.
#pragma once

#include "Driver.hpp"

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
  std::vector<std::unique_ptr<DriverKernel>> kernels;
  ~ModuleImpl() { kernels.clear(); }
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
