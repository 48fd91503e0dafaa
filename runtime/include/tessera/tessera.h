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
 * buffer, module, kernel, stream or event keeps its device alive. Thread safety: as the C++
 * runtime's: every function may be called from any thread, also on the same objects at once
 * (calls on one stream from several threads run in the order they take it); a handle must not
 * be destroyed while another thread still uses it (docs/runtime.md, "Threads").
 *
 * Streams (version 2): work on one stream runs in order; different streams are ordered only by
 * events. Launches and copies without a stream go to the device's default stream.
 *
 *   tessera_stream *s;  tessera_event *done;
 *   tessera_stream_create(dev, &s);
 *   tessera_buffer_upload_async(x, host, bytes, 0, s);
 *   tessera_kernel_launch_on(add, grid, args, 4, s);
 *   tessera_buffer_download_async(out, result, bytes, 0, s);
 *   tessera_stream_record(s, &done);
 *   tessera_event_synchronize(done);   -- `result` is filled
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_C_API_VERSION 3 /* 2: streams and events; 3: kernel statistics */

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
typedef struct tessera_stream tessera_stream;
typedef struct tessera_event tessera_event;

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

/* ---- version 2: streams and events ---- */

/* A new stream of `dev`, or a handle to its default stream (destroying that handle leaves the
 * default stream in place). A destroyed stream first finishes its work. */
tessera_status tessera_stream_create(tessera_device *dev, tessera_stream **out);
tessera_status tessera_stream_get_default(tessera_device *dev, tessera_stream **out);
tessera_status tessera_stream_synchronize(tessera_stream *stream);
/* An event after all the work enqueued on `stream` so far. */
tessera_status tessera_stream_record(tessera_stream *stream, tessera_event **out);
/* Work enqueued on `stream` from now on starts after `event` (of a stream of the same device). */
tessera_status tessera_stream_wait(tessera_stream *stream, const tessera_event *event);
void tessera_stream_destroy(tessera_stream *stream);

/* *done = 1 when the work before the event has finished, else 0; never blocks. */
tessera_status tessera_event_query(const tessera_event *event, int *done);
tessera_status tessera_event_synchronize(const tessera_event *event);
/* Device seconds from `start` to `end` (events of one device); waits for both. */
tessera_status tessera_event_seconds_since(const tessera_event *end, const tessera_event *start, double *seconds);
void tessera_event_destroy(tessera_event *event);

/* Stream-ordered copies at byte `offset` of the buffer. An upload has read `src` when it returns;
 * a download has filled `dst` once the stream's work up to it is seen finished (stream or device
 * synchronize, or an event recorded after it: synchronize, or query giving 1). */
tessera_status tessera_buffer_upload_async(tessera_buffer *buf, const void *src, size_t bytes, size_t offset,
                                           tessera_stream *stream);
tessera_status tessera_buffer_download_async(const tessera_buffer *buf, void *dst, size_t bytes, size_t offset,
                                             tessera_stream *stream);
/* tessera_kernel_launch on `stream`. */
tessera_status tessera_kernel_launch_on(tessera_kernel *kernel, const uint32_t grid[3], const tessera_arg *args,
                                        size_t count, tessera_stream *stream);

/* ---- version 3: what the driver reports about a kernel's machine code ---- */

/* How many figures tessera_kernel_statistic gives (tessera::Kernel::statistics): through CUDA
 * registers and local memory (spills) per thread, static shared memory and the most threads per
 * program; through Vulkan the driver's pipeline statistics where it offers them, else none. */
size_t tessera_kernel_statistic_count(const tessera_kernel *kernel);
/* Figure `index` (< the count): its name, valid until the kernel handle is destroyed, and value. */
tessera_status tessera_kernel_statistic(const tessera_kernel *kernel, size_t index, const char **name, double *value);

tessera_arg tessera_arg_buffer(tessera_buffer *buf);
tessera_arg tessera_arg_i32(int32_t v);
tessera_arg tessera_arg_i64(int64_t v);
tessera_arg tessera_arg_u32(uint32_t v);
tessera_arg tessera_arg_f32(float v);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
