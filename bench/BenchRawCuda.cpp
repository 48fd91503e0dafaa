// The same kernel launched straight through the CUDA driver API (cuLaunchKernel in a loop, nothing
// else), for the launch-overhead ratio: the runtime's host time per launch against the driver's.
// libcuda is loaded here on its own (dlopen), as the runtime does, so the harness needs no toolkit.
#include "BenchRun.hpp"

#include <chrono>
#include <cstring>
#include <dlfcn.h>

namespace tessera::bench {

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
struct CUuuid {
  char bytes[16];
};

struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetUuid)(CUuuid *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                             void **, void **);
};

template <class F> bool bind(void *lib, F &slot, const char *name) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  return slot != nullptr;
}

} // namespace

Result<RawLoop> rawCudaLaunchLoop(Device &dev, const Kernel &kernel, const Problem &p, int launches) {
  const Artifact &a = kernel.artifact();
  if (dev.backend() != Backend::CUDA || a.target.kind != TargetKind::PTX)
    return Status(StatusCode::Unsupported, "the raw driver loop is measured through CUDA only");
  if (p.kernel != "add") return Status(StatusCode::Unsupported, "the raw driver loop launches the add kernel only");
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return Status(StatusCode::Unavailable, "libcuda.so.1 cannot be loaded");
  Api api{};
  bool ok = bind(lib, api.cuInit, "cuInit") && bind(lib, api.cuDeviceGetCount, "cuDeviceGetCount") &&
            bind(lib, api.cuDeviceGet, "cuDeviceGet") && bind(lib, api.cuDeviceGetUuid, "cuDeviceGetUuid_v2") &&
            bind(lib, api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            bind(lib, api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
            bind(lib, api.cuCtxSetCurrent, "cuCtxSetCurrent") && bind(lib, api.cuCtxSynchronize, "cuCtxSynchronize") &&
            bind(lib, api.cuModuleLoadData, "cuModuleLoadData") && bind(lib, api.cuModuleUnload, "cuModuleUnload") &&
            bind(lib, api.cuModuleGetFunction, "cuModuleGetFunction") && bind(lib, api.cuMemAlloc, "cuMemAlloc_v2") &&
            bind(lib, api.cuMemFree, "cuMemFree_v2") && bind(lib, api.cuLaunchKernel, "cuLaunchKernel");
  if (!ok || api.cuInit(0) != 0) return Status(StatusCode::Unavailable, "the CUDA driver API is incomplete here");
  // The device with this device's UUID, through its primary context (the one the runtime uses).
  int count = 0;
  api.cuDeviceGetCount(&count);
  CUdevice cu = -1;
  for (int i = 0; i < count && cu < 0; ++i) {
    CUdevice d = 0;
    CUuuid id{};
    if (api.cuDeviceGet(&d, i) == 0 && api.cuDeviceGetUuid(&id, d) == 0 &&
        std::memcmp(id.bytes, dev.info().uuid.data(), 16) == 0)
      cu = d;
  }
  if (cu < 0) return Status(StatusCode::NotFound, "no CUDA device has the UUID of " + dev.describe());
  CUcontext ctx = nullptr;
  if (api.cuDevicePrimaryCtxRetain(&ctx, cu) != 0 || api.cuCtxSetCurrent(ctx) != 0)
    return Status(StatusCode::Unavailable, "cannot make the primary context current");
  std::string ptx(a.code.begin(), a.code.end()); // NUL-terminated for the JIT
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr x = 0, y = 0, out = 0;
  const size_t bytes = size_t(p.cols) * 4;
  Result<RawLoop> result = Status(StatusCode::Internal, "raw CUDA loop: a driver call failed");
  if (api.cuModuleLoadData(&module, ptx.c_str()) == 0 && api.cuModuleGetFunction(&fn, module, a.entryPoint.c_str()) == 0 &&
      api.cuMemAlloc(&x, bytes) == 0 && api.cuMemAlloc(&y, bytes) == 0 && api.cuMemAlloc(&out, bytes) == 0) {
    int32_t n = int32_t(p.cols);
    void *params[] = {&x, &y, &out, &n};
    const Grid g = p.grid();
    auto once = [&] {
      return api.cuLaunchKernel(fn, g.x, g.y, g.z, a.blockSize[0], a.blockSize[1], a.blockSize[2], a.sharedMemBytes,
                                nullptr, params, nullptr) == 0;
    };
    bool launched = true;
    for (int i = 0; i < 5 && launched; ++i) launched = once();
    launched = launched && api.cuCtxSynchronize() == 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches && launched; ++i) launched = once();
    launched = launched && api.cuCtxSynchronize() == 0;
    if (launched)
      result = RawLoop{std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / launches,
                       "the same kernel and grid, cuLaunchKernel alone"};
  }
  for (CUdeviceptr ptr : {x, y, out})
    if (ptr) api.cuMemFree(ptr);
  if (module) api.cuModuleUnload(module);
  api.cuDevicePrimaryCtxRelease(cu);
  return result; // libcuda stays loaded: the runtime holds it too
}

} // namespace tessera::bench
