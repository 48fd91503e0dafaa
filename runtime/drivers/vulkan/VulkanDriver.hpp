// Vulkan driver classes: the shared instance, VulkanDriver (discovery), VulkanDevice, VulkanBuffer, VulkanKernel.
#pragma once

#include "Driver.hpp"
#include "vulkan/VulkanFeatures.hpp"
#include "vulkan/VulkanStatus.hpp"

#include <functional>
#include <optional>

namespace tessera::vulkan {

/// The process's VkInstance. volk keeps instance-level entry points in globals, so there is one
/// instance per process, shared by every Runtime and Device and destroyed with the last of them.
struct VulkanInstance {
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t apiVersion = 0; // what the instance was created for
  ~VulkanInstance();
  static Result<std::shared_ptr<VulkanInstance>> acquire();
};

struct VulkanPhysical {
  detail::PhysicalDevice info;
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t apiVersion = 0;
  uint32_t queueFamily = 0;
  ShaderFeatures features;         // queried once; what checkCapabilities compares against
  std::set<std::string> extensions; // device extensions offered
};

class VulkanDriver final : public detail::Driver {
public:
  VulkanDriver(std::shared_ptr<VulkanInstance> instance, std::vector<VulkanPhysical> physicals);
  Backend backend() const override { return Backend::Vulkan; }
  const std::vector<detail::PhysicalDevice> &devices() const override { return devices_; }
  Result<std::unique_ptr<detail::DriverDevice>> open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) override;

private:
  std::shared_ptr<VulkanInstance> instance_;
  std::vector<VulkanPhysical> physicals_;
  std::vector<detail::PhysicalDevice> devices_;
};

class VulkanDevice final : public detail::DriverDevice {
public:
  VulkanDevice(std::shared_ptr<detail::Driver> driver, std::shared_ptr<VulkanInstance> instance, VulkanPhysical physical)
      : driver_(std::move(driver)), instance_(std::move(instance)), physical_(std::move(physical)) {}
  ~VulkanDevice() override;
  /// Creates the VkDevice, its queue, command buffer and fence.
  Status init();
  const ShaderFeatures &features() const { return physical_.features; }

  /// SPIR-V for this subgroup size; "vulkan1.1+soft-denormals" where f32 denormals are neither
  /// promised nor measured kept (runs the denormal probe once).
  TargetDesc target() override;
  /// Prefers the artifact whose denormal handling fits the device (native where f32 denormals
  /// are kept, software where they are flushed), then any that runs.
  Result<const Artifact *> selectArtifact(const KernelEntry &kernel) override;
  Result<std::unique_ptr<detail::DriverBuffer>> allocate(size_t bytes) override;
  Result<std::unique_ptr<detail::DriverKernel>> loadKernel(const KernelEntry &kernel, const Artifact &artifact) override;
  Status synchronize() override;
  std::string denormalSupport() override;
  Status beginTiming() override;
  Result<std::vector<double>> endTiming() override;
  Status copy(detail::DriverBuffer &dst, detail::DriverBuffer &src, size_t bytes) override;

  /// The denormal probe's result (VulkanDenormProbe.cpp): run once, the first time a module needs
  /// a DenormPreserve width the driver does not promise (or a report asks), then cached. Like the
  /// rest of the device, not safe to call from two threads at once.
  const DenormMeasurement &denormMeasurement();
  /// Per width ([0] = 16, [1] = 32, [2] = 64): whether the probe found denormals kept.
  std::array<bool, 3> measuredDenormPreserve() { return denormMeasurement().preserved; }
  /// Whether f32 denormals survive this device's float instructions (promised, or measured).
  bool keepsF32Denormals() { return features().denormPreserve[1] || measuredDenormPreserve()[1]; }

  /// Records commands into the device's command buffer, submits them and waits (launches are synchronous).
  /// `timed` (launches and copies): with timing on, timestamps around the recorded commands give
  /// their device time.
  Status submitAndWait(const std::function<void(VkCommandBuffer)> &record, const std::string &what, bool timed = false);
  /// A memory type allowed by `typeBits` with all of `want`, preferring ones that also have `prefer`.
  std::optional<uint32_t> findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) const;
  VkMemoryPropertyFlags memoryFlags(uint32_t type) const { return memory_.memoryTypes[type].propertyFlags; }
  /// A host-visible staging buffer of at least `bytes` (at most kStagingBytes), kept between copies.
  Status ensureStaging(size_t bytes);

  /// The device's pipeline cache (VK_NULL_HANDLE when none could be made): kernels' pipelines
  /// are created through it. It is read at init from the cache directory's file for this
  /// device's pipelineCacheUUID, vendor, device and driver, and written back (whole, through a
  /// temporary file) when the device closes, if it grew.
  VkPipelineCache pipelineCache() const { return pipelineCache_; }

  static constexpr size_t kStagingBytes = 64u << 20;
  const VolkDeviceTable &vk() const { return vk_; }
  VkDevice handle() const { return device_; }
  const std::string &name() const { return physical_.info.name; }
  VkBuffer stagingBuffer() const { return staging_; }
  void *stagingMap() const { return stagingMap_; }
  size_t stagingSize() const { return stagingSize_; }

private:
  /// Loads and launches the probe shader on this device and compares its outputs bit for bit.
  DenormMeasurement runDenormProbe();

  std::shared_ptr<detail::Driver> driver_;
  std::shared_ptr<VulkanInstance> instance_;
  VulkanPhysical physical_;
  std::optional<DenormMeasurement> denormMeasurement_;
  /// Reads the pipeline cache file (ignoring one that is missing, truncated or corrupt) and
  /// creates the VkPipelineCache; savePipelineCache writes it back.
  void openPipelineCache(const VkPhysicalDeviceProperties &props);
  void savePipelineCache();
  VkPipelineCache pipelineCache_ = VK_NULL_HANDLE;
  std::string pipelineCacheFile_;
  size_t pipelineCacheLoaded_ = 0; // bytes read at init: written back only when it grew
  VkDevice device_ = VK_NULL_HANDLE;
  VolkDeviceTable vk_{};
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE; // two queries: before and after a timed submission
  uint32_t timestampBits_ = 0;              // the queue family's timestampValidBits (0: no timestamps)
  bool timing_ = false;
  std::vector<double> timed_;               // seconds of each timed submission since beginTiming
  VkPhysicalDeviceMemoryProperties memory_{};
  VkPhysicalDeviceLimits limits_{};
  VkBuffer staging_ = VK_NULL_HANDLE;
  VkDeviceMemory stagingMemory_ = VK_NULL_HANDLE;
  void *stagingMap_ = nullptr;
  size_t stagingSize_ = 0;
  friend class VulkanKernel;
};

class VulkanBuffer final : public detail::DriverBuffer {
public:
  explicit VulkanBuffer(VulkanDevice &device) : device_(device) {}
  ~VulkanBuffer() override;
  Status init(size_t bytes);
  Status upload(const void *src, size_t bytes, size_t offsetBytes) override;
  Status download(void *dst, size_t bytes, size_t offsetBytes) override;
  VkBuffer handle() const { return buffer_; }

private:
  VulkanDevice &device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void *mapped_ = nullptr; // set when the memory is host-visible and coherent (lavapipe, ReBAR)
  size_t bytes_ = 0;
};

class VulkanKernel final : public detail::DriverKernel {
public:
  VulkanKernel(VulkanDevice &device, const KernelEntry &kernel, const Artifact &artifact)
      : device_(device), kernel_(kernel), artifact_(artifact) {}
  ~VulkanKernel() override;
  Status init();
  Status launch(Grid grid, std::span<const detail::LaunchArg> args) override;

private:
  VulkanDevice &device_;
  const KernelEntry &kernel_;
  const Artifact &artifact_;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE; // reused: each launch completes before the next updates it
  uint32_t bufferCount_ = 0;
};

/// "1.3.230".
std::string formatVulkanVersion(uint32_t v);
/// Parses "vulkan1.1" into VK_MAKE_API_VERSION(0, 1, 1, 0); false if it is not that form.
bool parseVulkanChip(const std::string &chip, uint32_t &version);

} // namespace tessera::vulkan
