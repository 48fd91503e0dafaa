// CUDA discovery (cuInit, per-device attributes and UUID), device open/close, artifact choice and target.
#include "cuda/CudaDriver.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessera::cuda {

namespace {

// The kernel-module version ("580.95.05"); the driver API itself only reports the CUDA version.
// /proc/driver/nvidia/version reads "NVRM version: NVIDIA UNIX [Open] Kernel Module [for] x86_64  580.95.05 ...":
// the version is the first word after "Kernel Module" that starts with a digit and has a dot.
std::string nvidiaDriverVersion() {
  if (FILE *f = std::fopen("/proc/driver/nvidia/version", "r")) {
    char line[512];
    std::string version;
    while (version.empty() && std::fgets(line, sizeof line, f)) {
      const char *p = std::strstr(line, "Kernel Module");
      if (!p) continue;
      p += std::strlen("Kernel Module");
      while (*p && version.empty()) {
        while (*p == ' ' || *p == '\t') ++p;
        const char *end = p;
        while (*end && *end != ' ' && *end != '\t' && *end != '\n') ++end;
        std::string word(p, end);
        if (!word.empty() && word[0] >= '0' && word[0] <= '9' && word.find('.') != std::string::npos) version = word;
        p = end;
      }
    }
    std::fclose(f);
    if (!version.empty()) return version;
  }
  // Otherwise the library file name: libcuda.so.1 links to libcuda.so.580.95.05.
  if (void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    struct link_map *map = nullptr;
    std::string version;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
      char resolved[PATH_MAX];
      if (realpath(map->l_name, resolved)) {
        const char *tail = std::strstr(resolved, "libcuda.so.");
        if (tail && std::strcmp(tail + 11, "1") != 0) version = tail + 11;
      }
    }
    dlclose(lib);
    if (!version.empty()) return version;
  }
  return "unknown";
}

Result<detail::PhysicalDevice> describeDevice(const CudaApi &api, int ordinal, const std::string &driverVersion,
                                              int cudaVersion) {
  CUdevice dev = 0;
  TESSERA_CU_TRY(api, cuDeviceGet(&dev, ordinal));
  detail::PhysicalDevice pd;
  pd.nativeIndex = static_cast<uint32_t>(ordinal);
  char name[256] = {};
  TESSERA_CU_TRY(api, cuDeviceGetName(name, sizeof name - 1, dev));
  pd.name = name;
  pd.vendor = "NVIDIA";
  CUuuid uuid{};
  TESSERA_CU_TRY(api, cuDeviceGetUuid(&uuid, dev));
  std::memcpy(pd.uuid.data(), uuid.bytes, 16);
  pd.orderRank = 0;

  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    return api.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS && v > 0 ? static_cast<uint32_t>(v) : 0u;
  };
  BackendInfo &b = pd.info;
  b.backend = Backend::CUDA;
  b.driverVersion = driverVersion;
  b.apiVersion = std::to_string(cudaVersion / 1000) + "." + std::to_string(cudaVersion % 1000 / 10);
  b.subgroupSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  size_t total = 0;
  TESSERA_CU_TRY(api, cuDeviceTotalMem(&total, dev));
  b.memoryBytes = total;
  b.maxThreadsPerGroup = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  b.maxGroupCount = {attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                     attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  // The most a program may use once its kernel opts in (CudaKernel raises the kernel's dynamic
  // limit at load): 227 KiB on sm_90, 163 KiB on sm_80; the default per block is 48 KiB.
  b.maxSharedMemBytes = std::max(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                                 attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  b.maxBufferBytes = total; // CUDA has no per-binding range limit
  b.computeCapability = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  return pd;
}

} // namespace

bool parseSmChip(const std::string &chip, uint32_t &cc, bool &archSpecific) {
  if (chip.size() < 4 || chip.compare(0, 3, "sm_") != 0) return false;
  size_t i = 3;
  uint32_t v = 0;
  while (i < chip.size() && chip[i] >= '0' && chip[i] <= '9' && v < 10000) v = v * 10 + uint32_t(chip[i++] - '0');
  if (i == 3) return false;
  archSpecific = false;
  if (i < chip.size()) {
    // 'a' (sm_90a) runs only on that exact chip; 'f' (family) code is treated the same way here.
    if (i + 1 != chip.size() || (chip[i] != 'a' && chip[i] != 'f')) return false;
    archSpecific = true;
  }
  cc = v;
  return true;
}

} // namespace tessera::cuda

namespace tessera::detail {

Result<std::shared_ptr<Driver>> createCudaDriver() {
  using namespace tessera::cuda;
  Result<const CudaApi *> loaded = CudaApi::load();
  if (!loaded) return loaded.status();
  const CudaApi &api = **loaded;
  if (CUresult r = api.cuInit(0); r != CUDA_SUCCESS)
    return Status(StatusCode::Unavailable, "cuInit failed: " + api.errorName(r) + " (" + api.errorString(r) + ")");
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return Status(StatusCode::Unavailable, "cuDeviceGetCount failed: " + api.errorName(r));
  if (count <= 0) return Status(StatusCode::Unavailable, "no physical devices (the CUDA driver reports 0 devices)");
  int cudaVersion = 0;
  api.cuDriverGetVersion(&cudaVersion);
  std::string driverVersion = nvidiaDriverVersion();
  std::vector<PhysicalDevice> devices;
  std::string skipped;
  for (int i = 0; i < count; ++i) {
    Result<PhysicalDevice> pd = describeDevice(api, i, driverVersion, cudaVersion);
    if (pd) devices.push_back(std::move(*pd));
    else skipped += (skipped.empty() ? "" : "; ") + pd.status().message();
  }
  if (devices.empty()) return Status(StatusCode::Unavailable, "no usable CUDA device: " + skipped);
  return std::shared_ptr<Driver>(std::make_shared<CudaDriver>(api, std::move(devices)));
}

} // namespace tessera::detail

namespace tessera::cuda {

Result<std::unique_ptr<detail::DriverDevice>> CudaDriver::open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) {
  const detail::PhysicalDevice *info = nullptr;
  for (const auto &pd : devices_)
    if (pd.nativeIndex == nativeIndex) info = &pd;
  if (!info) return Status(StatusCode::NotFound, "no CUDA device with ordinal " + std::to_string(nativeIndex));
  CUdevice dev = 0;
  TESSERA_CU_TRY(api_, cuDeviceGet(&dev, static_cast<int>(nativeIndex)));
  // The primary context is the one the CUDA runtime (and PyTorch, Triton) also use: sharing it
  // lets Tessera buffers and theirs live in one address space.
  CUcontext ctx = nullptr;
  TESSERA_CU_TRY_CTX(api_, cuDevicePrimaryCtxRetain(&ctx, dev), "opening " + info->name);
  return std::unique_ptr<detail::DriverDevice>(std::make_unique<CudaDevice>(self, api_, *info, dev, ctx));
}

CudaDevice::~CudaDevice() {
  destroyEvents();
  api_.cuDevicePrimaryCtxRelease(device_);
}

Status CudaDevice::makeCurrent() const {
  TESSERA_CU_TRY(api_, cuCtxSetCurrent(context_));
  return Status::success();
}

std::string CudaDevice::matrixUnits() {
  const uint32_t cc = info_.info.computeCapability;
  if (cc == 90) return "tensor cores (wgmma from sm_90a code, else mma.sync; f16 and bf16 -> f32)";
  if (cc >= 80) return "tensor cores (mma.sync, f16 and bf16 -> f32)";
  return "none (sm_" + std::to_string(cc) + "; tensor cores are used from sm_80)";
}

TargetDesc CudaDevice::target() {
  TargetDesc t;
  t.kind = TargetKind::PTX;
  // An sm_90 device's code is compiled for sm_90a: the chip's own instructions (the warpgroup
  // matrix units), which no other chip runs.
  t.chip = "sm_" + std::to_string(info_.info.computeCapability) + (info_.info.computeCapability == 90 ? "a" : "");
  t.ptxVersion = 0; // any PTX ISA version this driver's JIT accepts
  t.subgroupSize = info_.info.subgroupSize;
  return t;
}

Result<const Artifact *> CudaDevice::selectArtifact(const KernelEntry &kernel) {
  // The newest chip the device can run: sm_80 code runs on sm_90, sm_90a only on sm_90, and
  // for the device's own chip the arch-specific code (sm_90a: wgmma) over the portable one.
  const uint32_t deviceCc = info_.info.computeCapability;
  const Artifact *best = nullptr;
  uint32_t bestCc = 0;
  bool bestArch = false;
  for (const Artifact &a : kernel.artifacts) {
    // (A tensor-copy form: loadKernel; a specialized variant: Device::load.)
    if (a.target.kind != TargetKind::PTX || !a.tensorMaps.empty() || !a.divisibleArgs.empty()) continue;
    if (a.target.subgroupSize != 0 && a.target.subgroupSize != info_.info.subgroupSize) continue;
    uint32_t cc = 0;
    bool archSpecific = false;
    if (!parseSmChip(a.target.chip, cc, archSpecific)) continue;
    if (cc > deviceCc || (archSpecific && cc != deviceCc)) continue;
    if (!best || cc > bestCc || (cc == bestCc && archSpecific && !bestArch)) {
      best = &a;
      bestCc = cc;
      bestArch = archSpecific;
    }
  }
  if (!best)
    return detail::noArtifactStatus(kernel, info_.name + " via cuda",
                                    "ptx for sm_" + std::to_string(deviceCc) + " or older (subgroup " +
                                        std::to_string(info_.info.subgroupSize) + ")");
  return best;
}

Status CudaDevice::synchronize() {
  if (Status s = makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(api_, cuCtxSynchronize(), "waiting for " + info_.name + " (an earlier launch may have failed)");
  return Status::success();
}

// ---- device-side timing: a pair of CUDA events around each launch and copy ----

void CudaDevice::destroyEvents() {
  for (auto [before, after] : timed_) {
    if (before) api_.cuEventDestroy(before);
    if (after) api_.cuEventDestroy(after);
  }
  timed_.clear();
}

Status CudaDevice::beginTiming() {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (timing_) return Status(StatusCode::InvalidArgument, "beginTiming: timing is already on for " + info_.name + " via cuda");
  destroyEvents();
  timing_ = true;
  return Status::success();
}

Result<size_t> CudaDevice::timedBefore(CUstream stream) {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (!timing_) return kNotTimed;
  CUevent e = nullptr;
  TESSERA_CU_TRY_CTX(api_, cuEventCreate(&e, 0), "creating a timing event");
  timed_.push_back({e, nullptr});
  TESSERA_CU_TRY_CTX(api_, cuEventRecord(e, stream), "recording a timing event");
  return timed_.size() - 1;
}

Status CudaDevice::timedAfter(size_t slot, CUstream stream) {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (slot == kNotTimed || !timing_ || slot >= timed_.size() || timed_[slot].second) return Status::success();
  CUevent e = nullptr;
  TESSERA_CU_TRY_CTX(api_, cuEventCreate(&e, 0), "creating a timing event");
  timed_[slot].second = e;
  TESSERA_CU_TRY_CTX(api_, cuEventRecord(e, stream), "recording a timing event");
  return Status::success();
}

Result<std::vector<double>> CudaDevice::endTiming() {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (!timing_) return Status(StatusCode::InvalidArgument, "endTiming: timing is not on for " + info_.name + " via cuda");
  timing_ = false;
  if (Status s = makeCurrent(); !s) return s;
  std::vector<double> seconds;
  Status status;
  for (auto [before, after] : timed_) {
    if (!after) continue; // the launch itself failed (its error was returned then)
    float ms = 0;
    CUresult r = api_.cuEventSynchronize(after);
    if (r == CUDA_SUCCESS) r = api_.cuEventElapsedTime(&ms, before, after);
    if (r != CUDA_SUCCESS) {
      status = api_.error(r, "cuEventElapsedTime", "reading the device time of a launch on " + info_.name);
      break;
    }
    seconds.push_back(double(ms) * 1e-3);
  }
  destroyEvents();
  if (!status) return status;
  return seconds;
}

Status CudaDevice::copy(detail::DriverStream &stream, detail::DriverBuffer &dst, detail::DriverBuffer &src,
                        size_t bytes) {
  if (Status s = makeCurrent(); !s) return s;
  CUstream on = static_cast<CudaStream &>(stream).handle();
  Result<size_t> slot = timedBefore(on);
  if (!slot) return slot.status();
  TESSERA_CU_TRY_CTX(api_,
                     cuMemcpyDtoDAsync(static_cast<CudaBuffer &>(dst).address(), static_cast<CudaBuffer &>(src).address(),
                                       bytes, on),
                     "copying " + std::to_string(bytes) + " bytes on " + info_.name);
  return timedAfter(*slot, on);
}

// ---- streams and events ----

Result<std::unique_ptr<detail::DriverStream>> CudaDevice::createStream() {
  if (Status s = makeCurrent(); !s) return s;
  CUstream stream = nullptr;
  TESSERA_CU_TRY_CTX(api_, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "creating a stream on " + info_.name);
  return std::unique_ptr<detail::DriverStream>(std::make_unique<CudaStream>(*this, stream));
}

CudaStream::~CudaStream() {
  // cuStreamDestroy returns at once and frees the stream once its work is done; the contract
  // (a stream finishes its work before it goes) asks for the wait.
  if (!stream_ || !device_.makeCurrent()) return;
  device_.api().cuStreamSynchronize(stream_);
  device_.api().cuStreamDestroy(stream_);
}

Result<std::unique_ptr<detail::DriverEvent>> CudaStream::record() {
  if (Status s = device_.makeCurrent(); !s) return s;
  const CudaApi &api = device_.api();
  CUevent event = nullptr;
  TESSERA_CU_TRY_CTX(api, cuEventCreate(&event, 0), "creating an event on " + device_.info().name);
  auto out = std::make_unique<CudaEvent>(device_, event);
  TESSERA_CU_TRY_CTX(api, cuEventRecord(event, stream_), "recording an event on " + device_.info().name);
  return std::unique_ptr<detail::DriverEvent>(std::move(out));
}

Status CudaStream::wait(detail::DriverEvent &event) {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(), cuStreamWaitEvent(stream_, static_cast<CudaEvent &>(event).handle(), 0),
                     "making a stream wait for an event on " + device_.info().name);
  return Status::success();
}

Status CudaStream::synchronize() {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(), cuStreamSynchronize(stream_),
                     "waiting for a stream of " + device_.info().name + " (an earlier launch may have failed)");
  return Status::success();
}

CudaEvent::~CudaEvent() {
  if (event_ && device_.makeCurrent()) device_.api().cuEventDestroy(event_);
}

Result<bool> CudaEvent::query() {
  if (Status s = device_.makeCurrent(); !s) return s;
  CUresult r = device_.api().cuEventQuery(event_);
  if (r == CUDA_ERROR_NOT_READY) return false;
  if (r != CUDA_SUCCESS) return device_.api().error(r, "cuEventQuery", "asking whether an event has passed");
  return true;
}

Status CudaEvent::synchronize() {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(), cuEventSynchronize(event_),
                     "waiting for an event on " + device_.info().name + " (an earlier launch may have failed)");
  return Status::success();
}

Result<double> CudaEvent::secondsSince(detail::DriverEvent &start) {
  if (Status s = synchronize(); !s) return s;
  if (Status s = start.synchronize(); !s) return s;
  float ms = 0;
  TESSERA_CU_TRY_CTX(device_.api(), cuEventElapsedTime(&ms, static_cast<CudaEvent &>(start).handle(), event_),
                     "reading the time between two events");
  return double(ms) * 1e-3;
}

} // namespace tessera::cuda
