// The C API (tessera/tessera.h) over the C++ runtime: opaque handles own C++ objects, failures
// become a tessera_status plus a per-thread message, and no C++ exception crosses the boundary.
#include "tessera/tessera.h"

#include "tessera/runtime/Runtime.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <new>
#include <string>

using namespace tessera;

struct tessera_runtime {
  std::shared_ptr<Runtime> rt;
};
struct tessera_device {
  std::shared_ptr<Device> dev;
  std::string description;
};
struct tessera_buffer {
  Buffer buf;
};
struct tessera_module {
  Module mod;
};
struct tessera_kernel {
  Kernel kernel;
  /// Kernel::statistics, read on first use and kept so that the names stay valid.
  const std::vector<KernelStatistic> &statistics() const {
    std::call_once(statisticsRead, [this] { statisticsKept = kernel.statistics(); });
    return statisticsKept;
  }
  mutable std::once_flag statisticsRead;
  mutable std::vector<KernelStatistic> statisticsKept;
};
struct tessera_stream {
  Stream stream;
};
struct tessera_event {
  Event event;
};

namespace {

thread_local std::string lastError;

tessera_status fail(const Status &s) {
  lastError = s.toString();
  return tessera_status(int(s.code()));
}
tessera_status fail(tessera_status code, const std::string &message) {
  lastError = message;
  return code;
}

/// Runs `body`, turning a thrown exception (allocation failure, ...) into a status.
template <class F> tessera_status guarded(F &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(TESSERA_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(TESSERA_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  }
}

Result<KernelArg> toKernelArg(const tessera_arg &a) {
  if (a.buffer) return KernelArg(a.buffer->buf);
  switch (a.dtype) {
  case TESSERA_I32: return KernelArg(int32_t(uint32_t(a.bits)));
  case TESSERA_I64: return KernelArg(int64_t(a.bits));
  case TESSERA_U32: return KernelArg(uint32_t(a.bits));
  case TESSERA_F32: return KernelArg(std::bit_cast<float>(uint32_t(a.bits)));
  case TESSERA_F16: return KernelArg(f16::fromBits(uint16_t(a.bits)));
  case TESSERA_BF16: return KernelArg(bf16::fromBits(uint16_t(a.bits)));
  case TESSERA_I8: return KernelArg::scalar<int8_t>(int8_t(uint8_t(a.bits)));
  case TESSERA_I16: return KernelArg::scalar<int16_t>(int16_t(uint16_t(a.bits)));
  case TESSERA_U8: return KernelArg::scalar<uint8_t>(uint8_t(a.bits));
  }
  return Status(StatusCode::InvalidArgument, "tessera_arg with unknown dtype " + std::to_string(int(a.dtype)));
}

template <class T> bool nonNull(T *p, const char *what, tessera_status *status) {
  if (p) return true;
  *status = fail(TESSERA_ERROR_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return false;
}

} // namespace

extern "C" {

uint32_t tessera_api_version(void) { return TESSERA_C_API_VERSION; }
const char *tessera_last_error(void) { return lastError.c_str(); }

tessera_status tessera_runtime_create(tessera_runtime **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(out, "out", &st)) return st;
    *out = nullptr;
    Result<std::shared_ptr<Runtime>> rt = Runtime::create();
    if (!rt) return fail(rt.status());
    *out = new tessera_runtime{*rt};
    return TESSERA_OK;
  });
}
void tessera_runtime_destroy(tessera_runtime *rt) { delete rt; }

size_t tessera_device_count(const tessera_runtime *rt) { return rt ? rt->rt->devices().size() : 0; }
const char *tessera_device_name(const tessera_runtime *rt, size_t index) {
  if (!rt || index >= rt->rt->devices().size()) return "";
  return rt->rt->devices()[index].name.c_str();
}

tessera_status tessera_device_open_default(tessera_runtime *rt, tessera_device **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(rt, "runtime", &st) || !nonNull(out, "out", &st)) return st;
    *out = nullptr;
    Result<std::shared_ptr<Device>> dev = rt->rt->openDefault();
    if (!dev) return fail(dev.status());
    *out = new tessera_device{*dev, (*dev)->describe()};
    return TESSERA_OK;
  });
}

tessera_status tessera_device_open(tessera_runtime *rt, size_t index, const char *backend, tessera_device **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(rt, "runtime", &st) || !nonNull(out, "out", &st)) return st;
    *out = nullptr;
    std::optional<Backend> b;
    if (backend) {
      b = parseBackend(backend);
      if (!b) return fail(TESSERA_ERROR_INVALID_ARGUMENT, std::string("unknown backend '") + backend + "'; use cuda or vulkan");
    }
    if (index >= rt->rt->devices().size())
      return fail(TESSERA_ERROR_NOT_FOUND, "no device " + std::to_string(index) + "; there are " +
                                               std::to_string(rt->rt->devices().size()));
    Result<std::shared_ptr<Device>> dev = rt->rt->open(uint32_t(index), b);
    if (!dev) return fail(dev.status());
    *out = new tessera_device{*dev, (*dev)->describe()};
    return TESSERA_OK;
  });
}

const char *tessera_device_describe(const tessera_device *dev) { return dev ? dev->description.c_str() : ""; }
tessera_status tessera_device_synchronize(tessera_device *dev) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st)) return st;
    Status s = dev->dev->synchronize();
    return s ? TESSERA_OK : fail(s);
  });
}
void tessera_device_destroy(tessera_device *dev) { delete dev; }

tessera_status tessera_buffer_create(tessera_device *dev, tessera_dtype dtype, size_t count, tessera_buffer **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st) || !nonNull(out, "out", &st)) return st;
    *out = nullptr;
    Result<Buffer> b = dev->dev->allocate(DType(dtype), count);
    if (!b) return fail(b.status());
    *out = new tessera_buffer{*b};
    return TESSERA_OK;
  });
}
size_t tessera_buffer_bytes(const tessera_buffer *buf) { return buf ? buf->buf.bytes() : 0; }
tessera_status tessera_buffer_upload(tessera_buffer *buf, const void *src, size_t bytes) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(buf, "buffer", &st) || (bytes && !nonNull(src, "src", &st))) return st;
    Status s = buf->buf.upload(src, bytes);
    return s ? TESSERA_OK : fail(s);
  });
}
tessera_status tessera_buffer_download(const tessera_buffer *buf, void *dst, size_t bytes) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(buf, "buffer", &st) || (bytes && !nonNull(dst, "dst", &st))) return st;
    Status s = buf->buf.download(dst, bytes);
    return s ? TESSERA_OK : fail(s);
  });
}
void tessera_buffer_destroy(tessera_buffer *buf) { delete buf; }

tessera_status tessera_module_load_memory(tessera_device *dev, const void *bytes, size_t size, tessera_module **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st) || !nonNull(out, "out", &st) || !nonNull(bytes, "bytes", &st)) return st;
    *out = nullptr;
    Result<Package> pkg = parsePackage(std::span<const uint8_t>(static_cast<const uint8_t *>(bytes), size));
    if (!pkg) return fail(pkg.status());
    Result<Module> mod = dev->dev->load(*pkg);
    if (!mod) return fail(mod.status());
    *out = new tessera_module{*mod};
    return TESSERA_OK;
  });
}
tessera_status tessera_module_load_file(tessera_device *dev, const char *path, tessera_module **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st) || !nonNull(out, "out", &st) || !nonNull(path, "path", &st)) return st;
    *out = nullptr;
    Result<Package> pkg = readPackageFile(path);
    if (!pkg) return fail(pkg.status());
    Result<Module> mod = dev->dev->load(*pkg);
    if (!mod) return fail(mod.status());
    *out = new tessera_module{*mod};
    return TESSERA_OK;
  });
}
void tessera_module_destroy(tessera_module *mod) { delete mod; }

tessera_status tessera_kernel_get(tessera_module *mod, const char *name, tessera_kernel **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(mod, "module", &st) || !nonNull(out, "out", &st) || !nonNull(name, "name", &st)) return st;
    *out = nullptr;
    Result<Kernel> k = mod->mod.kernel(name);
    if (!k) return fail(k.status());
    *out = new tessera_kernel{*k};
    return TESSERA_OK;
  });
}
} // extern "C"

namespace {

// Both launch entry points: arguments converted, then the launch on `stream` (null: the default).
tessera_status launchKernel(tessera_kernel *kernel, const uint32_t grid[3], const tessera_arg *args, size_t count,
                            const tessera_stream *stream) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(kernel, "kernel", &st) || !nonNull(grid, "grid", &st) || (count && !nonNull(args, "args", &st))) return st;
    std::vector<KernelArg> converted;
    for (size_t i = 0; i < count; ++i) {
      Result<KernelArg> a = toKernelArg(args[i]);
      if (!a) return fail(Status(a.status().code(), "argument " + std::to_string(i) + ": " + a.status().message()));
      converted.push_back(*a);
    }
    const Grid g{grid[0], grid[1], grid[2]};
    Status s = stream ? kernel->kernel.launch(g, std::span<const KernelArg>(converted), stream->stream)
                      : kernel->kernel.launch(g, std::span<const KernelArg>(converted));
    return s ? TESSERA_OK : fail(s);
  });
}

} // namespace

extern "C" {

tessera_status tessera_kernel_launch(tessera_kernel *kernel, const uint32_t grid[3], const tessera_arg *args, size_t count) {
  return launchKernel(kernel, grid, args, count, nullptr);
}
tessera_status tessera_kernel_launch_on(tessera_kernel *kernel, const uint32_t grid[3], const tessera_arg *args,
                                        size_t count, tessera_stream *stream) {
  tessera_status st;
  if (!nonNull(stream, "stream", &st)) return st;
  return launchKernel(kernel, grid, args, count, stream);
}
void tessera_kernel_destroy(tessera_kernel *kernel) { delete kernel; }

size_t tessera_kernel_statistic_count(const tessera_kernel *kernel) { return kernel ? kernel->statistics().size() : 0; }

tessera_status tessera_kernel_statistic(const tessera_kernel *kernel, size_t index, const char **name, double *value) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(kernel, "kernel", &st) || !nonNull(name, "name", &st) || !nonNull(value, "value", &st)) return st;
    const std::vector<KernelStatistic> &stats = kernel->statistics();
    if (index >= stats.size())
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "statistic " + std::to_string(index) + " of kernel '" +
                                                      kernel->kernel.entry().name + "', which has " +
                                                      std::to_string(stats.size()));
    *name = stats[index].name.c_str();
    *value = stats[index].value;
    return TESSERA_OK;
  });
}

// ---- streams and events ----

tessera_status tessera_stream_create(tessera_device *dev, tessera_stream **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st) || !nonNull(out, "out", &st)) return st;
    *out = nullptr;
    Result<Stream> s = dev->dev->createStream();
    if (!s) return fail(s.status());
    *out = new tessera_stream{*s};
    return TESSERA_OK;
  });
}
tessera_status tessera_stream_get_default(tessera_device *dev, tessera_stream **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(dev, "device", &st) || !nonNull(out, "out", &st)) return st;
    *out = new tessera_stream{dev->dev->defaultStream()};
    return TESSERA_OK;
  });
}
tessera_status tessera_stream_synchronize(tessera_stream *stream) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(stream, "stream", &st)) return st;
    Status s = stream->stream.synchronize();
    return s ? TESSERA_OK : fail(s);
  });
}
tessera_status tessera_stream_record(tessera_stream *stream, tessera_event **out) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(stream, "stream", &st) || !nonNull(out, "out", &st)) return st;
    *out = nullptr;
    Result<Event> e = stream->stream.record();
    if (!e) return fail(e.status());
    *out = new tessera_event{*e};
    return TESSERA_OK;
  });
}
tessera_status tessera_stream_wait(tessera_stream *stream, const tessera_event *event) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(stream, "stream", &st) || !nonNull(event, "event", &st)) return st;
    Status s = stream->stream.wait(event->event);
    return s ? TESSERA_OK : fail(s);
  });
}
void tessera_stream_destroy(tessera_stream *stream) { delete stream; }

tessera_status tessera_event_query(const tessera_event *event, int *done) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(event, "event", &st) || !nonNull(done, "done", &st)) return st;
    Result<bool> passed = event->event.query();
    if (!passed) return fail(passed.status());
    *done = *passed ? 1 : 0;
    return TESSERA_OK;
  });
}
tessera_status tessera_event_synchronize(const tessera_event *event) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(event, "event", &st)) return st;
    Status s = event->event.synchronize();
    return s ? TESSERA_OK : fail(s);
  });
}
tessera_status tessera_event_seconds_since(const tessera_event *end, const tessera_event *start, double *seconds) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(end, "end", &st) || !nonNull(start, "start", &st) || !nonNull(seconds, "seconds", &st)) return st;
    Result<double> s = end->event.secondsSince(start->event);
    if (!s) return fail(s.status());
    *seconds = *s;
    return TESSERA_OK;
  });
}
void tessera_event_destroy(tessera_event *event) { delete event; }

tessera_status tessera_buffer_upload_async(tessera_buffer *buf, const void *src, size_t bytes, size_t offset,
                                           tessera_stream *stream) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(buf, "buffer", &st) || !nonNull(stream, "stream", &st)) return st;
    Status s = buf->buf.uploadAsync(src, bytes, offset, stream->stream);
    return s ? TESSERA_OK : fail(s);
  });
}
tessera_status tessera_buffer_download_async(const tessera_buffer *buf, void *dst, size_t bytes, size_t offset,
                                             tessera_stream *stream) {
  return guarded([&] {
    tessera_status st;
    if (!nonNull(buf, "buffer", &st) || !nonNull(stream, "stream", &st)) return st;
    Status s = buf->buf.downloadAsync(dst, bytes, offset, stream->stream);
    return s ? TESSERA_OK : fail(s);
  });
}

tessera_arg tessera_arg_buffer(tessera_buffer *buf) { return tessera_arg{buf, TESSERA_F32, 0}; }
tessera_arg tessera_arg_i32(int32_t v) { return tessera_arg{nullptr, TESSERA_I32, uint32_t(v)}; }
tessera_arg tessera_arg_i64(int64_t v) { return tessera_arg{nullptr, TESSERA_I64, uint64_t(v)}; }
tessera_arg tessera_arg_u32(uint32_t v) { return tessera_arg{nullptr, TESSERA_U32, v}; }
tessera_arg tessera_arg_f32(float v) { return tessera_arg{nullptr, TESSERA_F32, std::bit_cast<uint32_t>(v)}; }

} // extern "C"
