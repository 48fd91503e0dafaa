// VulkanDevice: VkDevice creation (all supported features), the submit-and-wait path, artifact choice.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <cstring>

namespace tessera::vulkan {

namespace {

// Command buffers are separate submissions; one full barrier on each side orders every launch
// and copy against the previous and next ones, and makes results visible to mapped host reads.
void fullBarrier(const VolkDeviceTable &vk, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr,
                          0, nullptr);
}

} // namespace

Status VulkanDevice::init() {
  VkPhysicalDevice pd = physical_.handle;
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(pd, &props);
  limits_ = props.limits;
  vkGetPhysicalDeviceMemoryProperties(pd, &memory_);

  // Enable every feature the device has (core, and the extensions in FeatureChain): MLIR's
  // SPIR-V may use int64, float16, 8/16-bit storage, float atomics and so on, and an absent
  // feature makes pipeline creation fail obscurely. checkCapabilities refuses the rest by name.
  FeatureChain features(pd, physical_.apiVersion, physical_.extensions);
  features.disableRobustness();
  const std::vector<const char *> &extensions = features.extensions();

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = physical_.queueFamily;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features.head();
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  TESSERA_VK_TRY_CTX(vkCreateDevice(pd, &info, nullptr, &device_), "opening " + name());
  // One dispatch table per device: calls skip the loader trampoline and several devices coexist.
  volkLoadDeviceTable(&vk_, device_);
  vk_.vkGetDeviceQueue(device_, physical_.queueFamily, 0, &queue_);

  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = physical_.queueFamily;
  TESSERA_VK_TRY(vk_.vkCreateCommandPool(device_, &pool, nullptr, &commandPool_));
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = commandPool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  TESSERA_VK_TRY(vk_.vkAllocateCommandBuffers(device_, &alloc, &commands_));
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  TESSERA_VK_TRY(vk_.vkCreateFence(device_, &fence, nullptr, &fence_));
  return Status::success();
}

VulkanDevice::~VulkanDevice() {
  if (!device_) return;
  vk_.vkDeviceWaitIdle(device_);
  if (stagingMap_) vk_.vkUnmapMemory(device_, stagingMemory_);
  if (staging_) vk_.vkDestroyBuffer(device_, staging_, nullptr);
  if (stagingMemory_) vk_.vkFreeMemory(device_, stagingMemory_, nullptr);
  if (fence_) vk_.vkDestroyFence(device_, fence_, nullptr);
  if (commandPool_) vk_.vkDestroyCommandPool(device_, commandPool_, nullptr);
  vk_.vkDestroyDevice(device_, nullptr);
}

Status VulkanDevice::submitAndWait(const std::function<void(VkCommandBuffer)> &record, const std::string &what) {
  TESSERA_VK_TRY_CTX(vk_.vkResetCommandBuffer(commands_, 0), what);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  TESSERA_VK_TRY_CTX(vk_.vkBeginCommandBuffer(commands_, &begin), what);
  fullBarrier(vk_, commands_);
  record(commands_);
  fullBarrier(vk_, commands_);
  TESSERA_VK_TRY_CTX(vk_.vkEndCommandBuffer(commands_), what);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands_;
  TESSERA_VK_TRY_CTX(vk_.vkQueueSubmit(queue_, 1, &submit, fence_), what);
  VkResult waited = vk_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
  vk_.vkResetFences(device_, 1, &fence_);
  if (waited != VK_SUCCESS) return vkStatus(waited, "vkWaitForFences()", what + " on " + name());
  return Status::success();
}

std::optional<uint32_t> VulkanDevice::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags want,
                                                     VkMemoryPropertyFlags prefer) const {
  std::optional<uint32_t> fallback;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if ((f & prefer) == prefer) return i;
    if (!fallback) fallback = i;
  }
  return fallback;
}

Status VulkanDevice::ensureStaging(size_t bytes) {
  size_t want = std::min(bytes, kStagingBytes);
  if (staging_ && stagingSize_ >= want) return Status::success();
  if (stagingMap_) vk_.vkUnmapMemory(device_, stagingMemory_);
  if (staging_) vk_.vkDestroyBuffer(device_, staging_, nullptr);
  if (stagingMemory_) vk_.vkFreeMemory(device_, stagingMemory_, nullptr);
  staging_ = VK_NULL_HANDLE;
  stagingMemory_ = VK_NULL_HANDLE;
  stagingMap_ = nullptr;
  stagingSize_ = 0;
  // Grow to the cap at once for big copies; small first copies get a small buffer.
  size_t size = want < (1u << 20) ? (1u << 20) : kStagingBytes;

  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TESSERA_VK_TRY_CTX(vk_.vkCreateBuffer(device_, &info, nullptr, &staging_), "creating the staging buffer");
  VkMemoryRequirements req{};
  vk_.vkGetBufferMemoryRequirements(device_, staging_, &req);
  auto type = findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                             VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (!type) return Status(StatusCode::Unsupported, name() + " has no host-visible coherent memory for staging copies");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  TESSERA_VK_TRY_CTX(vk_.vkAllocateMemory(device_, &alloc, nullptr, &stagingMemory_), "allocating the staging buffer");
  TESSERA_VK_TRY(vk_.vkBindBufferMemory(device_, staging_, stagingMemory_, 0));
  TESSERA_VK_TRY(vk_.vkMapMemory(device_, stagingMemory_, 0, VK_WHOLE_SIZE, 0, &stagingMap_));
  stagingSize_ = size;
  return Status::success();
}

TargetDesc VulkanDevice::target() const {
  TargetDesc t;
  t.kind = TargetKind::SPIRV;
  t.chip = "vulkan1.1"; // the SPIR-V environment every device here accepts (SPIR-V 1.3)
  t.ptxVersion = 0;
  t.subgroupSize = physical_.info.info.subgroupSize;
  return t;
}

Result<const Artifact *> VulkanDevice::selectArtifact(const KernelEntry &kernel) const {
  // Exact subgroup size first; code recorded with subgroup size 0 runs at any size.
  const uint32_t subgroup = physical_.info.info.subgroupSize;
  const Artifact *any = nullptr;
  for (const Artifact &a : kernel.artifacts) {
    if (a.target.kind != TargetKind::SPIRV) continue;
    uint32_t needs = 0;
    if (!a.target.chip.empty() && parseVulkanChip(a.target.chip, needs) && needs > physical_.apiVersion) continue;
    if (a.target.subgroupSize == subgroup) return &a;
    if (a.target.subgroupSize == 0 && !any) any = &a;
  }
  if (any) return any;
  return detail::noArtifactStatus(kernel, name() + " via vulkan",
                                  "spirv for vulkan" + std::to_string(VK_API_VERSION_MAJOR(physical_.apiVersion)) + "." +
                                      std::to_string(VK_API_VERSION_MINOR(physical_.apiVersion)) +
                                      " or older with subgroup size " + std::to_string(subgroup));
}

Status VulkanDevice::synchronize() {
  TESSERA_VK_TRY_CTX(vk_.vkQueueWaitIdle(queue_), "waiting for " + name());
  return Status::success();
}

} // namespace tessera::vulkan
