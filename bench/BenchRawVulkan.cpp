// The same kernel dispatched straight through Vulkan, for the launch-overhead ratio: what a
// hand-written Vulkan program does for back-to-back dispatches (vkCmdDispatch in a loop, each with
// its pipeline, descriptor set and push constants bound and a barrier after it, in one command
// buffer, one submission), against the runtime's per-launch time. The loader is opened here on
// its own (volk), as the runtime does, on the physical device with this device's UUID.
#include "BenchRun.hpp"

#include <volk.h>

#include <chrono>
#include <cstring>

namespace tessera::bench {

namespace {

// Every Vulkan object the loop creates, destroyed in reverse order whatever happens.
struct RawVulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory{};
  std::vector<VkBuffer> buffers;
  std::vector<VkDeviceMemory> memories;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
  VkShaderModule shader = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkCommandPool commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

  ~RawVulkan() {
    if (device) {
      vkDeviceWaitIdle(device);
      if (fence) vkDestroyFence(device, fence, nullptr);
      if (commands) vkDestroyCommandPool(device, commands, nullptr);
      if (pool) vkDestroyDescriptorPool(device, pool, nullptr);
      if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
      if (shader) vkDestroyShaderModule(device, shader, nullptr);
      if (pipelineLayout) vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
      if (setLayout) vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
      for (VkBuffer b : buffers) vkDestroyBuffer(device, b, nullptr);
      for (VkDeviceMemory m : memories) vkFreeMemory(device, m, nullptr);
      vkDestroyDevice(device, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

Status fail(const char *call, VkResult r) {
  return Status(StatusCode::DriverError, std::string("raw Vulkan loop: ") + call + " returned " + std::to_string(int(r)));
}

#define RAW_VK(call)                                                                                                   \
  do {                                                                                                                 \
    if (VkResult r_ = (call); r_ != VK_SUCCESS) return fail(#call, r_);                                                \
  } while (0)

// Instance, the physical device with `uuid`, and a device with one compute queue and every
// feature it has (the kernel's SPIR-V may declare any of them), robustness off as in the runtime.
Status openDevice(RawVulkan &vk, const std::array<uint8_t, 16> &uuid) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  RAW_VK(vkCreateInstance(&info, nullptr, &vk.instance));
  volkLoadInstanceOnly(vk.instance);
  uint32_t count = 0;
  RAW_VK(vkEnumeratePhysicalDevices(vk.instance, &count, nullptr));
  std::vector<VkPhysicalDevice> physical(count);
  RAW_VK(vkEnumeratePhysicalDevices(vk.instance, &count, physical.data()));
  VkPhysicalDevice chosen = VK_NULL_HANDLE;
  for (VkPhysicalDevice pd : physical) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    vkGetPhysicalDeviceProperties2(pd, &props);
    if (props.properties.apiVersion >= VK_API_VERSION_1_2 && std::memcmp(id.deviceUUID, uuid.data(), 16) == 0) chosen = pd;
  }
  if (!chosen) return Status(StatusCode::NotFound, "raw Vulkan loop: no Vulkan 1.2 device has this device's UUID");
  vkGetPhysicalDeviceMemoryProperties(chosen, &vk.memory);
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(chosen, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(chosen, &families, family.data());
  uint32_t compute = families;
  for (uint32_t i = 0; i < families && compute == families; ++i)
    if (family[i].queueFlags & VK_QUEUE_COMPUTE_BIT) compute = i;
  if (compute == families) return Status(StatusCode::Unsupported, "raw Vulkan loop: no compute queue");

  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  vkGetPhysicalDeviceFeatures2(chosen, &features);
  features.features.robustBufferAccess = VK_FALSE;
  const float priority = 1;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = compute;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  RAW_VK(vkCreateDevice(chosen, &create, nullptr, &vk.device));
  volkLoadDevice(vk.device);
  vkGetDeviceQueue(vk.device, compute, 0, &vk.queue);
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.queueFamilyIndex = compute;
  RAW_VK(vkCreateCommandPool(vk.device, &pool, nullptr, &vk.commands));
  return Status::success();
}

Status createBuffer(RawVulkan &vk, VkDeviceSize bytes) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  RAW_VK(vkCreateBuffer(vk.device, &info, nullptr, &buffer));
  vk.buffers.push_back(buffer);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(vk.device, buffer, &req);
  uint32_t type = vk.memory.memoryTypeCount;
  for (uint32_t i = 0; i < vk.memory.memoryTypeCount && type == vk.memory.memoryTypeCount; ++i)
    if ((req.memoryTypeBits & (1u << i)) && (vk.memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
      type = i;
  if (type == vk.memory.memoryTypeCount) return Status(StatusCode::Unsupported, "raw Vulkan loop: no device-local memory");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  RAW_VK(vkAllocateMemory(vk.device, &alloc, nullptr, &memory));
  vk.memories.push_back(memory);
  RAW_VK(vkBindBufferMemory(vk.device, buffer, memory, 0));
  return Status::success();
}

// The kernel's pipeline and one descriptor set over fresh buffers: set 0, a storage buffer per
// buffer argument at binding abiSlot, the scalars in one push-constant block (the kernel ABI).
Result<VkDescriptorSet> buildPipeline(RawVulkan &vk, const Kernel &kernel, VkDeviceSize bufferBytes) {
  const Artifact &a = kernel.artifact();
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const ArgSpec &arg : kernel.entry().args) {
    if (arg.kind != ArgKind::Buffer) continue;
    bindings.push_back({arg.abiSlot, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    if (Status s = createBuffer(vk, bufferBytes); !s) return s;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  RAW_VK(vkCreateDescriptorSetLayout(vk.device, &setInfo, nullptr, &vk.setLayout));
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, a.pushConstantBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &vk.setLayout;
  layoutInfo.pushConstantRangeCount = a.pushConstantBytes ? 1 : 0;
  layoutInfo.pPushConstantRanges = &push;
  RAW_VK(vkCreatePipelineLayout(vk.device, &layoutInfo, nullptr, &vk.pipelineLayout));
  VkShaderModuleCreateInfo shaderInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  std::vector<uint32_t> words(a.code.size() / 4);
  std::memcpy(words.data(), a.code.data(), words.size() * 4);
  shaderInfo.codeSize = words.size() * 4;
  shaderInfo.pCode = words.data();
  RAW_VK(vkCreateShaderModule(vk.device, &shaderInfo, nullptr, &vk.shader));
  VkComputePipelineCreateInfo pipe{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipe.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pipe.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipe.stage.module = vk.shader;
  pipe.stage.pName = a.entryPoint.c_str();
  pipe.layout = vk.pipelineLayout;
  RAW_VK(vkCreateComputePipelines(vk.device, VK_NULL_HANDLE, 1, &pipe, nullptr, &vk.pipeline));

  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(bindings.size())};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  RAW_VK(vkCreateDescriptorPool(vk.device, &poolInfo, nullptr, &vk.pool));
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = vk.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &vk.setLayout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  RAW_VK(vkAllocateDescriptorSets(vk.device, &alloc, &set));
  std::vector<VkDescriptorBufferInfo> infos(bindings.size());
  std::vector<VkWriteDescriptorSet> writes(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    infos[i] = {vk.buffers[i], 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = bindings[i].binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(vk.device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  return set;
}

} // namespace

Result<RawLoop> rawVulkanLaunchLoop(Device &dev, const Kernel &kernel, const Problem &p, int launches) {
  const Artifact &a = kernel.artifact();
  if (dev.backend() != Backend::Vulkan || a.target.kind != TargetKind::SPIRV)
    return Status(StatusCode::Unsupported, "the raw Vulkan loop runs on Vulkan devices only");
  if (p.kernel != "add") return Status(StatusCode::Unsupported, "the raw Vulkan loop dispatches the add kernel only");
  if (volkInitialize() != VK_SUCCESS) return Status(StatusCode::Unavailable, "the Vulkan loader cannot be loaded");
  RawVulkan vk;
  if (Status s = openDevice(vk, dev.info().uuid); !s) return s;
  Result<VkDescriptorSet> set = buildPipeline(vk, kernel, VkDeviceSize(p.cols) * 4);
  if (!set) return set.status();
  // The scalar n at its offset in the push-constant block.
  std::vector<uint8_t> push(a.pushConstantBytes);
  const int32_t n = int32_t(p.cols);
  for (const ArgSpec &arg : kernel.entry().args)
    if (arg.kind == ArgKind::Scalar && arg.abiSlot + sizeof n <= push.size()) std::memcpy(push.data() + arg.abiSlot, &n, sizeof n);

  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = vk.commands;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  RAW_VK(vkAllocateCommandBuffers(vk.device, &alloc, &cmd));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  RAW_VK(vkCreateFence(vk.device, &fenceInfo, nullptr, &vk.fence));
  const Grid g = p.grid();
  // `count` dispatches, recorded and submitted, waited for: returns the host wall time in µs.
  auto loop = [&](int count) -> Result<double> {
    auto t0 = std::chrono::steady_clock::now();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    RAW_VK(vkBeginCommandBuffer(cmd, &begin));
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    for (int i = 0; i < count; ++i) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk.pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk.pipelineLayout, 0, 1, &*set, 0, nullptr);
      if (!push.empty())
        vkCmdPushConstants(cmd, vk.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(push.size()), push.data());
      vkCmdDispatch(cmd, g.x, g.y, g.z);
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier,
                           0, nullptr, 0, nullptr);
    }
    RAW_VK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    RAW_VK(vkQueueSubmit(vk.queue, 1, &submit, vk.fence));
    RAW_VK(vkWaitForFences(vk.device, 1, &vk.fence, VK_TRUE, UINT64_MAX));
    RAW_VK(vkResetFences(vk.device, 1, &vk.fence));
    RAW_VK(vkResetCommandBuffer(cmd, 0));
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  };
  if (Result<double> warm = loop(5); !warm) return warm.status();
  Result<double> us = loop(launches);
  if (!us) return us.status();
  return RawLoop{*us / launches, "the same kernel and grid, vkCmdDispatch in one command buffer, one submission"};
}

} // namespace tessera::bench
