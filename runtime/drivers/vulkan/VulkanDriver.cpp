// Vulkan discovery: loader (dlopen + volk), the process-wide instance, and each physical device's properties.
#include "vulkan/VulkanDriver.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace tessera::vulkan {

namespace {

// Opening the loader ourselves (rather than volkInitialize) keeps dlerror()'s text for the absence reason.
Status loadLoaderOnce() {
  static Status status = [] {
    dlerror();
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *err = dlerror();
      return Status(StatusCode::Unavailable,
                    std::string("no Vulkan loader (libvulkan.so.1): ") + (err ? err : "cannot be loaded"));
    }
    auto getProc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!getProc)
      return Status(StatusCode::Unavailable, "no Vulkan loader (libvulkan.so.1): it lacks vkGetInstanceProcAddr");
    volkInitializeCustom(getProc); // the loader stays open for the life of the process
    return Status::success();
  }();
  return status;
}

std::string vendorName(uint32_t vendorId, VkDriverId driverId) {
  if (driverId == VK_DRIVER_ID_MESA_LLVMPIPE) return "Mesa (lavapipe)";
  switch (vendorId) {
  case 0x10DE: return "NVIDIA";
  case 0x1002: return "AMD";
  case 0x8086: return "Intel";
  case 0x13B5: return "ARM";
  case 0x5143: return "Qualcomm";
  case 0x106B: return "Apple";
  case 0x10005: return "Mesa";
  default: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "vendor 0x%04x", vendorId);
    return buf;
  }
  }
}

int rankOf(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return 4;
  default: return 3;
  }
}

// The driver's own version encoding when VkPhysicalDeviceDriverProperties is unavailable.
std::string decodeDriverVersion(uint32_t vendorId, uint32_t v) {
  if (vendorId == 0x10DE)
    return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xff) + "." + std::to_string((v >> 6) & 0xff);
  return formatVulkanVersion(v);
}

/// Every entry of a two-call enumeration by `query` (an instance-level entry point volk does not
/// know, looked up by `name`); empty where it is missing or fails.
template <class T>
std::vector<T> enumerate(VkPhysicalDevice handle, const char *name) {
  using Query = VkResult(VKAPI_PTR *)(VkPhysicalDevice, uint32_t *, T *);
  auto query = reinterpret_cast<Query>(vkGetInstanceProcAddr(volkGetLoadedInstance(), name));
  std::vector<T> entries;
  uint32_t n = 0;
  if (!query || query(handle, &n, nullptr) != VK_SUCCESS) return entries;
  entries.resize(n);
  if (query(handle, &n, entries.data()) != VK_SUCCESS) return {};
  entries.resize(n);
  return entries;
}

/// The cooperative-matrix shapes the device reports (VK_KHR_cooperative_matrix); empty without
/// the extension or Vulkan 1.3.
std::vector<CoopMatrixPropertiesKHR> coopMatrixShapes(VkPhysicalDevice handle, uint32_t apiVersion,
                                                      const std::set<std::string> &extensions) {
  if (apiVersion < VK_API_VERSION_1_3 || !extensions.count(kCoopMatrixExtension)) return {};
  return enumerate<CoopMatrixPropertiesKHR>(handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
}

/// VK_NV_cooperative_matrix2's flexible-dimension entries; empty without the extension.
std::vector<CoopMatrixFlexibleDimensionsNV> flexibleDimensions(VkPhysicalDevice handle, uint32_t apiVersion,
                                                               const std::set<std::string> &extensions) {
  if (apiVersion < VK_API_VERSION_1_3 || !extensions.count(kCoopMatrix2Extension)) return {};
  return enumerate<CoopMatrixFlexibleDimensionsNV>(handle,
                                                   "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
}

// Fills one VulkanPhysical, or returns false (with why) for a device Tessera cannot use.
bool describe(VkPhysicalDevice handle, uint32_t index, VulkanPhysical &out, std::string &why) {
  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(handle, &base);
  if (base.apiVersion < VK_API_VERSION_1_1) {
    why = std::string(base.deviceName) + " supports only Vulkan " + formatVulkanVersion(base.apiVersion);
    return false;
  }
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceFloatControlsProperties floatControls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  std::set<std::string> extensions = deviceExtensions(handle);
  id.pNext = &subgroup;
  void **tail = &subgroup.pNext;
  bool haveDriverProps = base.apiVersion >= VK_API_VERSION_1_2 || extensions.count("VK_KHR_driver_properties");
  if (haveDriverProps) {
    *tail = &driver;
    tail = &driver.pNext;
  }
  bool haveFloatControls = base.apiVersion >= VK_API_VERSION_1_2 || extensions.count("VK_KHR_shader_float_controls");
  if (haveFloatControls) {
    *tail = &floatControls;
    tail = &floatControls.pNext;
  }
  CoopMatrix2PropertiesNV coop2;
  const bool haveCoop2 = base.apiVersion >= VK_API_VERSION_1_3 && extensions.count(kCoopMatrix2Extension);
  if (haveCoop2) *tail = &coop2;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &id;
  vkGetPhysicalDeviceProperties2(handle, &props);
  const VkPhysicalDeviceProperties &p = props.properties;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(handle, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(handle, &familyCount, families.data());
  auto family = std::find_if(families.begin(), families.end(),
                             [](const VkQueueFamilyProperties &f) { return f.queueFlags & VK_QUEUE_COMPUTE_BIT; });
  if (family == families.end()) {
    why = std::string(p.deviceName) + " has no compute queue";
    return false;
  }

  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(handle, &mem);
  uint64_t deviceLocal = 0;
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      deviceLocal = std::max<uint64_t>(deviceLocal, mem.memoryHeaps[h].size); // largest, not a sum: BAR heaps alias VRAM

  FeatureChain chain(handle, p.apiVersion, extensions);
  const std::vector<CoopMatrixPropertiesKHR> shapes = coopMatrixShapes(handle, p.apiVersion, extensions);
  out.features = chain.shaderFeatures(subgroup, haveFloatControls ? &floatControls : nullptr, shapes);
  out.extensions = std::move(extensions);
  out.handle = handle;
  out.apiVersion = p.apiVersion;
  out.queueFamily = static_cast<uint32_t>(family - families.begin());
  detail::PhysicalDevice &d = out.info;
  d.nativeIndex = index;
  d.name = p.deviceName;
  VkDriverId driverId = haveDriverProps ? driver.driverID : VkDriverId(0);
  d.vendor = vendorName(p.vendorID, driverId);
  std::memcpy(d.uuid.data(), id.deviceUUID, 16);
  d.isCpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  d.orderRank = rankOf(p.deviceType);
  BackendInfo &b = d.info;
  b.backend = Backend::Vulkan;
  b.driverVersion = haveDriverProps && driver.driverInfo[0] ? std::string(driver.driverInfo)
                                                            : decodeDriverVersion(p.vendorID, p.driverVersion);
  b.apiVersion = formatVulkanVersion(p.apiVersion);
  b.subgroupSize = subgroup.subgroupSize;
  b.memoryBytes = deviceLocal;
  b.maxThreadsPerGroup = p.limits.maxComputeWorkGroupInvocations;
  b.maxGroupCount = {p.limits.maxComputeWorkGroupCount[0], p.limits.maxComputeWorkGroupCount[1],
                     p.limits.maxComputeWorkGroupCount[2]};
  b.maxSharedMemBytes = p.limits.maxComputeSharedMemorySize;
  b.maxBufferBytes = p.limits.maxStorageBufferRange;
  b.features = out.features.names();
  for (const CoopMatrixPropertiesKHR &shape : shapes) b.matrixShapes.push_back(describeCoopMatrixShape(shape));
  out.flexible = flexibleDimensions(handle, p.apiVersion, out.extensions);
  out.workgroupMatrixInvocations = haveCoop2 ? coop2.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize : 0;
  for (const CoopMatrixFlexibleDimensionsNV &e : out.flexible) b.matrixShapes.push_back(describeFlexibleDimensions(e));
  if (haveCoop2 && out.features.coopMatrixWorkgroupScope)
    b.matrixShapes.push_back("workgroup scope: up to " +
                             std::to_string(coop2.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize) + " invocations, " +
                             std::to_string(coop2.cooperativeMatrixWorkgroupScopeReservedSharedMemory) +
                             " bytes of shared memory reserved; flexible dimensions up to " +
                             std::to_string(coop2.cooperativeMatrixFlexibleDimensionsMaxDimension));
  return true;
}

} // namespace

std::string formatVulkanVersion(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

bool parseVulkanChip(const std::string &chip, uint32_t &version) {
  unsigned major = 0, minor = 0;
  char tail = 0;
  std::string environment = hasSoftDenormals(chip) ? chip.substr(0, chip.size() - std::strlen(kSoftDenormalsSuffix)) : chip;
  for (const char *suffix : {kMmaLanesSuffix, kCoopBF16Suffix, kCoopMatrixSuffix})
    if (size_t at = environment.find(suffix); at != std::string::npos) environment.erase(at, std::strlen(suffix));
  if (std::sscanf(environment.c_str(), "vulkan%u.%u%c", &major, &minor, &tail) != 2) return false;
  version = VK_MAKE_API_VERSION(0, major, minor, 0);
  return true;
}

VulkanInstance::~VulkanInstance() {
  if (instance) vkDestroyInstance(instance, nullptr);
}

Result<std::shared_ptr<VulkanInstance>> VulkanInstance::acquire() {
  static std::mutex mutex;
  static std::weak_ptr<VulkanInstance> current;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto existing = current.lock()) return existing;
  if (Status s = loadLoaderOnce(); !s) return s;

  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1)
    return Status(StatusCode::Unavailable, "the Vulkan loader is version " + formatVulkanVersion(loaderVersion) +
                                               "; Tessera needs Vulkan 1.1");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tessera";
  app.pEngineName = "tessera";
  app.apiVersion = std::min<uint32_t>(loaderVersion, VK_API_VERSION_1_3);
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  auto inst = std::make_shared<VulkanInstance>();
  VkResult r = vkCreateInstance(&info, nullptr, &inst->instance);
  if (r != VK_SUCCESS) {
    inst->instance = VK_NULL_HANDLE;
    return Status(StatusCode::Unavailable, "vkCreateInstance failed: " + vkResultName(r));
  }
  inst->apiVersion = app.apiVersion;
  volkLoadInstance(inst->instance);
  current = inst;
  return inst;
}

VulkanDriver::VulkanDriver(std::shared_ptr<VulkanInstance> instance, std::vector<VulkanPhysical> physicals)
    : instance_(std::move(instance)), physicals_(std::move(physicals)) {
  for (const VulkanPhysical &p : physicals_) devices_.push_back(p.info);
}

Result<std::unique_ptr<detail::DriverDevice>> VulkanDriver::open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) {
  for (const VulkanPhysical &p : physicals_) {
    if (p.info.nativeIndex != nativeIndex) continue;
    auto device = std::make_unique<VulkanDevice>(self, instance_, p);
    if (Status s = device->init(); !s) return s;
    return std::unique_ptr<detail::DriverDevice>(std::move(device));
  }
  return Status(StatusCode::NotFound, "no Vulkan physical device " + std::to_string(nativeIndex));
}

} // namespace tessera::vulkan

namespace tessera::detail {

Result<std::shared_ptr<Driver>> createVulkanDriver() {
  using namespace tessera::vulkan;
  Result<std::shared_ptr<VulkanInstance>> instance = VulkanInstance::acquire();
  if (!instance) return instance.status();
  VkInstance inst = (*instance)->instance;
  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(inst, &count, nullptr);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return Status(StatusCode::Unavailable, "vkEnumeratePhysicalDevices failed: " + vkResultName(r));
  if (count == 0) return Status(StatusCode::Unavailable, "no physical devices");
  std::vector<VkPhysicalDevice> handles(count);
  r = vkEnumeratePhysicalDevices(inst, &count, handles.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return Status(StatusCode::Unavailable, "vkEnumeratePhysicalDevices failed: " + vkResultName(r));
  std::vector<VulkanPhysical> physicals;
  std::string skipped;
  for (uint32_t i = 0; i < count; ++i) {
    VulkanPhysical p;
    std::string why;
    if (describe(handles[i], i, p, why)) physicals.push_back(std::move(p));
    else skipped += (skipped.empty() ? "" : "; ") + why;
  }
  if (physicals.empty()) return Status(StatusCode::Unavailable, "no usable physical devices: " + skipped);
  return std::shared_ptr<Driver>(std::make_shared<VulkanDriver>(*instance, std::move(physicals)));
}

} // namespace tessera::detail
