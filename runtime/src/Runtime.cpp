// Runtime: loads every driver it can, merges their devices by UUID, and opens a device by policy or override.
#include "Impl.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace tessera {

using detail::Driver;
using detail::PhysicalDevice;

namespace {

struct Route {
  Backend backend;
  std::shared_ptr<Driver> driver;
  uint32_t nativeIndex;
};

std::string lowercase(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool isAllZero(const std::array<uint8_t, 16> &u) {
  return std::all_of(u.begin(), u.end(), [](uint8_t b) { return b == 0; });
}

std::string envValue(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string backendList(const DeviceInfo &d) {
  std::string s;
  for (const BackendInfo &b : d.backends) s += (s.empty() ? "" : ", ") + std::string(toString(b.backend));
  return s;
}

} // namespace

struct Runtime::Impl {
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<Route>> routes; // per device, one per backend, same order as backends
  std::vector<BackendAbsence> absent;

  void addDriver(const std::shared_ptr<Driver> &driver, std::vector<int> &ranks);
  /// "0 'llvmpipe (LLVM 15)' (vulkan); cuda absent: <reason>" — what a failed override can choose from.
  std::string presentSummary() const;
};

void Runtime::Impl::addDriver(const std::shared_ptr<Driver> &driver, std::vector<int> &ranks) {
  for (const PhysicalDevice &pd : driver->devices()) {
    Route route{driver->backend(), driver, pd.nativeIndex};
    size_t match = devices.size();
    if (!isAllZero(pd.uuid))
      for (size_t i = 0; i < devices.size(); ++i)
        if (devices[i].uuid == pd.uuid && !devices[i].find(driver->backend())) match = i;
    if (match == devices.size()) {
      DeviceInfo d;
      d.name = pd.name;
      d.vendor = pd.vendor;
      d.uuid = pd.uuid;
      d.isCpu = pd.isCpu;
      devices.push_back(std::move(d));
      routes.emplace_back();
      ranks.push_back(pd.orderRank);
    } else {
      ranks[match] = std::min(ranks[match], pd.orderRank);
    }
    devices[match].backends.push_back(pd.info);
    routes[match].push_back(std::move(route));
  }
}

std::string Runtime::Impl::presentSummary() const {
  std::string s;
  if (devices.empty()) s = "no devices";
  for (const DeviceInfo &d : devices) {
    if (!s.empty()) s += "; ";
    s += std::to_string(d.index) + " '" + d.name + "' (" + backendList(d) + ")";
  }
  for (const BackendAbsence &a : absent) s += std::string("; ") + toString(a.backend) + " absent: " + a.reason;
  return s;
}

std::string cacheDirectory() {
  if (const char *dir = std::getenv("TESSERA_CACHE_DIR"); dir && *dir) return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera";
  return "";
}

Result<std::shared_ptr<Runtime>> Runtime::create() {
  auto rt = std::make_shared<Runtime>();
  rt->impl_ = std::make_unique<Impl>();
  Impl &impl = *rt->impl_;

  // CUDA first, so a GPU reached both ways keeps the CUDA name and default. TESSERA_BACKEND,
  // when it names a backend, keeps the other driver unloaded (its start-up is not paid for); a
  // value that names none is reported by openDefault().
  const std::optional<Backend> only = parseBackend(envValue("TESSERA_BACKEND"));
  std::vector<int> ranks;
  for (auto [backend, create] : {std::pair{Backend::CUDA, &detail::createCudaDriver},
                                 std::pair{Backend::Vulkan, &detail::createVulkanDriver}}) {
    if (only && *only != backend) {
      impl.absent.push_back({backend, std::string("not loaded: TESSERA_BACKEND=") + toString(*only)});
      continue;
    }
    Result<std::shared_ptr<Driver>> driver = create();
    if (!driver) {
      impl.absent.push_back({backend, driver.status().message()});
      continue;
    }
    impl.addDriver(*driver, ranks);
  }

  // GPUs first, CPU implementations last; discovery order otherwise.
  std::vector<size_t> order(impl.devices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::pair(ranks[a], a) < std::pair(ranks[b], b); });
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<Route>> routes;
  for (size_t i : order) {
    devices.push_back(std::move(impl.devices[i]));
    routes.push_back(std::move(impl.routes[i]));
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    DeviceInfo &d = devices[i];
    d.index = static_cast<uint32_t>(i);
    d.defaultBackend = d.find(Backend::CUDA) ? Backend::CUDA : d.backends.front().backend;
  }
  impl.devices = std::move(devices);
  impl.routes = std::move(routes);
  return rt;
}

Runtime::~Runtime() = default;

const std::vector<DeviceInfo> &Runtime::devices() const { return impl_->devices; }
const std::vector<BackendAbsence> &Runtime::absentBackends() const { return impl_->absent; }

const BackendInfo *DeviceInfo::find(Backend b) const {
  for (const BackendInfo &info : backends)
    if (info.backend == b) return &info;
  return nullptr;
}

bool BackendInfo::hasFeature(std::string_view name) const {
  return std::find(features.begin(), features.end(), name) != features.end();
}

Result<std::shared_ptr<Device>> Runtime::open(uint32_t deviceIndex, std::optional<Backend> backend) {
  if (deviceIndex >= impl_->devices.size())
    return Status(StatusCode::NotFound, "no device " + std::to_string(deviceIndex) + "; present: " + impl_->presentSummary());
  const DeviceInfo &info = impl_->devices[deviceIndex];
  Backend want = backend.value_or(info.defaultBackend);
  const std::vector<Route> &routes = impl_->routes[deviceIndex];
  size_t which = routes.size();
  for (size_t i = 0; i < routes.size(); ++i)
    if (routes[i].backend == want) which = i;
  if (which == routes.size()) {
    std::string why;
    for (const BackendAbsence &a : impl_->absent)
      if (a.backend == want) why = std::string("; ") + toString(want) + " is absent on this machine: " + a.reason;
    return Status(StatusCode::Unavailable, "device " + std::to_string(deviceIndex) + " '" + info.name + "' has no " +
                                               toString(want) + " backend (it has: " + backendList(info) + ")" + why);
  }
  const Route &route = routes[which];
  Result<std::unique_ptr<detail::DriverDevice>> native = route.driver->open(route.driver, route.nativeIndex);
  if (!native) return native.status();

  auto impl = std::make_shared<detail::DeviceImpl>();
  impl->info = info;
  impl->backend = want;
  impl->backendIndex = which;
  impl->native = std::move(*native);
  auto device = std::make_shared<Device>();
  device->impl_ = impl;
  impl->owner = device.get();
  return device;
}

Result<std::shared_ptr<Device>> Runtime::openDefault() {
  std::string deviceEnv = envValue("TESSERA_DEVICE");
  std::string backendEnv = envValue("TESSERA_BACKEND");
  std::optional<Backend> backend;
  if (!backendEnv.empty()) {
    backend = parseBackend(backendEnv);
    if (!backend)
      return Status(StatusCode::InvalidArgument,
                    "TESSERA_BACKEND='" + backendEnv + "' names no backend; use cuda or vulkan");
  }
  const std::vector<DeviceInfo> &devices = impl_->devices;

  if (!deviceEnv.empty()) {
    bool isIndex = std::all_of(deviceEnv.begin(), deviceEnv.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (isIndex) {
      unsigned long index = std::strtoul(deviceEnv.c_str(), nullptr, 10);
      if (index >= devices.size())
        return Status(StatusCode::NotFound, "TESSERA_DEVICE=" + deviceEnv + " but there is no device " + deviceEnv +
                                                "; present: " + impl_->presentSummary());
      return open(static_cast<uint32_t>(index), backend);
    }
    std::string needle = lowercase(deviceEnv);
    for (const DeviceInfo &d : devices)
      if (lowercase(d.name).find(needle) != std::string::npos) return open(d.index, backend);
    return Status(StatusCode::NotFound, "TESSERA_DEVICE='" + deviceEnv + "' matches no device name; present: " +
                                            impl_->presentSummary());
  }

  if (devices.empty())
    return Status(StatusCode::Unavailable, "no Tessera device on this machine: " + impl_->presentSummary());
  if (!backend) return open(0, std::nullopt);
  for (const DeviceInfo &d : devices)
    if (d.find(*backend)) return open(d.index, backend);
  return Status(StatusCode::Unavailable, std::string("TESSERA_BACKEND=") + toString(*backend) +
                                             " but no device has that backend; present: " + impl_->presentSummary());
}

} // namespace tessera
