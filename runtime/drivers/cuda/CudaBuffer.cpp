// CudaBuffer: device memory from cuMemAlloc, copied synchronously with cuMemcpyHtoD / cuMemcpyDtoH.
#include "cuda/CudaDriver.hpp"

namespace tessera::cuda {

Result<std::unique_ptr<detail::DriverBuffer>> CudaDevice::allocate(size_t bytes) {
  if (Status s = makeCurrent(); !s) return s;
  CUdeviceptr ptr = 0;
  TESSERA_CU_TRY_CTX(api_, cuMemAlloc(&ptr, bytes), "allocating " + std::to_string(bytes) + " bytes on " + info_.name);
  return std::unique_ptr<detail::DriverBuffer>(std::make_unique<CudaBuffer>(*this, ptr));
}

CudaBuffer::~CudaBuffer() {
  // Errors here cannot be reported (destructors return nothing); a lost context frees memory anyway.
  if (device_.makeCurrent()) device_.api().cuMemFree(ptr_);
}

Status CudaBuffer::upload(const void *src, size_t bytes, size_t offsetBytes) {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(), cuMemcpyHtoD(ptr_ + offsetBytes, src, bytes),
                     "uploading " + std::to_string(bytes) + " bytes");
  return Status::success();
}

Status CudaBuffer::download(void *dst, size_t bytes, size_t offsetBytes) {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(), cuMemcpyDtoH(dst, ptr_ + offsetBytes, bytes),
                     "downloading " + std::to_string(bytes) + " bytes");
  return Status::success();
}

} // namespace tessera::cuda
