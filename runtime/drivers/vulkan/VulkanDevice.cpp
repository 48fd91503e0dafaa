// VulkanDevice: VkDevice creation (all supported features), the submit-and-wait path, artifact choice.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tessera::vulkan {

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

  if (!features.timelineSemaphores())
    return Status(StatusCode::Unsupported, name() + " has no timeline semaphores (Vulkan 1.2, or "
                                                    "VK_KHR_timeline_semaphore), which Tessera's streams need");

  // Up to four queues of the compute family: streams take turns on them, so work of different
  // streams can overlap on the device.
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, family.data());
  const uint32_t queueCount = physical_.queueFamily < families ? std::clamp(family[physical_.queueFamily].queueCount, 1u, 4u) : 1;
  std::vector<float> priorities(queueCount, 1.0f);
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = physical_.queueFamily;
  queue.queueCount = queueCount;
  queue.pQueuePriorities = priorities.data();
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features.head();
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  TESSERA_VK_TRY_CTX(vkCreateDevice(pd, &info, nullptr, &device_), "opening " + name());
  pipelineStatistics_ = features.pipelineStatistics();
  // One dispatch table per device: calls skip the loader trampoline and several devices coexist.
  volkLoadDeviceTable(&vk_, device_);
  pushDescriptors_ = features.pushDescriptors() && vk_.vkCmdPushDescriptorSetKHR;
  waitSemaphores = vk_.vkWaitSemaphores ? vk_.vkWaitSemaphores : vk_.vkWaitSemaphoresKHR;
  getSemaphoreCounterValue = vk_.vkGetSemaphoreCounterValue ? vk_.vkGetSemaphoreCounterValue : vk_.vkGetSemaphoreCounterValueKHR;
  if (!waitSemaphores || !getSemaphoreCounterValue)
    return Status(StatusCode::Unsupported, name() + ": the driver offers timeline semaphores but not vkWaitSemaphores");
  for (uint32_t i = 0; i < queueCount; ++i) {
    queues_.push_back(std::make_unique<VulkanQueue>());
    vk_.vkGetDeviceQueue(device_, physical_.queueFamily, i, &queues_.back()->handle);
  }
  if (physical_.queueFamily < families && limits_.timestampPeriod > 0)
    timestampBits_ = family[physical_.queueFamily].timestampValidBits;

  auto core = std::make_shared<VulkanStreamCore>(*this, *queues_[0]);
  if (Status s = core->init(); !s) return s;
  streams_.push_back(core);
  defaultStream_ = std::make_unique<VulkanStream>(std::move(core));
  cacheKey_ = cacheKeyOf(props);
  openPipelineCache(props);
  return Status::success();
}

namespace {
constexpr char kPipelineCacheMagic[] = "tessera vulkan pipeline cache v1\n";
} // namespace

std::string cacheKeyOf(const VkPhysicalDeviceProperties &props) {
  char name[96];
  std::snprintf(name, sizeof name, "%04x-%04x-%08x-", props.vendorID, props.deviceID, props.driverVersion);
  std::string key = name;
  for (uint8_t b : props.pipelineCacheUUID) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", b);
    key += hex;
  }
  return key;
}

// File layout: the magic line, the data's size and FNV-1a hash (8 bytes each, little-endian),
// then vkGetPipelineCacheData's bytes. The driver checks its own header (vendor, device,
// pipelineCacheUUID) too; the hash keeps a damaged file from ever reaching it.
void VulkanDevice::openPipelineCache(const VkPhysicalDeviceProperties &props) {
  std::vector<uint8_t> data;
  if (std::string dir = cacheDirectory(); !dir.empty()) {
    pipelineCacheFile_ = dir + "/vulkan-pipelines/" + cacheKey_ + ".bin";
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
  defaultStream_.reset(); // waits for its work
  vk_.vkDeviceWaitIdle(device_);
  savePipelineCache();
  if (pipelineCache_) vk_.vkDestroyPipelineCache(device_, pipelineCache_, nullptr);
  destroy(staging_);
  vk_.vkDestroyDevice(device_, nullptr);
}

Status VulkanDevice::submitAndWait(const std::function<void(VkCommandBuffer)> &record, const std::string &what) {
  VulkanStreamCore &core = defaultStream_->core();
  Status s = core.submit(
      [&](VulkanFrame &, VkCommandBuffer cmd) {
        record(cmd);
        return Status::success();
      },
      what, false);
  if (!s) return s;
  return core.synchronize();
}

Status VulkanDevice::synchronize() {
  std::vector<std::shared_ptr<VulkanStreamCore>> live;
  {
    std::lock_guard<std::mutex> lock(streamsLock_);
    std::erase_if(streams_, [](const std::weak_ptr<VulkanStreamCore> &w) { return w.expired(); });
    for (const std::weak_ptr<VulkanStreamCore> &w : streams_)
      if (auto core = w.lock()) live.push_back(std::move(core));
  }
  Status first;
  for (const std::shared_ptr<VulkanStreamCore> &core : live)
    if (Status s = core->synchronize(); !s && first) first = s;
  return first;
}

Result<std::unique_ptr<detail::DriverStream>> VulkanDevice::createStream() {
  std::lock_guard<std::mutex> lock(streamsLock_);
  VulkanQueue &queue = *queues_[nextQueue_++ % queues_.size()];
  auto core = std::make_shared<VulkanStreamCore>(*this, queue);
  if (Status s = core->init(); !s) return s;
  std::erase_if(streams_, [](const std::weak_ptr<VulkanStreamCore> &w) { return w.expired(); });
  streams_.push_back(core);
  return std::unique_ptr<detail::DriverStream>(std::make_unique<VulkanStream>(std::move(core)));
}

Status VulkanDevice::beginTiming() {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (timing_) return Status(StatusCode::InvalidArgument, "beginTiming: timing is already on for " + name() + " via vulkan");
  if (!timestampBits_)
    return Status(StatusCode::Unsupported, "beginTiming: " + name() +
                                               " via vulkan has no timestamp queries on its compute queue "
                                               "(timestampValidBits is 0), so launches cannot be timed on the device");
  timed_.clear();
  ++timingGeneration_;
  timing_ = true;
  return Status::success();
}

Result<std::vector<double>> VulkanDevice::endTiming() {
  {
    std::lock_guard<std::mutex> lock(timingLock_);
    if (!timing_) return Status(StatusCode::InvalidArgument, "endTiming: timing is not on for " + name() + " via vulkan");
  }
  Status waited = synchronize(); // every timed command retires, filling its slot
  std::lock_guard<std::mutex> lock(timingLock_);
  timing_ = false;
  if (!waited) return waited;
  return std::move(timed_);
}

std::pair<size_t, uint64_t> VulkanDevice::reserveTimedSlot() {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (!timing_) return {~size_t(0), 0};
  timed_.push_back(0.0);
  return {timed_.size() - 1, timingGeneration_};
}

void VulkanDevice::fillTimedSlot(size_t slot, uint64_t generation, double seconds) {
  std::lock_guard<std::mutex> lock(timingLock_);
  if (generation == timingGeneration_ && slot < timed_.size()) timed_[slot] = seconds;
}

double VulkanDevice::ticksToSeconds(uint64_t begin, uint64_t end) const {
  // Only timestampBits_ bits count: the difference modulo 2^bits survives a wrap.
  uint64_t mask = timestampBits_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << timestampBits_) - 1;
  return double((end - begin) & mask) * double(limits_.timestampPeriod) * 1e-9;
}

Status VulkanDevice::copy(detail::DriverStream &stream, detail::DriverBuffer &dst, detail::DriverBuffer &src,
                          size_t bytes) {
  VkBufferCopy region{0, 0, bytes};
  VkBuffer from = static_cast<VulkanBuffer &>(src).handle(), to = static_cast<VulkanBuffer &>(dst).handle();
  return static_cast<VulkanStream &>(stream).core().submit(
      [&](VulkanFrame &, VkCommandBuffer cmd) {
        vk_.vkCmdCopyBuffer(cmd, from, to, 1, &region);
        return Status::success();
      },
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

Result<HostBuffer> VulkanDevice::createHostBuffer(size_t bytes) {
  HostBuffer b;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const std::string what = "creating a " + std::to_string(bytes) + "-byte staging buffer on " + name();
  TESSERA_VK_TRY_CTX(vk_.vkCreateBuffer(device_, &info, nullptr, &b.buffer), what);
  VkMemoryRequirements req{};
  vk_.vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  auto type = findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                             VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (!type) {
    destroy(b);
    return Status(StatusCode::Unsupported, name() + " has no host-visible coherent memory for staging copies");
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  VkResult r = vk_.vkAllocateMemory(device_, &alloc, nullptr, &b.memory);
  if (r == VK_SUCCESS) r = vk_.vkBindBufferMemory(device_, b.buffer, b.memory, 0);
  if (r == VK_SUCCESS) r = vk_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.map);
  if (r != VK_SUCCESS) {
    destroy(b);
    return vkStatus(r, "vkAllocateMemory/vkMapMemory()", what);
  }
  b.size = bytes;
  return b;
}

void VulkanDevice::destroy(HostBuffer &b) {
  if (b.map) vk_.vkUnmapMemory(device_, b.memory);
  if (b.buffer) vk_.vkDestroyBuffer(device_, b.buffer, nullptr);
  if (b.memory) vk_.vkFreeMemory(device_, b.memory, nullptr);
  b = HostBuffer{};
}

Status VulkanDevice::ensureStaging(size_t bytes) {
  size_t want = std::min(bytes, kStagingBytes);
  if (staging_.buffer && staging_.size >= want) return Status::success();
  destroy(staging_);
  // Grow to the cap at once for big copies; small first copies get a small buffer.
  Result<HostBuffer> made = createHostBuffer(want < (1u << 20) ? (1u << 20) : kStagingBytes);
  if (!made) return made.status();
  staging_ = *made;
  return Status::success();
}

TargetDesc VulkanDevice::target() {
  TargetDesc t;
  t.kind = TargetKind::SPIRV;
  // The SPIR-V environment every device here accepts (SPIR-V 1.3), or SPIR-V 1.6 with
  // cooperative matrices where the self-test passed (runs it once).
  const CoopMatrixCheck &coop = coopMatrixCheck();
  t.chip = coop.usable ? std::string("vulkan1.3") + kCoopMatrixSuffix + (coop.bf16 ? kCoopBF16Suffix : "") +
                             (coop.mmaLanes ? kMmaLanesSuffix : "")
                       : std::string("vulkan1.1");
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
    if (a.target.kind != TargetKind::SPIRV || !a.divisibleArgs.empty()) continue; // (a specialized variant: Device::load)
    uint32_t needs = 0;
    if (!a.target.chip.empty() && parseVulkanChip(a.target.chip, needs) && needs > physical_.apiVersion) continue;
    if (hasCoopMatrix(a.target.chip) && !coopMatrixCheck().usable) continue; // runs the self-test once
    if (hasMmaLanes(a.target.chip) && !coopMatrixCheck().mmaLanes) continue;
    if (hasCoopBF16(a.target.chip) && !coopMatrixCheck().bf16) continue;
    if (a.target.subgroupSize == subgroup) exact.push_back(&a);
    else if (a.target.subgroupSize == 0) any.push_back(&a);
  }
  auto pick = [&](std::vector<const Artifact *> candidates) -> const Artifact * {
    auto soft = [](const Artifact *a) { return hasSoftDenormals(a->target.chip); };
    if (candidates.empty()) return nullptr;
    // Code with cooperative matrices first, bf16 ones before those, accumulators in registers
    // before that (only usable ones are left).
    std::stable_partition(candidates.begin(), candidates.end(),
                          [](const Artifact *a) { return hasCoopMatrix(a->target.chip); });
    std::stable_partition(candidates.begin(), candidates.end(),
                          [](const Artifact *a) { return hasCoopBF16(a->target.chip); });
    std::stable_partition(candidates.begin(), candidates.end(),
                          [](const Artifact *a) { return hasMmaLanes(a->target.chip); });
    if (std::all_of(candidates.begin(), candidates.end(), soft) || std::none_of(candidates.begin(), candidates.end(), soft))
      return candidates.front();
    const bool wantSoft = !keepsF32Denormals(); // runs the denormal probe once, only for this choice
    for (const Artifact *a : candidates)
      if (soft(a) == wantSoft) return a;
    return candidates.front();
  };
  if (const Artifact *a = pick(exact)) return a;
  if (const Artifact *a = pick(any)) return a;
  bool coopOnly = false; // some artifact fits but for cooperative matrices, which do not pass here
  for (const Artifact &a : kernel.artifacts)
    coopOnly = coopOnly || (a.target.kind == TargetKind::SPIRV && hasCoopMatrix(a.target.chip) &&
                            (a.target.subgroupSize == subgroup || a.target.subgroupSize == 0));
  return detail::noArtifactStatus(kernel, name() + " via vulkan",
                                  "spirv for vulkan" + std::to_string(VK_API_VERSION_MAJOR(physical_.apiVersion)) + "." +
                                      std::to_string(VK_API_VERSION_MINOR(physical_.apiVersion)) +
                                      " or older with subgroup size " + std::to_string(subgroup) +
                                      (coopOnly ? " and without cooperative matrices (matrix units here: " +
                                                      coopMatrixCheck().detail + ")"
                                                : std::string()));
}

} // namespace tessera::vulkan
