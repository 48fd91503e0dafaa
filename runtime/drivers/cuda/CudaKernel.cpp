// CudaKernel: PTX JIT-loaded with cuModuleLoadDataEx (error log kept), launched with cuLaunchKernel.
#include "cuda/CudaDriver.hpp"
#include "cuda/Occupancy.hpp"
#include "cuda/TensorMaps.hpp"

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace tessera::cuda {

namespace {

std::string trimLog(const char *log) {
  std::string s(log);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

} // namespace

namespace {

int64_t threadsOf(const Artifact &artifact) {
  return int64_t(artifact.blockSize[0]) * artifact.blockSize[1] * artifact.blockSize[2];
}

/// Programs of `fn` (no dynamic shared memory) that fit on one multiprocessor at once (0 where
/// the driver cannot say).
int programsPerProcessor(const CudaApi &api, CUfunction fn, const Artifact &artifact) {
  int programs = 0;
  if (!api.cuOccupancyMaxActiveBlocksPerMultiprocessor ||
      api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&programs, fn, int(threadsOf(artifact)), 0) != CUDA_SUCCESS)
    return 0;
  return programs;
}

/// The occupancy retry: PTX JIT-compiled by the driver takes as many registers as its scheduling
/// likes, and a few past a step costs a program per multiprocessor (softmax 4096 x 16384 on 16
/// warps took 71 registers before its reductions changed: one program of 512 threads, where 64
/// fit two). Code without matrix
/// instructions (whose kernels plan their registers: mma, wgmma, setmaxnreg) that is at most an
/// eighth past such a step is compiled again under it (a `.maxnreg` directive: withRegisterCap),
/// and that code is kept where it spills nothing and more programs fit.
/// TESSERA_OCCUPANCY_RETRY=0: never.
bool occupancyRetryAllowed() {
  static const bool allowed = [] {
    const char *env = std::getenv("TESSERA_OCCUPANCY_RETRY");
    return !(env && std::string_view(env) == "0");
  }();
  return allowed;
}

/// `ptx`: NUL-terminated.
CUresult jit(const CudaApi &api, CUmodule *module, const std::vector<char> &ptx, char (&errorLog)[16384]) {
  char infoLog[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(uintptr_t(sizeof errorLog - 1)), infoLog,
                    reinterpret_cast<void *>(uintptr_t(sizeof infoLog - 1))};
  return api.cuModuleLoadDataEx(module, ptx.data(), 4, options, values);
}

/// `code` again under fewer registers where one more program per multiprocessor then fits and
/// nothing spills (occupancyRetryAllowed); otherwise `code` unchanged.
void retryForOccupancy(const CudaApi &api, CudaCode &code, const std::vector<char> &ptx, const Artifact &artifact) {
  const std::string_view text(ptx.data(), ptx.size() - 1);
  if (!occupancyRetryAllowed() || code.dynamicSharedBytes > 0 || text.find("mma.") != std::string_view::npos ||
      text.find("setmaxnreg") != std::string_view::npos)
    return;
  int registers = 0;
  api.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, code.fn);
  const int programs = programsPerProcessor(api, code.fn, artifact);
  const int64_t cap = occupancyRegisterCap(registers, threadsOf(artifact), programs);
  if (cap == 0) return;
  std::optional<std::string> bounded = withRegisterCap(text, cap);
  if (!bounded) return;
  std::vector<char> boundedPtx(bounded->begin(), bounded->end());
  boundedPtx.push_back('\0');
  char errorLog[16384] = {};
  CudaCode capped = code;
  if (jit(api, &capped.module, boundedPtx, errorLog) != CUDA_SUCCESS) return;
  int spilled = 0;
  if (api.cuModuleGetFunction(&capped.fn, capped.module, artifact.entryPoint.c_str()) == CUDA_SUCCESS &&
      api.cuFuncGetAttribute(&spilled, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, capped.fn) == CUDA_SUCCESS && spilled == 0 &&
      programsPerProcessor(api, capped.fn, artifact) > programs) {
    api.cuModuleUnload(code.module);
    code = capped;
    return;
  }
  api.cuModuleUnload(capped.module);
}

/// JIT-loads one artifact's PTX and prepares its launch: the function, and the dynamic shared
/// memory it asks for (opted in past the 48 KiB default).
Result<CudaCode> loadCode(const CudaApi &api, const KernelEntry &kernel, const Artifact &artifact,
                          const detail::PhysicalDevice &device) {
  const BackendInfo &bi = device.info;
  // The driver reads PTX as a C string; the package stores it without the terminating NUL.
  std::vector<char> ptx(artifact.code.begin(), artifact.code.end());
  ptx.push_back('\0');
  char errorLog[16384] = {};
  const std::string form = artifact.tensorMaps.empty() ? "" : ", its tensor-copy form";
  CudaCode code;
  code.artifact = &artifact;
  CUresult r = jit(api, &code.module, ptx, errorLog);
  if (r != CUDA_SUCCESS) {
    std::string log = trimLog(errorLog);
    std::string context = "loading kernel '" + kernel.name + "' (" + artifact.target.chip + form + ") on " + device.name;
    context += log.empty() ? std::string("; the JIT left no log") : "; JIT log:\n" + log;
    return api.error(r, "cuModuleLoadDataEx(...)", context);
  }
  r = api.cuModuleGetFunction(&code.fn, code.module, artifact.entryPoint.c_str());
  if (r != CUDA_SUCCESS) {
    api.cuModuleUnload(code.module);
    return api.error(r, "cuModuleGetFunction(...)",
                     "looking up entry point '" + artifact.entryPoint + "' of kernel '" + kernel.name + "'" + form);
  }
  // sharedMemBytes is everything the kernel uses. Static .shared arrays are already reserved by
  // the module; only the rest is passed to the launch as dynamic shared memory.
  int staticShared = 0;
  api.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, code.fn);
  code.dynamicSharedBytes = artifact.sharedMemBytes > uint32_t(staticShared) ? artifact.sharedMemBytes - staticShared : 0;
  if (uint64_t(staticShared) + code.dynamicSharedBytes > bi.maxSharedMemBytes) {
    api.cuModuleUnload(code.module);
    return Status(StatusCode::Unsupported, "kernel '" + kernel.name + "'" + form + " uses " +
                                               std::to_string(uint64_t(staticShared) + code.dynamicSharedBytes) +
                                               " bytes of shared memory; " + device.name + " allows " +
                                               std::to_string(bi.maxSharedMemBytes) + " per program");
  }
  // Past the 48 KiB default (static and dynamic together), a kernel must ask for its dynamic part.
  if (code.dynamicSharedBytes > 0)
    if (CUresult s = api.cuFuncSetAttribute(code.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            int(code.dynamicSharedBytes));
        s != CUDA_SUCCESS) {
      api.cuModuleUnload(code.module);
      return api.error(s, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                       "kernel '" + kernel.name + "'" + form + " asks for " + std::to_string(code.dynamicSharedBytes) +
                           " bytes of dynamic shared memory on " + device.name);
    }
  retryForOccupancy(api, code, ptx, artifact);
  return code;
}

} // namespace

Result<std::unique_ptr<detail::DriverKernel>> CudaDevice::loadKernel(const KernelEntry &kernel, const Artifact &artifact) {
  if (Status s = makeCurrent(); !s) return s;
  const BackendInfo &bi = info_.info;
  const uint64_t threads = uint64_t(threadsOf(artifact));
  if (threads == 0 || threads > bi.maxThreadsPerGroup)
    return Status(StatusCode::Unsupported, "kernel '" + kernel.name + "' needs " + std::to_string(threads) +
                                               " threads per program; " + info_.name + " allows 1.." +
                                               std::to_string(bi.maxThreadsPerGroup));
  Result<CudaCode> code = loadCode(api_, kernel, artifact, info_);
  if (!code) return code.status();
  // The artifact's tensor-copy form: the same target, with tensor maps (selectArtifact never
  // picks it itself), where this driver can build them. Its programs may be larger (a producer
  // warpgroup that issues the copies: tessera.producer_threads); each launch uses the block
  // size of the form it runs.
  // TESSERA_TENSOR_COPIES=0 keeps every launch on the chosen artifact (comparisons, or a driver
  // whose bulk tensor copies misbehave).
  const char *env = std::getenv("TESSERA_TENSOR_COPIES");
  const bool allowed = !(env && std::string_view(env) == "0");
  CudaCode copies;
  if (api_.cuTensorMapEncodeTiled && allowed)
    for (const Artifact &a : kernel.artifacts)
      if (!a.tensorMaps.empty() && a.divisibleArgs.empty() && a.target == artifact.target && a.blockSize[1] == artifact.blockSize[1] &&
          a.blockSize[2] == artifact.blockSize[2] && a.blockSize[0] >= artifact.blockSize[0] &&
          uint64_t(a.blockSize[0]) * a.blockSize[1] * a.blockSize[2] <= bi.maxThreadsPerGroup) {
        Result<CudaCode> c = loadCode(api_, kernel, a, info_);
        if (!c) {
          api_.cuModuleUnload(code->module);
          return c.status();
        }
        copies = *c;
        break;
      }
  return std::unique_ptr<detail::DriverKernel>(std::make_unique<CudaKernel>(*this, kernel.name, *code, copies));
}

CudaKernel::~CudaKernel() {
  if (!device_.makeCurrent()) return;
  device_.api().cuModuleUnload(code_.module);
  if (copies_.module) device_.api().cuModuleUnload(copies_.module);
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
    if (device_.api().cuFuncGetAttribute(&value, f.attribute, code_.fn) == CUDA_SUCCESS)
      out.push_back({f.name, f.description, double(value)});
  }
  // Past 48 KiB a kernel's shared memory is dynamic (docs/compiler.md): the driver's static
  // figure is then 0, and the launch asks for this much.
  out.push_back({"dynamic shared memory", "bytes of shared memory each launch asks for beyond the static",
                 double(code_.dynamicSharedBytes)});
  if (copies_.fn) {
    int registers = 0;
    device_.api().cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, copies_.fn);
    out.push_back({"tensor maps", "tensor maps of the bulk-tensor-copy form (TMA), which launches whose arguments "
                                  "the maps can describe run",
                   double(copies_.artifact->tensorMaps.size())});
    out.push_back({"tensor-copy registers per thread", "registers each thread of the tensor-copy form uses",
                   double(registers)});
    out.push_back({"tensor-copy launches", "launches so far that ran the tensor-copy form", double(copyLaunches_.load())});
  }
  return out;
}

Status CudaKernel::launch(detail::DriverStream &stream, Grid grid, std::span<const detail::LaunchArg> args) {
  if (Status s = device_.makeCurrent(); !s) return s;
  // Kernel parameters in declaration order: a buffer as its device address, a scalar by value.
  std::vector<uint64_t> addresses(args.size()); // CUdeviceptr values (64-bit)
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].buffer) {
      addresses[i] = static_cast<const CudaBuffer *>(args[i].buffer)->address();
      params[i] = &addresses[i];
    } else {
      params[i] = const_cast<void *>(args[i].scalar);
    }
  }
  // The tensor-copy form where every map can be built for these arguments.
  const CudaCode *run = &code_;
  std::vector<CUtensorMap> maps;
  if (copies_.fn) {
    const std::vector<TensorMapSpec> &specs = copies_.artifact->tensorMaps;
    maps.resize(specs.size());
    bool all = true;
    for (size_t i = 0; i < specs.size() && all; ++i) {
      std::string why;
      std::optional<TensorMapRequest> m = tensorMapRequest(specs[i], args, addresses, &why);
      if (!m) {
        all = false;
        break;
      }
      const unsigned long long dims[3] = {m->cols, m->rows, m->slices}, strides[2] = {m->strideBytes, m->sliceBytes};
      const unsigned int box[3] = {m->boxCols, m->boxRows, 1}, elementStrides[3] = {1, 1, 1};
      const CUtensorMapSwizzle swizzle = m->swizzleBytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                         : m->swizzleBytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                         : m->swizzleBytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
      TESSERA_CU_TRY_CTX(device_.api(),
                         cuTensorMapEncodeTiled(&maps[i], CU_TENSOR_MAP_DATA_TYPE_UINT16, m->rank,
                                                reinterpret_cast<void *>(uintptr_t(m->address)), dims, strides, box,
                                                elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                         "building tensor map " + std::to_string(i) + " of kernel '" + name_ + "' (" +
                             std::to_string(m->rows) + " x " + std::to_string(m->cols) + " elements, rows " +
                             std::to_string(m->strideBytes) + " bytes apart, box " + std::to_string(m->boxRows) +
                             " x " + std::to_string(m->boxCols) + ")");
    }
    if (all) {
      run = &copies_;
      for (CUtensorMap &m : maps) params.push_back(&m);
      copyLaunches_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  const auto &b = run->artifact->blockSize;
  CUstream on = static_cast<CudaStream &>(stream).handle();
  Result<size_t> slot = device_.timedBefore(on);
  if (!slot) return slot.status();
  TESSERA_CU_TRY_CTX(device_.api(),
                     cuLaunchKernel(run->fn, grid.x, grid.y, grid.z, b[0], b[1], b[2], run->dynamicSharedBytes, on,
                                    params.empty() ? nullptr : params.data(), nullptr),
                     "launching kernel '" + name_ + "'" + (run == &copies_ ? " (tensor-copy form)" : ""));
  return device_.timedAfter(*slot, on);
}

} // namespace tessera::cuda
