// CudaKernel: PTX JIT-loaded with cuModuleLoadDataEx (error log kept), launched with cuLaunchKernel.
#include "cuda/CudaDriver.hpp"

#include <cstring>

namespace tessera::cuda {

namespace {

std::string trimLog(const char *log) {
  std::string s(log);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

} // namespace

Result<std::unique_ptr<detail::DriverKernel>> CudaDevice::loadKernel(const KernelEntry &kernel, const Artifact &artifact) {
  if (Status s = makeCurrent(); !s) return s;
  const BackendInfo &bi = info_.info;
  uint64_t threads = uint64_t(artifact.blockSize[0]) * artifact.blockSize[1] * artifact.blockSize[2];
  if (threads == 0 || threads > bi.maxThreadsPerGroup)
    return Status(StatusCode::Unsupported, "kernel '" + kernel.name + "' needs " + std::to_string(threads) +
                                               " threads per program; " + info_.name + " allows 1.." +
                                               std::to_string(bi.maxThreadsPerGroup));

  // The driver reads PTX as a C string; the package stores it without the terminating NUL.
  std::vector<char> ptx(artifact.code.begin(), artifact.code.end());
  ptx.push_back('\0');
  char errorLog[16384] = {};
  char infoLog[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(uintptr_t(sizeof errorLog - 1)), infoLog,
                    reinterpret_cast<void *>(uintptr_t(sizeof infoLog - 1))};
  CUmodule module = nullptr;
  CUresult r = api_.cuModuleLoadDataEx(&module, ptx.data(), 4, options, values);
  if (r != CUDA_SUCCESS) {
    std::string log = trimLog(errorLog);
    std::string context = "loading kernel '" + kernel.name + "' (" + artifact.target.chip + ") on " + info_.name;
    context += log.empty() ? std::string("; the JIT left no log") : "; JIT log:\n" + log;
    return api_.error(r, "cuModuleLoadDataEx(...)", context);
  }

  CUfunction fn = nullptr;
  r = api_.cuModuleGetFunction(&fn, module, artifact.entryPoint.c_str());
  if (r != CUDA_SUCCESS) {
    api_.cuModuleUnload(module);
    return api_.error(r, "cuModuleGetFunction(...)",
                      "looking up entry point '" + artifact.entryPoint + "' of kernel '" + kernel.name + "'");
  }

  // sharedMemBytes is everything the kernel uses. Static .shared arrays are already reserved by
  // the module; only the rest is passed to the launch as dynamic shared memory.
  int staticShared = 0;
  api_.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
  uint32_t dynamicShared = artifact.sharedMemBytes > uint32_t(staticShared) ? artifact.sharedMemBytes - staticShared : 0;
  if (uint64_t(staticShared) + dynamicShared > bi.maxSharedMemBytes) {
    api_.cuModuleUnload(module);
    return Status(StatusCode::Unsupported, "kernel '" + kernel.name + "' uses " +
                                               std::to_string(uint64_t(staticShared) + dynamicShared) +
                                               " bytes of shared memory; " + info_.name + " allows " +
                                               std::to_string(bi.maxSharedMemBytes) + " per program");
  }
  // Past the 48 KiB default (static and dynamic together), a kernel must ask for its dynamic part.
  if (dynamicShared > 0)
    if (CUresult s = api_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(dynamicShared));
        s != CUDA_SUCCESS) {
      api_.cuModuleUnload(module);
      return api_.error(s, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                        "kernel '" + kernel.name + "' asks for " + std::to_string(dynamicShared) +
                            " bytes of dynamic shared memory on " + info_.name);
    }
  return std::unique_ptr<detail::DriverKernel>(
      std::make_unique<CudaKernel>(*this, kernel.name, module, fn, artifact, dynamicShared));
}

CudaKernel::~CudaKernel() {
  if (device_.makeCurrent()) device_.api().cuModuleUnload(module_);
}

std::vector<KernelStatistic> CudaKernel::statistics() {
  struct Figure {
    CUfunction_attribute attribute;
    const char *name, *description;
  };
  static const Figure figures[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, "registers per thread", "registers each thread of the machine code uses"},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory per thread",
       "bytes of local memory each thread uses: register spills and stack"},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory", "bytes of shared memory the code declares"},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per program",
       "the most threads a program of this code can have on this device (registers permitting)"},
  };
  std::vector<KernelStatistic> out;
  if (!device_.makeCurrent()) return out;
  for (const Figure &f : figures) {
    int value = 0;
    if (device_.api().cuFuncGetAttribute(&value, f.attribute, fn_) == CUDA_SUCCESS)
      out.push_back({f.name, f.description, double(value)});
  }
  // Past 48 KiB a kernel's shared memory is dynamic (docs/compiler.md): the driver's static
  // figure is then 0, and the launch asks for this much.
  out.push_back({"dynamic shared memory", "bytes of shared memory each launch asks for beyond the static",
                 double(dynamicSharedBytes_)});
  return out;
}

Status CudaKernel::launch(detail::DriverStream &stream, Grid grid, std::span<const detail::LaunchArg> args) {
  if (Status s = device_.makeCurrent(); !s) return s;
  // Kernel parameters in declaration order: a buffer as its device address, a scalar by value.
  std::vector<CUdeviceptr> addresses(args.size());
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].buffer) {
      addresses[i] = static_cast<const CudaBuffer *>(args[i].buffer)->address();
      params[i] = &addresses[i];
    } else {
      params[i] = const_cast<void *>(args[i].scalar);
    }
  }
  const auto &b = artifact_.blockSize;
  CUstream on = static_cast<CudaStream &>(stream).handle();
  Result<size_t> slot = device_.timedBefore(on);
  if (!slot) return slot.status();
  TESSERA_CU_TRY_CTX(device_.api(),
                     cuLaunchKernel(fn_, grid.x, grid.y, grid.z, b[0], b[1], b[2], dynamicSharedBytes_, on,
                                    params.empty() ? nullptr : params.data(), nullptr),
                     "launching kernel '" + name_ + "'");
  return device_.timedAfter(*slot, on);
}

} // namespace tessera::cuda
