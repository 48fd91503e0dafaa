/* The Tessera runtime's C API: find devices, load kernel packages, move data, launch kernels,
 * from C and from other languages' foreign-function interfaces. It wraps the C++ runtime
 * (tessera/runtime/Runtime.hpp) and, like it, links neither LLVM nor MLIR.
 *
 *   tessera_runtime *rt;  tessera_device *dev;  tessera_module *mod;  tessera_kernel *add;
 *   if (tessera_runtime_create(&rt) != TESSERA_OK) puts(tessera_last_error());
 *   tessera_device_open_default(rt, &dev);
 *   tessera_module_load_file(dev, "vector_add.tspkg", &mod);
 *   tessera_kernel_get(mod, "vector_add", &add);
 *   tessera_arg args[] = {tessera_arg_buffer(x), tessera_arg_buffer(y), tessera_arg_buffer(out), tessera_arg_i32(n)};
 *   uint32_t grid[3] = {(n + 1023) / 1024, 1, 1};
 *   tessera_kernel_launch(add, grid, args, 4);
 *
 * ABI: versioned by TESSERA_C_API_VERSION; a library answers tessera_api_version() with the
 * version it implements, and only grows (functions and enum values are added, never changed).
 * Every call that can fail returns a tessera_status; the message of the last failure on the
 * calling thread is tessera_last_error(). Objects are freed by their *_destroy function; a
 * buffer, module or kernel keeps its device alive. Thread safety: as the C++ runtime's for now,
 * one thread per device (a device, its buffers, modules and kernels are not used from two
 * threads at once; separate devices on separate threads are fine; docs/runtime.md).
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_C_API_VERSION 1

typedef enum tessera_status {
  TESSERA_OK = 0,
  TESSERA_ERROR_INVALID_ARGUMENT = 1,
  TESSERA_ERROR_NOT_FOUND = 2,
  TESSERA_ERROR_UNAVAILABLE = 3,
  TESSERA_ERROR_UNSUPPORTED = 4,
  TESSERA_ERROR_CORRUPT = 5,
  TESSERA_ERROR_OUT_OF_MEMORY = 6,
  TESSERA_ERROR_DRIVER = 7,
  TESSERA_ERROR_COMPILE = 8,
  TESSERA_ERROR_INTERNAL = 9
} tessera_status;

/* Element types; the values are the package format's. */
typedef enum tessera_dtype {
  TESSERA_F32 = 1,
  TESSERA_I32 = 2,
  TESSERA_F16 = 4,
  TESSERA_BF16 = 5,
  TESSERA_I8 = 6,
  TESSERA_I16 = 7,
  TESSERA_I64 = 8,
  TESSERA_U8 = 9,
  TESSERA_U32 = 10
} tessera_dtype;

typedef struct tessera_runtime tessera_runtime;
typedef struct tessera_device tessera_device;
typedef struct tessera_buffer tessera_buffer;
typedef struct tessera_module tessera_module;
typedef struct tessera_kernel tessera_kernel;

/* One kernel argument: a buffer, or a scalar of `dtype` whose value is in `bits` (the low
 * bytes, host byte order; f16/bf16 as their 16-bit patterns). Make them with the helpers. */
typedef struct tessera_arg {
  tessera_buffer *buffer; /* NULL for a scalar */
  tessera_dtype dtype;
  uint64_t bits;
} tessera_arg;

uint32_t tessera_api_version(void);
/* The message of the last failed call on this thread ("" when none). */
const char *tessera_last_error(void);

tessera_status tessera_runtime_create(tessera_runtime **out);
void tessera_runtime_destroy(tessera_runtime *rt);
/* Devices found through every driver present, and the name of one ("" past the end). */
size_t tessera_device_count(const tessera_runtime *rt);
const char *tessera_device_name(const tessera_runtime *rt, size_t index);

/* The best device (TESSERA_DEVICE / TESSERA_BACKEND may pick another), or device `index`
 * through `backend` ("cuda", "vulkan", or NULL for its default). */
tessera_status tessera_device_open_default(tessera_runtime *rt, tessera_device **out);
tessera_status tessera_device_open(tessera_runtime *rt, size_t index, const char *backend, tessera_device **out);
/* "NVIDIA H200 via cuda"; valid until the device is destroyed. */
const char *tessera_device_describe(const tessera_device *dev);
tessera_status tessera_device_synchronize(tessera_device *dev);
void tessera_device_destroy(tessera_device *dev);

tessera_status tessera_buffer_create(tessera_device *dev, tessera_dtype dtype, size_t count, tessera_buffer **out);
size_t tessera_buffer_bytes(const tessera_buffer *buf);
tessera_status tessera_buffer_upload(tessera_buffer *buf, const void *src, size_t bytes);
tessera_status tessera_buffer_download(const tessera_buffer *buf, void *dst, size_t bytes);
void tessera_buffer_destroy(tessera_buffer *buf);

/* A package (written by `tessera compile` or tessera::writePackageFile) loaded on a device. */
tessera_status tessera_module_load_file(tessera_device *dev, const char *path, tessera_module **out);
tessera_status tessera_module_load_memory(tessera_device *dev, const void *bytes, size_t size, tessera_module **out);
void tessera_module_destroy(tessera_module *mod);

tessera_status tessera_kernel_get(tessera_module *mod, const char *name, tessera_kernel **out);
/* Launches on grid[0] x grid[1] x grid[2] programs; every argument is checked against the
 * kernel's signature first (count, kind, dtype, device). */
tessera_status tessera_kernel_launch(tessera_kernel *kernel, const uint32_t grid[3], const tessera_arg *args, size_t count);
void tessera_kernel_destroy(tessera_kernel *kernel);

tessera_arg tessera_arg_buffer(tessera_buffer *buf);
tessera_arg tessera_arg_i32(int32_t v);
tessera_arg tessera_arg_i64(int64_t v);
tessera_arg tessera_arg_u32(uint32_t v);
tessera_arg tessera_arg_f32(float v);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
