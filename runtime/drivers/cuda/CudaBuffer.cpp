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

// From pageable host memory both calls return once the driver has taken (upload) or delivered
// (download) the bytes, which is within the contract of Buffer::uploadAsync / downloadAsync.
Status CudaBuffer::uploadAsync(detail::DriverStream &stream, const void *src, size_t bytes, size_t offsetBytes) {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(),
                     cuMemcpyHtoDAsync(ptr_ + offsetBytes, src, bytes, static_cast<CudaStream &>(stream).handle()),
                     "uploading " + std::to_string(bytes) + " bytes on a stream");
  return Status::success();
}

Status CudaBuffer::downloadAsync(detail::DriverStream &stream, void *dst, size_t bytes, size_t offsetBytes) {
  if (Status s = device_.makeCurrent(); !s) return s;
  TESSERA_CU_TRY_CTX(device_.api(),
                     cuMemcpyDtoHAsync(dst, ptr_ + offsetBytes, bytes, static_cast<CudaStream &>(stream).handle()),
                     "downloading " + std::to_string(bytes) + " bytes on a stream");
  return Status::success();
}

} // namespace tessera::cuda
