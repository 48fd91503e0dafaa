// VulkanDevice: VkDevice creation (all supported features), the submit-and-wait path, artifact choice.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

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

  // Timestamp queries for device-side timing, where the queue family has them.
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, family.data());
  if (physical_.queueFamily < families && limits_.timestampPeriod > 0)
    timestampBits_ = family[physical_.queueFamily].timestampValidBits;
  if (timestampBits_) {
    VkQueryPoolCreateInfo query{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    query.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query.queryCount = 2;
    TESSERA_VK_TRY_CTX(vk_.vkCreateQueryPool(device_, &query, nullptr, &timestamps_), "creating a timestamp query pool");
  }
  openPipelineCache(props);
  return Status::success();
}

namespace {
constexpr char kPipelineCacheMagic[] = "tessera vulkan pipeline cache v1\n";
} // namespace

// File layout: the magic line, the data's size and FNV-1a hash (8 bytes each, little-endian),
// then vkGetPipelineCacheData's bytes. The driver checks its own header (vendor, device,
// pipelineCacheUUID) too; the hash keeps a damaged file from ever reaching it.
void VulkanDevice::openPipelineCache(const VkPhysicalDeviceProperties &props) {
  std::vector<uint8_t> data;
  if (std::string dir = cacheDirectory(); !dir.empty()) {
    char name[96];
    std::snprintf(name, sizeof name, "%04x-%04x-%08x-", props.vendorID, props.deviceID, props.driverVersion);
    std::string uuid;
    for (uint8_t b : props.pipelineCacheUUID) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", b);
      uuid += hex;
    }
    pipelineCacheFile_ = dir + "/vulkan-pipelines/" + name + uuid + ".bin";
    std::ifstream in(pipelineCacheFile_, std::ios::binary);
    std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t head = sizeof kPipelineCacheMagic - 1;
    if (file.size() > head + 16 && std::memcmp(file.data(), kPipelineCacheMagic, head) == 0) {
      uint64_t size = 0, hash = 0;
      std::memcpy(&size, file.data() + head, 8);
      std::memcpy(&hash, file.data() + head + 8, 8);
      if (size == file.size() - head - 16 && fnv1a64(std::span<const uint8_t>(file.data() + head + 16, size)) == hash)
        data.assign(file.begin() + std::ptrdiff_t(head + 16), file.end());
    }
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  if (vk_.vkCreatePipelineCache(device_, &info, nullptr, &pipelineCache_) != VK_SUCCESS) {
    info.initialDataSize = 0, info.pInitialData = nullptr; // the driver refused the data: start empty
    data.clear();
    if (vk_.vkCreatePipelineCache(device_, &info, nullptr, &pipelineCache_) != VK_SUCCESS) pipelineCache_ = VK_NULL_HANDLE;
  }
  pipelineCacheLoaded_ = data.size();
}

void VulkanDevice::savePipelineCache() {
  if (!pipelineCache_ || pipelineCacheFile_.empty()) return;
  size_t size = 0;
  if (vk_.vkGetPipelineCacheData(device_, pipelineCache_, &size, nullptr) != VK_SUCCESS || size <= pipelineCacheLoaded_)
    return;
  std::vector<uint8_t> data(size);
  if (vk_.vkGetPipelineCacheData(device_, pipelineCache_, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  std::string bytes(kPipelineCacheMagic);
  uint64_t length = size, hash = fnv1a64(data);
  bytes.append(reinterpret_cast<const char *>(&length), 8);
  bytes.append(reinterpret_cast<const char *>(&hash), 8);
  bytes.append(reinterpret_cast<const char *>(data.data()), size);
  // A failure to write only costs the next process its pipelines' compile time.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(pipelineCacheFile_).parent_path(), ec);
  (void)writeFileAtomically(pipelineCacheFile_, std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

VulkanDevice::~VulkanDevice() {
  if (!device_) return;
  vk_.vkDeviceWaitIdle(device_);
  savePipelineCache();
  if (pipelineCache_) vk_.vkDestroyPipelineCache(device_, pipelineCache_, nullptr);
  if (stagingMap_) vk_.vkUnmapMemory(device_, stagingMemory_);
  if (staging_) vk_.vkDestroyBuffer(device_, staging_, nullptr);
  if (stagingMemory_) vk_.vkFreeMemory(device_, stagingMemory_, nullptr);
  if (fence_) vk_.vkDestroyFence(device_, fence_, nullptr);
  if (timestamps_) vk_.vkDestroyQueryPool(device_, timestamps_, nullptr);
  if (commandPool_) vk_.vkDestroyCommandPool(device_, commandPool_, nullptr);
  vk_.vkDestroyDevice(device_, nullptr);
}

Status VulkanDevice::submitAndWait(const std::function<void(VkCommandBuffer)> &record, const std::string &what,
                                   bool timed) {
  timed = timed && timing_;
  TESSERA_VK_TRY_CTX(vk_.vkResetCommandBuffer(commands_, 0), what);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  TESSERA_VK_TRY_CTX(vk_.vkBeginCommandBuffer(commands_, &begin), what);
  if (timed) vk_.vkCmdResetQueryPool(commands_, timestamps_, 0, 2);
  fullBarrier(vk_, commands_);
  // ALL_COMMANDS: each timestamp is written once every earlier command has finished.
  if (timed) vk_.vkCmdWriteTimestamp(commands_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, timestamps_, 0);
  record(commands_);
  if (timed) vk_.vkCmdWriteTimestamp(commands_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, timestamps_, 1);
  fullBarrier(vk_, commands_);
  TESSERA_VK_TRY_CTX(vk_.vkEndCommandBuffer(commands_), what);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands_;
  TESSERA_VK_TRY_CTX(vk_.vkQueueSubmit(queue_, 1, &submit, fence_), what);
  VkResult waited = vk_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
  vk_.vkResetFences(device_, 1, &fence_);
  if (waited != VK_SUCCESS) return vkStatus(waited, "vkWaitForFences()", what + " on " + name());
  if (timed) {
    uint64_t ticks[2] = {};
    TESSERA_VK_TRY_CTX(vk_.vkGetQueryPoolResults(device_, timestamps_, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                       "reading the timestamps of " + what);
    // Only timestampBits_ bits count: the difference modulo 2^bits survives a wrap.
    uint64_t mask = timestampBits_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << timestampBits_) - 1;
    timed_.push_back(double((ticks[1] - ticks[0]) & mask) * double(limits_.timestampPeriod) * 1e-9);
  }
  return Status::success();
}

Status VulkanDevice::beginTiming() {
  if (timing_) return Status(StatusCode::InvalidArgument, "beginTiming: timing is already on for " + name() + " via vulkan");
  if (!timestamps_)
    return Status(StatusCode::Unsupported, "beginTiming: " + name() +
                                               " via vulkan has no timestamp queries on its compute queue "
                                               "(timestampValidBits is 0), so launches cannot be timed on the device");
  timed_.clear();
  timing_ = true;
  return Status::success();
}

Result<std::vector<double>> VulkanDevice::endTiming() {
  if (!timing_) return Status(StatusCode::InvalidArgument, "endTiming: timing is not on for " + name() + " via vulkan");
  timing_ = false;
  return std::move(timed_);
}

Status VulkanDevice::copy(detail::DriverBuffer &dst, detail::DriverBuffer &src, size_t bytes) {
  VkBufferCopy region{0, 0, bytes};
  VkBuffer from = static_cast<VulkanBuffer &>(src).handle(), to = static_cast<VulkanBuffer &>(dst).handle();
  return submitAndWait([&](VkCommandBuffer cmd) { vk_.vkCmdCopyBuffer(cmd, from, to, 1, &region); },
                       "copying " + std::to_string(bytes) + " bytes", true);
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

TargetDesc VulkanDevice::target() {
  TargetDesc t;
  t.kind = TargetKind::SPIRV;
  t.chip = "vulkan1.1"; // the SPIR-V environment every device here accepts (SPIR-V 1.3)
  if (!keepsF32Denormals()) t.chip += kSoftDenormalsSuffix;
  t.ptxVersion = 0;
  t.subgroupSize = physical_.info.info.subgroupSize;
  return t;
}

Result<const Artifact *> VulkanDevice::selectArtifact(const KernelEntry &kernel) {
  // Exact subgroup size first; code recorded with subgroup size 0 runs at any size. Among those,
  // the denormal handling the device needs first: a kernel compiled both ways runs its portable
  // code natively where f32 denormals are kept and in software where they are flushed (either
  // one computes the same bits where it runs; the other is slower, or refused at load).
  const uint32_t subgroup = physical_.info.info.subgroupSize;
  std::vector<const Artifact *> exact, any;
  for (const Artifact &a : kernel.artifacts) {
    if (a.target.kind != TargetKind::SPIRV) continue;
    uint32_t needs = 0;
    if (!a.target.chip.empty() && parseVulkanChip(a.target.chip, needs) && needs > physical_.apiVersion) continue;
    if (a.target.subgroupSize == subgroup) exact.push_back(&a);
    else if (a.target.subgroupSize == 0) any.push_back(&a);
  }
  auto pick = [&](const std::vector<const Artifact *> &candidates) -> const Artifact * {
    auto soft = [](const Artifact *a) { return hasSoftDenormals(a->target.chip); };
    if (candidates.empty()) return nullptr;
    if (std::all_of(candidates.begin(), candidates.end(), soft) || std::none_of(candidates.begin(), candidates.end(), soft))
      return candidates.front();
    const bool wantSoft = !keepsF32Denormals(); // runs the denormal probe once, only for this choice
    for (const Artifact *a : candidates)
      if (soft(a) == wantSoft) return a;
    return candidates.front();
  };
  if (const Artifact *a = pick(exact)) return a;
  if (const Artifact *a = pick(any)) return a;
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
