// VulkanBuffer: a device-local storage buffer; copies map it directly when it is host-coherent, else stage.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace tessera::vulkan {
namespace {

// TESSERA_VULKAN_ALLOCATION, a measurement switch for large buffers' bandwidth (docs/runtime.md):
// "dedicated" (the default: dedicatedAllocations), "plain" (never dedicated), "stagger" (each allocation
// 16 MiB larger than the buffer, the buffer bound 1 MiB further in than the previous one's, modulo
// 16 MiB: buffers whose addresses would agree in their low 24 bits no longer do).
enum class Placement { Dedicated, Plain, Stagger };

Placement placement() {
  static const Placement p = [] {
    const char *env = std::getenv("TESSERA_VULKAN_ALLOCATION");
    std::string_view v = env ? env : "";
    return v == "plain" ? Placement::Plain : v == "stagger" ? Placement::Stagger : Placement::Dedicated;
  }();
  return p;
}

// A buffer gets a dedicated allocation when the driver requires one; by default also when it
// prefers one, and from 64 MiB up.
bool dedicatedAllocations(const VkMemoryDedicatedRequirements &r, size_t bytes) {
  return r.requiresDedicatedAllocation || (placement() == Placement::Dedicated &&
                                           (r.prefersDedicatedAllocation || bytes >= (size_t(64) << 20)));
}

} // namespace

Result<std::unique_ptr<detail::DriverBuffer>> VulkanDevice::allocate(size_t bytes) {
  auto buffer = std::make_unique<VulkanBuffer>(*this);
  if (Status s = buffer->init(bytes); !s) return s;
  return std::unique_ptr<detail::DriverBuffer>(std::move(buffer));
}

Status VulkanBuffer::init(size_t bytes) {
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();
  std::string what = "allocating " + std::to_string(bytes) + " bytes on " + device_.name();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TESSERA_VK_TRY_CTX(vk.vkCreateBuffer(dev, &info, nullptr, &buffer_), what);
  VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 req2{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated};
  VkBufferMemoryRequirementsInfo2 reqInfo{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  reqInfo.buffer = buffer_;
  vk.vkGetBufferMemoryRequirements2(dev, &reqInfo, &req2);
  const VkMemoryRequirements &req = req2.memoryRequirements;
  auto type = device_.findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (!type) type = device_.findMemoryType(req.memoryTypeBits, 0, 0);
  if (!type) return Status(StatusCode::Unsupported, what + ": no memory type can hold a storage buffer");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  VkDeviceSize offset = 0;
  if (placement() == Placement::Stagger && !dedicated.requiresDedicatedAllocation) {
    static std::atomic<unsigned> count{0};
    const VkDeviceSize step = std::max<VkDeviceSize>(VkDeviceSize(1) << 20, req.alignment);
    offset = (count++ % 16) * step;
    alloc.allocationSize = req.size + 16 * step;
  }
  // Each buffer has its own allocation anyway; saying so lets the driver place a large one as it
  // would a dedicated image (large pages), and some drivers prefer or require it.
  VkMemoryDedicatedAllocateInfo dedicate{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicate.buffer = buffer_;
  if (dedicatedAllocations(dedicated, bytes)) alloc.pNext = &dedicate;
  TESSERA_VK_TRY_CTX(vk.vkAllocateMemory(dev, &alloc, nullptr, &memory_), what);
  TESSERA_VK_TRY_CTX(vk.vkBindBufferMemory(dev, buffer_, memory_, offset), what);
  const VkMemoryPropertyFlags direct = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if ((device_.memoryFlags(*type) & direct) == direct)
    TESSERA_VK_TRY_CTX(vk.vkMapMemory(dev, memory_, offset, VK_WHOLE_SIZE, 0, &mapped_), what);
  bytes_ = bytes;
  return Status::success();
}

VulkanBuffer::~VulkanBuffer() {
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();
  // Work queued on any stream may still use the memory.
  if (buffer_) (void)device_.synchronize();
  if (mapped_) vk.vkUnmapMemory(dev, memory_);
  if (buffer_) vk.vkDestroyBuffer(dev, buffer_, nullptr);
  if (memory_) vk.vkFreeMemory(dev, memory_, nullptr);
}

// The synchronous copies run with the device idle (Buffer::upload / download wait first): mapped
// memory is copied directly, other memory through the device's staging buffer.
Status VulkanBuffer::upload(const void *src, size_t bytes, size_t offsetBytes) {
  if (mapped_) {
    std::memcpy(static_cast<uint8_t *>(mapped_) + offsetBytes, src, bytes);
    return Status::success();
  }
  std::lock_guard<std::mutex> lock(device_.stagingLock());
  if (Status s = device_.ensureStaging(bytes); !s) return s;
  const auto *from = static_cast<const uint8_t *>(src);
  for (size_t done = 0; done < bytes;) {
    size_t chunk = std::min(bytes - done, device_.stagingSize());
    std::memcpy(device_.stagingMap(), from + done, chunk);
    VkBufferCopy region{0, offsetBytes + done, chunk};
    VkBuffer staging = device_.stagingBuffer();
    Status s = device_.submitAndWait(
        [&](VkCommandBuffer cmd) { device_.vk().vkCmdCopyBuffer(cmd, staging, buffer_, 1, &region); }, "uploading");
    if (!s) return s;
    done += chunk;
  }
  return Status::success();
}

Status VulkanBuffer::download(void *dst, size_t bytes, size_t offsetBytes) {
  if (mapped_) {
    std::memcpy(dst, static_cast<const uint8_t *>(mapped_) + offsetBytes, bytes);
    return Status::success();
  }
  std::lock_guard<std::mutex> lock(device_.stagingLock());
  if (Status s = device_.ensureStaging(bytes); !s) return s;
  auto *to = static_cast<uint8_t *>(dst);
  for (size_t done = 0; done < bytes;) {
    size_t chunk = std::min(bytes - done, device_.stagingSize());
    VkBufferCopy region{offsetBytes + done, 0, chunk};
    VkBuffer staging = device_.stagingBuffer();
    Status s = device_.submitAndWait(
        [&](VkCommandBuffer cmd) { device_.vk().vkCmdCopyBuffer(cmd, buffer_, staging, 1, &region); }, "downloading");
    if (!s) return s;
    std::memcpy(to + done, device_.stagingMap(), chunk);
    done += chunk;
  }
  return Status::success();
}

// Stream-ordered copies go through a staging buffer of their own, freed when the copy has
// finished: the host data is taken at once, and a download reaches `dst` when the stream's work
// up to it is seen finished (the core retires the submission and runs its host copy).
Status VulkanBuffer::uploadAsync(detail::DriverStream &stream, const void *src, size_t bytes, size_t offsetBytes) {
  Result<HostBuffer> staging = device_.createHostBuffer(bytes);
  if (!staging) return staging.status();
  std::memcpy(staging->map, src, bytes);
  HostBuffer held = *staging;
  Status s = static_cast<VulkanStream &>(stream).core().submit(
      [&](VulkanFrame &frame, VkCommandBuffer cmd) {
        VkBufferCopy region{0, offsetBytes, bytes};
        device_.vk().vkCmdCopyBuffer(cmd, held.buffer, buffer_, 1, &region);
        frame.staging.push_back(held);
        held = HostBuffer{};
        return Status::success();
      },
      "uploading " + std::to_string(bytes) + " bytes on a stream", false);
  if (held.buffer) device_.destroy(held); // not handed to a submission
  return s;
}

Status VulkanBuffer::downloadAsync(detail::DriverStream &stream, void *dst, size_t bytes, size_t offsetBytes) {
  Result<HostBuffer> staging = device_.createHostBuffer(bytes);
  if (!staging) return staging.status();
  HostBuffer held = *staging;
  Status s = static_cast<VulkanStream &>(stream).core().submit(
      [&](VulkanFrame &frame, VkCommandBuffer cmd) {
        VkBufferCopy region{offsetBytes, 0, bytes};
        device_.vk().vkCmdCopyBuffer(cmd, buffer_, held.buffer, 1, &region);
        frame.whenDone.push_back([map = held.map, dst, bytes] { std::memcpy(dst, map, bytes); });
        frame.staging.push_back(held);
        held = HostBuffer{};
        return Status::success();
      },
      "downloading " + std::to_string(bytes) + " bytes on a stream", false);
  if (held.buffer) device_.destroy(held);
  return s;
}

} // namespace tessera::vulkan
