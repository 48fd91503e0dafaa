// The subset of the CUDA driver API Tessera uses, declared here so no CUDA toolkit is needed to build,
// and the symbol table filled from libcuda.so.1 at run time.
#pragma once

#include "tessera/runtime/Status.hpp"

#include <cstddef>
#include <string>

namespace tessera::cuda {

// Types and values as in cuda.h (CUDA 13); only what the driver below uses.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
struct CUuuid {
  char bytes[16];
};

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;

enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

enum CUjit_option : int {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
};

enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/// A tensor map (CUtensorMap): 128 opaque bytes the driver fills, aligned as cuda.h aligns it.
struct alignas(128) CUtensorMap {
  unsigned long long opaque[16];
};
enum CUtensorMapDataType : int { CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1 };
enum CUtensorMapInterleave : int { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum CUtensorMapSwizzle : int {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum CUtensorMapL2promotion : int { CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3 };
enum CUtensorMapFloatOOBfill : int { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };

/// Function pointers loaded from libcuda.so.1. The `_v2` symbols are the ones cuda.h maps the
/// plain names to; calling the unversioned symbol would get the legacy 32-bit ABI.
struct CudaApi {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attrib, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);           // cuDeviceTotalMem_v2
  CUresult (*cuDeviceGetUuid)(CUuuid *uuid, CUdevice device);             // _v2, else the original
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);                 // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);                 // _v2
  CUresult (*cuMemFree)(CUdeviceptr ptr);                                 // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes); // _v2
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);       // _v2
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream); // _v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream); // _v2
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);       // _v2
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream);                          // _v2
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned int flags);
  CUresult (*cuEventQuery)(CUevent event);
  CUresult (*cuEventCreate)(CUevent *event, unsigned int flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);  // _v2 where the driver has it
  CUresult (*cuEventDestroy)(CUevent event);                              // _v2
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned int numOptions,
                                 CUjit_option *options, void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule module, const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attrib, CUfunction fn);
  CUresult (*cuFuncSetAttribute)(CUfunction fn, CUfunction_attribute attrib, int value);
  /// Optional (null where the driver lacks it): programs of `blockSize` threads that fit on one
  /// multiprocessor at once.
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *programs, CUfunction fn, int blockSize,
                                                          size_t dynamicSharedBytes);
  /// CUDA 12+ drivers only (null before): the descriptor of Hopper's bulk tensor copies.
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *map, CUtensorMapDataType type, unsigned int rank, void *address,
                                     const unsigned long long *dims, const unsigned long long *strides,
                                     const unsigned int *box, const unsigned int *elementStrides,
                                     CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                     CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oobFill);
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                             unsigned int blockX, unsigned int blockY, unsigned int blockZ,
                             unsigned int sharedMemBytes, CUstream stream, void **params, void **extra);

  /// Loads libcuda.so.1 once per process; the status message is the reason CUDA is absent.
  static Result<const CudaApi *> load();
  /// "CUDA_ERROR_OUT_OF_MEMORY", or "CUresult 123" if the driver does not know the code.
  std::string errorName(CUresult r) const;
  std::string errorString(CUresult r) const;
  /// A DriverError Status for a failed call: "<function> failed: <NAME> (<description>)<context>".
  Status error(CUresult r, const char *callText, const std::string &context = {}) const;
};

} // namespace tessera::cuda

/// Evaluates a CUDA call through `api` (a CudaApi reference) and returns a Status from the
/// enclosing function if it fails. One macro for every CUDA call, so every error names the call.
#define TESSERA_CU_TRY(api, call)                                                                  \
  do {                                                                                             \
    ::tessera::cuda::CUresult tesseraCuResult_ = (api).call;                                      \
    if (tesseraCuResult_ != ::tessera::cuda::CUDA_SUCCESS) return (api).error(tesseraCuResult_, #call); \
  } while (0)

/// Same, with extra words saying what the call was for ("allocating 4096 bytes on NVIDIA H200").
#define TESSERA_CU_TRY_CTX(api, call, context)                                                     \
  do {                                                                                             \
    ::tessera::cuda::CUresult tesseraCuResult_ = (api).call;                                      \
    if (tesseraCuResult_ != ::tessera::cuda::CUDA_SUCCESS)                                        \
      return (api).error(tesseraCuResult_, #call, (context));                                     \
  } while (0)
