// dlopen("libcuda.so.1") into the CudaApi symbol table, plus the error-to-Status conversion.
#include "cuda/CudaApi.h"

#include "Driver.hpp"

#include <dlfcn.h>

namespace tessera::cuda {

namespace {

struct Loaded {
  CudaApi api{};
  Status status;
};

template <class Fn> bool bind(void *lib, Fn &slot, std::initializer_list<const char *> names, std::string &missing) {
  for (const char *name : names)
    if (void *p = dlsym(lib, name)) {
      slot = reinterpret_cast<Fn>(p);
      return true;
    }
  missing = *names.begin();
  return false;
}

Loaded loadOnce() {
  Loaded out;
  dlerror();
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    out.status = Status(StatusCode::Unavailable, err ? err : "libcuda.so.1: cannot be loaded");
    return out;
  }
  CudaApi &a = out.api;
  std::string missing;
  bool ok = bind(lib, a.cuInit, {"cuInit"}, missing) &&
            bind(lib, a.cuDriverGetVersion, {"cuDriverGetVersion"}, missing) &&
            bind(lib, a.cuGetErrorName, {"cuGetErrorName"}, missing) &&
            bind(lib, a.cuGetErrorString, {"cuGetErrorString"}, missing) &&
            bind(lib, a.cuDeviceGetCount, {"cuDeviceGetCount"}, missing) &&
            bind(lib, a.cuDeviceGet, {"cuDeviceGet"}, missing) &&
            bind(lib, a.cuDeviceGetName, {"cuDeviceGetName"}, missing) &&
            bind(lib, a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}, missing) &&
            bind(lib, a.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}, missing) &&
            bind(lib, a.cuDeviceGetUuid, {"cuDeviceGetUuid_v2", "cuDeviceGetUuid"}, missing) &&
            bind(lib, a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, missing) &&
            bind(lib, a.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"}, missing) &&
            bind(lib, a.cuCtxSetCurrent, {"cuCtxSetCurrent"}, missing) &&
            bind(lib, a.cuCtxSynchronize, {"cuCtxSynchronize"}, missing) &&
            bind(lib, a.cuMemAlloc, {"cuMemAlloc_v2"}, missing) &&
            bind(lib, a.cuMemFree, {"cuMemFree_v2"}, missing) &&
            bind(lib, a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing) &&
            bind(lib, a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, missing) &&
            bind(lib, a.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}, missing) &&
            bind(lib, a.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"}, missing) &&
            bind(lib, a.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"}, missing) &&
            bind(lib, a.cuStreamCreate, {"cuStreamCreate"}, missing) &&
            bind(lib, a.cuStreamDestroy, {"cuStreamDestroy_v2"}, missing) &&
            bind(lib, a.cuStreamSynchronize, {"cuStreamSynchronize"}, missing) &&
            bind(lib, a.cuStreamWaitEvent, {"cuStreamWaitEvent"}, missing) &&
            bind(lib, a.cuEventQuery, {"cuEventQuery"}, missing) &&
            bind(lib, a.cuEventCreate, {"cuEventCreate"}, missing) &&
            bind(lib, a.cuEventRecord, {"cuEventRecord"}, missing) &&
            bind(lib, a.cuEventSynchronize, {"cuEventSynchronize"}, missing) &&
            bind(lib, a.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing) &&
            bind(lib, a.cuEventDestroy, {"cuEventDestroy_v2"}, missing) &&
            bind(lib, a.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}, missing) &&
            bind(lib, a.cuModuleUnload, {"cuModuleUnload"}, missing) &&
            bind(lib, a.cuModuleGetFunction, {"cuModuleGetFunction"}, missing) &&
            bind(lib, a.cuFuncGetAttribute, {"cuFuncGetAttribute"}, missing) &&
            bind(lib, a.cuFuncSetAttribute, {"cuFuncSetAttribute"}, missing) &&
            bind(lib, a.cuLaunchKernel, {"cuLaunchKernel"}, missing);
  if (!ok) {
    out.status = Status(StatusCode::Unavailable, "libcuda.so.1 lacks " + missing + " (the NVIDIA driver is too old)");
    dlclose(lib);
    return out;
  }
  // Optional: kernels whose tensor-copy form needs it run their other form without it.
  bind(lib, a.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"}, missing);
  // Optional: without it kernels keep the registers of their first JIT (occupancyRegisterCap).
  bind(lib, a.cuOccupancyMaxActiveBlocksPerMultiprocessor, {"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, missing);
  // The library stays loaded for the life of the process: drivers must not unload under live handles.
  return out;
}

} // namespace

Result<const CudaApi *> CudaApi::load() {
  static Loaded loaded = loadOnce();
  if (!loaded.status) return loaded.status;
  return &loaded.api;
}

std::string CudaApi::errorName(CUresult r) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(r);
}

std::string CudaApi::errorString(CUresult r) const {
  const char *text = nullptr;
  if (cuGetErrorString && cuGetErrorString(r, &text) == CUDA_SUCCESS && text) return text;
  return "unknown CUDA error";
}

Status CudaApi::error(CUresult r, const char *callText, const std::string &context) const {
  std::string name = errorName(r);
  std::string message = detail::calledFunctionName(callText) + " failed: " + name + " (" + errorString(r) + ")";
  if (!context.empty()) message += " while " + context;
  return Status::native(std::move(message), r, std::move(name));
}

} // namespace tessera::cuda
