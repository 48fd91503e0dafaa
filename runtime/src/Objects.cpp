// The public handles (Device, Buffer, Module, Kernel): bounds and signature checks, then the driver call.
#include "Impl.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string_view>

namespace tessera {

namespace {

/// Does this process load kernels' specialized variants? TESSERA_SPECIALIZE=0 keeps every launch
/// on the chosen plain code (comparisons).
bool specializationAllowed() {
  static const bool allowed = [] {
    const char *env = std::getenv("TESSERA_SPECIALIZE");
    return !(env && std::string_view(env) == "0");
  }();
  return allowed;
}

/// TESSERA_WORKGROUP_MATRICES=1: a kernel's workgroup-matrix variant runs where its divisors hold
/// even where the chosen code loads (otherwise only where it does not).
bool workgroupMatricesPreferred() {
  static const bool preferred = [] {
    const char *env = std::getenv("TESSERA_WORKGROUP_MATRICES");
    return env && std::string_view(env) == "1";
  }();
  return preferred;
}

/// Is every argument a specialized variant assumes divisible (Artifact::divisibleArgs) a multiple
/// of its divisor (Artifact::divisorOf) in this launch?
bool divisibleArgsHold(const Artifact &variant, std::span<const detail::LaunchArg> args) {
  for (size_t n = 0; n < variant.divisibleArgs.size(); ++n) {
    const detail::LaunchArg &a = args[variant.divisibleArgs[n]];
    int64_t value = 0;
    switch (a.spec->dtype) {
    case DType::I32: value = *static_cast<const int32_t *>(a.scalar); break;
    case DType::U32: value = *static_cast<const uint32_t *>(a.scalar); break;
    case DType::I64: value = *static_cast<const int64_t *>(a.scalar); break;
    default: return false;
    }
    if (value % int64_t(variant.divisorOf(n)) != 0) return false;
  }
  return true;
}

/// "M divisible by 128, N divisible by 256" for a variant's divisible arguments, `verb` between
/// each name and its divisor.
std::string describeDivisors(const KernelEntry &k, const Artifact &variant, const char *verb) {
  std::string out;
  for (size_t n = 0; n < variant.divisibleArgs.size(); ++n)
    out += (out.empty() ? "" : ", ") + k.args[variant.divisibleArgs[n]].name + verb +
           std::to_string(variant.divisorOf(n));
  return out;
}

Status noDevice(const char *what) {
  return Status(StatusCode::InvalidArgument, std::string(what) + " on an empty handle (no device behind it)");
}

std::string argLabel(const KernelEntry &k, size_t i) {
  return "kernel '" + k.name + "' argument " + std::to_string(i) + " '" + k.args[i].name + "'";
}

std::string signature(const KernelEntry &k) {
  std::string s;
  for (const ArgSpec &a : k.args) {
    if (!s.empty()) s += ", ";
    s += std::string(a.kind == ArgKind::Buffer ? "buffer " : "scalar ") + std::string(toString(a.dtype)) + " " + a.name;
  }
  return "(" + s + ")";
}

Status checkRange(const detail::BufferImpl &b, size_t bytes, size_t offset, const char *verb) {
  size_t size = b.count * sizeOf(b.dtype);
  if (offset > size || bytes > size - offset)
    return Status(StatusCode::InvalidArgument, std::string(verb) + " of " + std::to_string(bytes) + " bytes at offset " +
                                                   std::to_string(offset) + " does not fit in a buffer of " +
                                                   std::to_string(size) + " bytes (" + std::to_string(b.count) + " x " +
                                                   std::string(toString(b.dtype)) + ")");
  return Status::success();
}

// The stream's driver stream, after checking that it is a stream of `device`.
Result<detail::DriverStream *> streamOn(const Stream &stream, const detail::DeviceImpl &device, const std::string &what) {
  if (!stream.impl_) return Status(StatusCode::InvalidArgument, what + " on an empty Stream handle");
  const detail::DeviceImpl &other = *stream.impl_->device;
  if (&other != &device)
    return Status(StatusCode::InvalidArgument, what + ": the stream belongs to another Device (" + other.info.name +
                                                   " via " + toString(other.backend) + "); use a stream of " +
                                                   device.info.name + " via " + toString(device.backend));
  return stream.impl_->native;
}

} // namespace

// ---- Buffer ----

DType Buffer::dtype() const { return impl_ ? impl_->dtype : DType::F32; }
size_t Buffer::count() const { return impl_ ? impl_->count : 0; }
size_t Buffer::bytes() const { return impl_ ? impl_->count * sizeOf(impl_->dtype) : 0; }
const Device *Buffer::device() const { return impl_ ? impl_->device->owner : nullptr; }

Status Buffer::upload(const void *src, size_t bytes, size_t offsetBytes) {
  if (!impl_) return noDevice("upload");
  if (Status s = checkRange(*impl_, bytes, offsetBytes, "upload"); !s) return s;
  if (bytes == 0) return Status::success();
  if (!src) return Status(StatusCode::InvalidArgument, "upload from a null host pointer");
  // Work still queued on any stream may read or write this buffer: it goes first.
  if (Status s = impl_->device->native->synchronize(); !s) return s;
  return impl_->native->upload(src, bytes, offsetBytes);
}

Status Buffer::uploadAsync(const void *src, size_t bytes, size_t offsetBytes, const Stream &stream) {
  if (!impl_) return noDevice("uploadAsync");
  Result<detail::DriverStream *> on = streamOn(stream, *impl_->device, "uploadAsync");
  if (!on) return on.status();
  if (Status s = checkRange(*impl_, bytes, offsetBytes, "uploadAsync"); !s) return s;
  if (bytes == 0) return Status::success();
  if (!src) return Status(StatusCode::InvalidArgument, "uploadAsync from a null host pointer");
  return impl_->native->uploadAsync(**on, src, bytes, offsetBytes);
}

Status Buffer::downloadAsync(void *dst, size_t bytes, size_t offsetBytes, const Stream &stream) const {
  if (!impl_) return noDevice("downloadAsync");
  Result<detail::DriverStream *> on = streamOn(stream, *impl_->device, "downloadAsync");
  if (!on) return on.status();
  if (Status s = checkRange(*impl_, bytes, offsetBytes, "downloadAsync"); !s) return s;
  if (bytes == 0) return Status::success();
  if (!dst) return Status(StatusCode::InvalidArgument, "downloadAsync to a null host pointer");
  return impl_->native->downloadAsync(**on, dst, bytes, offsetBytes);
}

Status Buffer::download(void *dst, size_t bytes, size_t offsetBytes) const {
  if (!impl_) return noDevice("download");
  if (Status s = checkRange(*impl_, bytes, offsetBytes, "download"); !s) return s;
  if (bytes == 0) return Status::success();
  if (!dst) return Status(StatusCode::InvalidArgument, "download to a null host pointer");
  // Downloads see every launch enqueued before them.
  if (Status s = impl_->device->native->synchronize(); !s) return s;
  return impl_->native->download(dst, bytes, offsetBytes);
}

namespace {

// Both buffers are non-empty handles.
Status copyOn(detail::BufferImpl &dst, const detail::BufferImpl &src, detail::DriverStream &stream) {
  if (dst.device != src.device)
    return Status(StatusCode::InvalidArgument, "copyFrom: the buffers live on different devices (or backends); "
                                               "download and upload to move data between them");
  const size_t bytes = src.count * sizeOf(src.dtype);
  if (Status s = checkRange(dst, bytes, 0, "copyFrom"); !s) return s;
  if (bytes == 0) return Status::success();
  return dst.device->native->copy(stream, *dst.native, *src.native, bytes);
}

} // namespace

Status Buffer::copyFrom(const Buffer &src) {
  if (!impl_ || !src.impl_) return noDevice("copyFrom");
  return copyOn(*impl_, *src.impl_, impl_->device->native->defaultStream());
}

Status Buffer::copyFrom(const Buffer &src, const Stream &stream) {
  if (!impl_ || !src.impl_) return noDevice("copyFrom");
  Result<detail::DriverStream *> on = streamOn(stream, *impl_->device, "copyFrom");
  if (!on) return on.status();
  return copyOn(*impl_, *src.impl_, **on);
}

// ---- Device ----

const DeviceInfo &Device::info() const { return impl_->info; }
Backend Device::backend() const { return impl_->backend; }
const BackendInfo &Device::backendInfo() const { return impl_->info.backends[impl_->backendIndex]; }
TargetDesc Device::target() const { return impl_->native->target(); }
std::string Device::describe() const { return impl_->info.name + " via " + toString(impl_->backend); }
std::string Device::denormalSupport() const { return impl_ ? impl_->native->denormalSupport() : std::string(); }
std::string Device::matrixUnits() const { return impl_ ? impl_->native->matrixUnits() : std::string(); }
uint32_t Device::workgroupMatrixInvocations(bool bf16) const {
  return impl_ ? impl_->native->workgroupMatrixInvocations(bf16) : 0;
}

Result<Buffer> Device::allocate(DType dtype, size_t count) {
  if (!impl_) return noDevice("allocate");
  size_t elem = sizeOf(dtype);
  if (elem == 0 || dtype == DType::Bool)
    return Status(StatusCode::InvalidArgument,
                  "allocate: " + std::string(toString(dtype)) +
                      " is not a buffer element type (masks live only inside kernels; store them as u8 or i32)");
  if (count > std::numeric_limits<size_t>::max() / elem)
    return Status(StatusCode::InvalidArgument, "allocate: " + std::to_string(count) + " elements overflow the byte size");
  size_t bytes = count * elem;
  const BackendInfo &bi = backendInfo();
  if (bi.maxBufferBytes && bytes > bi.maxBufferBytes)
    return Status(StatusCode::Unsupported, "allocate: " + std::to_string(bytes) + " bytes exceed the largest buffer " +
                                               describe() + " can bind (" + std::to_string(bi.maxBufferBytes) + " bytes)");
  // Zero-length buffers are legal handles; native APIs reject zero-size allocations. Every buffer
  // holds at least 16 bytes: a Vulkan kernel's masked-off 16-byte run reads the buffer's first
  // 16 instead of branching around the load (SPIRVTargetInfo::loadRunIf).
  constexpr size_t kMinimumBytes = 16;
  Result<std::unique_ptr<detail::DriverBuffer>> native = impl_->native->allocate(std::max(bytes, kMinimumBytes));
  if (!native) return native.status();
  Buffer b;
  b.impl_ = std::make_shared<detail::BufferImpl>();
  b.impl_->device = impl_;
  b.impl_->dtype = dtype;
  b.impl_->count = count;
  b.impl_->native = std::move(*native);
  return b;
}

Result<Module> Device::load(const Package &pkg) {
  if (!impl_) return noDevice("load");
  auto module = std::make_shared<detail::ModuleImpl>();
  module->device = impl_;
  module->package = pkg;
  for (const KernelEntry &k : module->package.kernels) {
    for (const ArgSpec &arg : k.args)
      if (arg.dtype == DType::Bool)
        return Status(StatusCode::Unsupported, "kernel '" + k.name + "' argument '" + arg.name +
                                                   "' has dtype bool, which this runtime cannot pass yet");
    Result<const Artifact *> artifact = impl_->native->selectArtifact(k);
    if (!artifact) return artifact.status();
    Result<std::unique_ptr<detail::DriverKernel>> kernel = impl_->native->loadKernel(k, **artifact);
    // Code that does not fit the device (its shared memory, say) may still run as a variant on
    // workgroup-scope matrices, whose staging the driver does: kept with the reason, for launches.
    const bool workgroupAlone = !kernel && kernel.status().code() == StatusCode::Unsupported &&
                                std::any_of(k.artifacts.begin(), k.artifacts.end(), [&](const Artifact &a) {
                                  return hasWorkgroupMatrices(a.target.chip) &&
                                         a.target.chip == (*artifact)->target.chip + kWorkgroupMatrixSuffix;
                                });
    if (!kernel && !workgroupAlone) return kernel.status();
    module->artifacts.push_back(*artifact);
    module->plainFailures.push_back(kernel ? Status() : kernel.status());
    module->kernels.push_back(kernel ? std::move(*kernel) : nullptr);
    // The chosen code's variants: on workgroup-scope matrices (chip + kWorkgroupMatrixSuffix)
    // where the device runs them, then for arguments that are multiples of 16; a launch runs the
    // first whose divisors its arguments have.
    std::vector<detail::ModuleImpl::Variant> variants;
    const TargetDesc &chosen = (*artifact)->target;
    const TargetDesc workgroup = [&] {
      TargetDesc t = chosen;
      t.chip += kWorkgroupMatrixSuffix;
      return t;
    }();
    // The workgroup-matrix variant only where the chosen code cannot load, or where
    // TESSERA_WORKGROUP_MATRICES=1 asks for it anyway: so far it runs slower than the chosen code
    // where both run (docs/bench.md, twenty-third session).
    const bool preferWorkgroup = !module->kernels.back() || workgroupMatricesPreferred();
    for (const TargetDesc *want : {&workgroup, &chosen})
      for (const Artifact &a : k.artifacts)
        if (specializationAllowed() && !a.divisibleArgs.empty() && a.tensorMaps.empty() && a.target == *want &&
            (want == &chosen || (preferWorkgroup && impl_->native->runsVariant(a)))) {
          Result<std::unique_ptr<detail::DriverKernel>> v = impl_->native->loadKernel(k, a);
          // A variant that does not fit the device where the plain code did not either (the
          // multiples of 16 beside a workgroup-matrix variant) is left out.
          if (!v && v.status().code() == StatusCode::Unsupported && !module->kernels.back()) break;
          if (!v) return v.status();
          detail::ModuleImpl::Variant variant;
          variant.artifact = &a;
          variant.kernel = std::move(*v);
          variants.push_back(std::move(variant));
          break;
        }
    if (!module->kernels.back() &&
        (variants.empty() || !hasWorkgroupMatrices(variants.front().artifact->target.chip)))
      return module->plainFailures.back(); // (the variant did not run here either)
    module->variants.push_back(std::move(variants));
  }
  Module m;
  m.impl_ = std::move(module);
  return m;
}

Status Device::synchronize() {
  if (!impl_) return noDevice("synchronize");
  return impl_->native->synchronize();
}

Stream Device::defaultStream() const {
  Stream s;
  if (!impl_) return s;
  s.impl_ = std::make_shared<detail::StreamImpl>();
  s.impl_->device = impl_;
  s.impl_->native = &impl_->native->defaultStream();
  return s;
}

Result<Stream> Device::createStream() {
  if (!impl_) return noDevice("createStream");
  Result<std::unique_ptr<detail::DriverStream>> native = impl_->native->createStream();
  if (!native) return native.status();
  Stream s;
  s.impl_ = std::make_shared<detail::StreamImpl>();
  s.impl_->device = impl_;
  s.impl_->owned = std::move(*native);
  s.impl_->native = s.impl_->owned.get();
  return s;
}

// ---- Stream / Event ----

const Device *Stream::device() const { return impl_ ? impl_->device->owner : nullptr; }

Result<Event> Stream::record() {
  if (!impl_) return Status(StatusCode::InvalidArgument, "record on an empty Stream handle");
  Result<std::unique_ptr<detail::DriverEvent>> native = impl_->native->record();
  if (!native) return native.status();
  Event e;
  e.impl_ = std::make_shared<detail::EventImpl>();
  e.impl_->device = impl_->device;
  e.impl_->native = std::move(*native);
  return e;
}

Status Stream::wait(const Event &event) {
  if (!impl_) return Status(StatusCode::InvalidArgument, "wait on an empty Stream handle");
  if (!event.impl_) return Status(StatusCode::InvalidArgument, "Stream::wait for an empty Event handle");
  const detail::DeviceImpl &from = *event.impl_->device, &to = *impl_->device;
  if (&from != &to)
    return Status(StatusCode::InvalidArgument,
                  "Stream::wait: the event was recorded on another Device (" + from.info.name + " via " +
                      toString(from.backend) + ") than the stream's (" + to.info.name + " via " + toString(to.backend) +
                      "); order work across devices on the host (Event::synchronize, then enqueue)");
  return impl_->native->wait(*event.impl_->native);
}

Status Stream::synchronize() {
  if (!impl_) return Status(StatusCode::InvalidArgument, "synchronize on an empty Stream handle");
  return impl_->native->synchronize();
}

Result<bool> Event::query() const {
  if (!impl_) return Status(StatusCode::InvalidArgument, "query on an empty Event handle");
  return impl_->native->query();
}

Status Event::synchronize() const {
  if (!impl_) return Status(StatusCode::InvalidArgument, "synchronize on an empty Event handle");
  return impl_->native->synchronize();
}

Result<double> Event::secondsSince(const Event &start) const {
  if (!impl_ || !start.impl_) return Status(StatusCode::InvalidArgument, "secondsSince with an empty Event handle");
  if (impl_->device != start.impl_->device)
    return Status(StatusCode::InvalidArgument, "secondsSince: the two events were recorded on different devices");
  return impl_->native->secondsSince(*start.impl_->native);
}

// ---- Device timing ----

Status Device::beginTiming() {
  if (!impl_) return noDevice("beginTiming");
  return impl_->native->beginTiming();
}

Result<std::vector<double>> Device::endTiming() {
  if (!impl_) return noDevice("endTiming");
  return impl_->native->endTiming();
}

// ---- Module / Kernel ----

Result<Kernel> Module::kernel(std::string_view name) const {
  if (!impl_) return Status(StatusCode::InvalidArgument, "kernel lookup on an empty Module");
  const std::vector<KernelEntry> &ks = impl_->package.kernels;
  for (size_t i = 0; i < ks.size(); ++i) {
    if (ks[i].name != name) continue;
    Kernel k;
    k.module_ = impl_;
    k.entry_ = &ks[i];
    k.artifact_ = impl_->artifacts[i];
    k.index_ = i;
    return k;
  }
  std::string names;
  for (const KernelEntry &k : ks) names += (names.empty() ? "'" : ", '") + k.name + "'";
  return Status(StatusCode::NotFound, "no kernel '" + std::string(name) + "' in this module (it has " +
                                          (names.empty() ? std::string("none") : names) + ")");
}

namespace {

// "an f32", "an i64", "a u32", "a bf16": the article follows how the name is spoken.
std::string withArticle(DType t) {
  std::string name(toString(t));
  return (name[0] == 'f' || name[0] == 'i' ? "an " : "a ") + name;
}

// What C++ value makes a KernelArg of dtype `t`.
std::string scalarHint(DType t) {
  switch (t) {
  case DType::F32: return "a float, e.g. 2.0f";
  case DType::I32: return "an int32_t, e.g. int32_t(n)";
  case DType::I64: return "an int64_t, e.g. int64_t(n)";
  case DType::U32: return "a uint32_t, e.g. uint32_t(n) or 5u";
  case DType::F16: return "a tessera::f16, e.g. tessera::f16::fromFloat(x)";
  case DType::BF16: return "a tessera::bf16, e.g. tessera::bf16::fromFloat(x)";
  case DType::I8: return "KernelArg::scalar<int8_t>(v)";
  case DType::I16: return "KernelArg::scalar<int16_t>(v)";
  case DType::U8: return "KernelArg::scalar<uint8_t>(v)";
  case DType::Bool: break;
  }
  return "a value of the declared type";
}

} // namespace

std::vector<KernelStatistic> Kernel::statistics() const {
  if (!module_ || !entry_) return {};
  std::vector<KernelStatistic> out;
  if (module_->kernels[index_]) out = module_->kernels[index_]->statistics();
  for (const detail::ModuleImpl::Variant &v : module_->variants[index_]) {
    // "specialized" for the variant of multiples of 16, "workgroup-matrix" for the other.
    const std::string kind = hasWorkgroupMatrices(v.artifact->target.chip) ? "workgroup-matrix" : "specialized";
    out.push_back({kind + " launches",
                   "launches so far that ran the variant for " + describeDivisors(*entry_, *v.artifact, " divisible by "),
                   double(v.launches->load(std::memory_order_relaxed))});
    for (const KernelStatistic &s : v.kernel->statistics())
      out.push_back({kind + " " + s.name, "the variant's: " + s.description, s.value});
  }
  return out;
}

Status Kernel::launch(Grid grid, std::span<const KernelArg> args) const {
  if (!module_ || !entry_) return Status(StatusCode::InvalidArgument, "launch of an empty Kernel handle");
  return launchOn(module_->device->native->defaultStream(), grid, args);
}

Status Kernel::launch(Grid grid, std::span<const KernelArg> args, const Stream &stream) const {
  if (!module_ || !entry_) return Status(StatusCode::InvalidArgument, "launch of an empty Kernel handle");
  Result<detail::DriverStream *> on = streamOn(stream, *module_->device, "launch of kernel '" + entry_->name + "'");
  if (!on) return on.status();
  return launchOn(**on, grid, args);
}

Status Kernel::launchOn(detail::DriverStream &stream, Grid grid, std::span<const KernelArg> args) const {
  const KernelEntry &k = *entry_;
  const detail::DeviceImpl &dev = *module_->device;
  if (args.size() != k.args.size())
    return Status(StatusCode::InvalidArgument, "kernel '" + k.name + "' expects " + std::to_string(k.args.size()) +
                                                   " arguments " + signature(k) + ", got " + std::to_string(args.size()));

  std::vector<detail::LaunchArg> native(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec &spec = k.args[i];
    const KernelArg &arg = args[i];
    native[i].spec = &spec;
    if (spec.kind != arg.kind()) {
      bool wantBuffer = spec.kind == ArgKind::Buffer;
      return Status(StatusCode::InvalidArgument,
                    argLabel(k, i) + " is a " + (wantBuffer ? "buffer" : "scalar") + " of " +
                        std::string(toString(spec.dtype)) + ", but a " + (wantBuffer ? "scalar" : "buffer") +
                        " was passed");
    }
    if (spec.kind == ArgKind::Scalar) {
      if (arg.dtype() != spec.dtype)
        return Status(StatusCode::InvalidArgument,
                      argLabel(k, i) + " is " + withArticle(spec.dtype) + " scalar, but " + withArticle(arg.dtype()) +
                          " scalar was passed (no implicit conversion; pass " + scalarHint(spec.dtype) + ")");
      native[i].scalar = arg.scalarBytes();
      continue;
    }
    const Buffer *b = arg.buffer();
    if (!b || !b->impl_)
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " is a null buffer (nullptr or an unallocated Buffer)");
    if (b->impl_->device.get() != &dev)
      return Status(StatusCode::InvalidArgument,
                    argLabel(k, i) + " is a buffer of another Device (" + b->impl_->device->info.name + " via " +
                        toString(b->impl_->device->backend) + ", opened separately); the kernel is loaded on " +
                        dev.info.name + " via " + toString(dev.backend) + ". Allocate it on the kernel's Device");
    if (b->impl_->dtype != spec.dtype)
      return Status(StatusCode::InvalidArgument,
                    argLabel(k, i) + " is a buffer of " + std::string(toString(spec.dtype)) + ", but a buffer of " +
                        std::string(toString(b->impl_->dtype)) + " was passed");
    native[i].buffer = b->impl_->native.get();
  }

  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return Status(StatusCode::InvalidArgument, "kernel '" + k.name + "' launched over an empty grid (" +
                                                   std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                                                   std::to_string(grid.z) + "): every dimension must be at least 1");
  const BackendInfo &bi = dev.info.backends[dev.backendIndex];
  const uint32_t dims[3] = {grid.x, grid.y, grid.z};
  for (int axis = 0; axis < 3; ++axis)
    if (bi.maxGroupCount[axis] && dims[axis] > bi.maxGroupCount[axis])
      return Status(StatusCode::InvalidArgument,
                    "kernel '" + k.name + "' grid " + "xyz"[axis] + " = " + std::to_string(dims[axis]) +
                        " exceeds the limit of " + std::to_string(bi.maxGroupCount[axis]) + " programs on that axis for " +
                        dev.info.name + " via " + toString(dev.backend));

  // The first variant whose divisors these arguments have.
  for (const detail::ModuleImpl::Variant &v : module_->variants[index_])
    if (divisibleArgsHold(*v.artifact, native)) {
      v.launches->fetch_add(1, std::memory_order_relaxed);
      return v.kernel->launch(stream, grid, native);
    }
  if (!module_->kernels[index_]) {
    const Artifact &w = *module_->variants[index_].front().artifact;
    return Status(StatusCode::Unsupported, "kernel '" + k.name + "' runs on " + dev.info.name +
                                               " only on workgroup-scope matrices, which need " +
                                               describeDivisors(k, w, " a multiple of ") +
                                               "; its other code cannot: " + module_->plainFailures[index_].message());
  }
  return module_->kernels[index_]->launch(stream, grid, native);
}

} // namespace tessera
