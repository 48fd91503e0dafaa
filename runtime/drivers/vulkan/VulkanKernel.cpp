// VulkanKernel: SPIR-V checks (structure, measured DenormPreserve, capabilities), the compute pipeline (set 0 binding = abiSlot, push constants), dispatch.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <cstring>

namespace tessera::vulkan {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationSpecId = 1;

Status corrupt(const KernelEntry &k, const std::string &what) {
  return Status(StatusCode::Corrupt, "kernel '" + k.name + "' SPIR-V artifact: " + what);
}

// Compute entry point names declared in the module; also proves the instruction stream is well formed.
Result<std::vector<std::string>> computeEntryPoints(const KernelEntry &k, const std::vector<uint32_t> &words) {
  std::vector<std::string> names;
  size_t i = 5;
  while (i < words.size()) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size())
      return corrupt(k, "malformed instruction at word " + std::to_string(i));
    if (opcode == kOpEntryPoint && count >= 4 && words[i + 1] == kExecutionModelGLCompute) {
      const char *text = reinterpret_cast<const char *>(&words[i + 3]);
      names.emplace_back(text, strnlen(text, (count - 3) * 4));
    }
    i += count;
  }
  return names;
}

// The SpecIds the module decorates its specialization constants with, sorted, each once.
std::vector<uint32_t> specIds(const std::vector<uint32_t> &words) {
  std::vector<uint32_t> ids;
  for (size_t i = 5; i < words.size() && (words[i] >> 16) != 0; i += words[i] >> 16)
    if ((words[i] & 0xffff) == kOpDecorate && (words[i] >> 16) == 4 && i + 3 < words.size() &&
        words[i + 2] == kDecorationSpecId)
      ids.push_back(words[i + 3]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

} // namespace

Result<std::unique_ptr<detail::DriverKernel>> VulkanDevice::loadKernel(const KernelEntry &kernel, const Artifact &artifact) {
  auto k = std::make_unique<VulkanKernel>(*this, kernel, artifact);
  if (Status s = k->init(); !s) return s;
  return std::unique_ptr<detail::DriverKernel>(std::move(k));
}

Status VulkanKernel::init() {
  const KernelEntry &k = kernel_;
  const Artifact &a = artifact_;
  const VkPhysicalDeviceLimits &limits = device_.limits_;
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();

  // The package must describe what the code expects, and the device must be able to run it.
  if (a.code.empty() || a.code.size() % 4 != 0)
    return corrupt(k, "code is " + std::to_string(a.code.size()) + " bytes, not a whole number of 32-bit words");
  std::vector<uint32_t> words(a.code.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = uint32_t(a.code[4 * i]) | uint32_t(a.code[4 * i + 1]) << 8 | uint32_t(a.code[4 * i + 2]) << 16 |
               uint32_t(a.code[4 * i + 3]) << 24;
  if (words.size() < 5 || words[0] != kSpirvMagic) return corrupt(k, "code does not start with the SPIR-V magic number");
  Result<std::vector<std::string>> entries = computeEntryPoints(k, words);
  if (!entries) return entries.status();
  if (std::find(entries->begin(), entries->end(), a.entryPoint) == entries->end()) {
    std::string have;
    for (const std::string &e : *entries) have += (have.empty() ? "'" : ", '") + e + "'";
    return corrupt(k, "no GLCompute entry point '" + a.entryPoint + "' (it has " + (have.empty() ? "none" : have) + ")");
  }
  // A DenormPreserve width the driver does not promise may be accepted because the denormal probe
  // measured it kept: its execution modes are stripped, so the driver sees only what it promises.
  Result<std::vector<uint32_t>> accepted = acceptMeasuredDenormPreserve(
      k, std::move(words), device_.features(), [this] { return device_.denormMeasurement(); }, device_.name());
  if (!accepted) return accepted.status();
  words = std::move(*accepted);
  // Before the driver sees the module: a missing feature is named here instead of failing obscurely.
  if (Status s = checkCapabilities(k, words, device_.features(), device_.name()); !s) return s;
  if (a.pushConstantBytes % 4 != 0)
    return corrupt(k, "pushConstantBytes " + std::to_string(a.pushConstantBytes) + " is not a multiple of 4");
  if (a.pushConstantBytes > limits.maxPushConstantsSize)
    return Status(StatusCode::Unsupported, "kernel '" + k.name + "' needs " + std::to_string(a.pushConstantBytes) +
                                               " bytes of push constants; " + device_.name() + " allows " +
                                               std::to_string(limits.maxPushConstantsSize));
  if (a.sharedMemBytes > limits.maxComputeSharedMemorySize)
    return Status(StatusCode::Unsupported, "kernel '" + k.name + "' uses " + std::to_string(a.sharedMemBytes) +
                                               " bytes of shared memory; " + device_.name() + " allows " +
                                               std::to_string(limits.maxComputeSharedMemorySize));
  uint64_t threads = uint64_t(a.blockSize[0]) * a.blockSize[1] * a.blockSize[2];
  if (threads > limits.maxComputeWorkGroupInvocations)
    return Status(StatusCode::Unsupported, "kernel '" + k.name + "' needs " + std::to_string(threads) +
                                               " threads per program; " + device_.name() + " allows " +
                                               std::to_string(limits.maxComputeWorkGroupInvocations));

  // Specialization constants stand for arguments (SpecId = argument index): 32-bit scalars.
  specArgs_ = specIds(words);
  for (uint32_t id : specArgs_)
    if (id >= k.args.size() || k.args[id].kind != ArgKind::Scalar || sizeOf(k.args[id].dtype) != 4)
      return corrupt(k, "specialization constant SpecId " + std::to_string(id) + " names " +
                            (id >= k.args.size() ? "no argument (the kernel has " + std::to_string(k.args.size()) + ")"
                                                 : "argument '" + k.args[id].name + "', which is not a 32-bit scalar"));

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const ArgSpec &arg : k.args) {
    if (arg.kind == ArgKind::Scalar) {
      // Push constants follow the scalar layout rules: each scalar at a multiple of its size.
      const size_t bytes = sizeOf(arg.dtype);
      if (bytes == 0 || arg.abiSlot % bytes != 0)
        return corrupt(k, "scalar '" + arg.name + "' (" + std::string(toString(arg.dtype)) + ") at push-constant offset " +
                              std::to_string(arg.abiSlot) + " is not " + std::to_string(bytes) +
                              "-byte aligned (each scalar sits at a multiple of its own size)");
      if (uint64_t(arg.abiSlot) + bytes > a.pushConstantBytes)
        return corrupt(k, "scalar '" + arg.name + "' at push-constant offset " + std::to_string(arg.abiSlot) +
                              " does not fit in the " + std::to_string(a.pushConstantBytes) + "-byte push-constant block");
      continue;
    }
    for (const VkDescriptorSetLayoutBinding &b : bindings)
      if (b.binding == arg.abiSlot) return corrupt(k, "two buffers share binding " + std::to_string(arg.abiSlot));
    VkDescriptorSetLayoutBinding b{};
    b.binding = arg.abiSlot;
    b.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(b);
  }
  bufferCount_ = static_cast<uint32_t>(bindings.size());

  std::string what = "loading kernel '" + k.name + "' on " + device_.name();
  VkShaderModuleCreateInfo shader{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  shader.codeSize = words.size() * 4;
  shader.pCode = words.data();
  TESSERA_VK_TRY_CTX(vk.vkCreateShaderModule(dev, &shader, nullptr, &shader_), what);

  VkDescriptorSetLayoutCreateInfo layout{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layout.bindingCount = bufferCount_;
  layout.pBindings = bindings.data();
  // 32: the least maxPushDescriptors a device with the extension reports.
  pushed_ = device_.pushDescriptors() && bufferCount_ > 0 && bufferCount_ <= 32;
  if (pushed_) layout.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  TESSERA_VK_TRY_CTX(vk.vkCreateDescriptorSetLayout(dev, &layout, nullptr, &setLayout_), what);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, a.pushConstantBytes};
  VkPipelineLayoutCreateInfo pipelineLayout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pipelineLayout.setLayoutCount = 1;
  pipelineLayout.pSetLayouts = &setLayout_;
  pipelineLayout.pushConstantRangeCount = a.pushConstantBytes > 0 ? 1 : 0;
  pipelineLayout.pPushConstantRanges = &range;
  TESSERA_VK_TRY_CTX(vk.vkCreatePipelineLayout(dev, &pipelineLayout, nullptr, &pipelineLayout_), what);

  // With specialization constants the pipelines wait for the launches' values.
  if (specArgs_.empty()) {
    Result<VkPipeline> p = createPipeline({});
    if (!p) return p.status();
    pipeline_ = *p;
  }
  return Status::success();
}

Result<VkPipeline> VulkanKernel::createPipeline(const std::vector<uint32_t> &specValues) {
  const VolkDeviceTable &vk = device_.vk();
  std::vector<VkSpecializationMapEntry> entries;
  for (size_t i = 0; i < specArgs_.size(); ++i)
    entries.push_back({specArgs_[i], uint32_t(i * 4), 4});
  VkSpecializationInfo specialization{uint32_t(entries.size()), entries.data(), specValues.size() * 4, specValues.data()};
  VkComputePipelineCreateInfo pipeline{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = shader_;
  pipeline.stage.pName = artifact_.entryPoint.c_str();
  pipeline.stage.pSpecializationInfo = entries.empty() ? nullptr : &specialization;
  pipeline.layout = pipelineLayout_;
  if (device_.pipelineStatistics()) pipeline.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline out = VK_NULL_HANDLE;
  std::string what = "loading kernel '" + kernel_.name + "' on " + device_.name();
  if (!specValues.empty()) {
    what += " for";
    for (size_t i = 0; i < specArgs_.size(); ++i)
      what += (i ? ", " : " ") + kernel_.args[specArgs_[i]].name + " = " + std::to_string(int32_t(specValues[i]));
  }
  TESSERA_VK_TRY_CTX(vk.vkCreateComputePipelines(device_.handle(), device_.pipelineCache(), 1, &pipeline, nullptr, &out), what);
  return out;
}

std::vector<KernelStatistic> VulkanKernel::statistics() {
  std::vector<KernelStatistic> out;
  const VolkDeviceTable &vk = device_.vk();
  if (!device_.pipelineStatistics() || !vk.vkGetPipelineExecutablePropertiesKHR ||
      !vk.vkGetPipelineExecutableStatisticsKHR)
    return out;
  VkDevice dev = device_.handle();
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  {
    std::lock_guard<std::mutex> lock(specializedMutex_); // (launches set it where specialized)
    info.pipeline = pipeline_;
  }
  if (!info.pipeline) return out; // specialized, and never launched
  uint32_t executables = 0;
  if (vk.vkGetPipelineExecutablePropertiesKHR(dev, &info, &executables, nullptr) != VK_SUCCESS) return out;
  std::vector<VkPipelineExecutablePropertiesKHR> props(executables, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (vk.vkGetPipelineExecutablePropertiesKHR(dev, &info, &executables, props.data()) != VK_SUCCESS) return out;
  for (uint32_t e = 0; e < executables; ++e) {
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline_;
    which.executableIndex = e;
    uint32_t n = 0;
    if (vk.vkGetPipelineExecutableStatisticsKHR(dev, &which, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (vk.vkGetPipelineExecutableStatisticsKHR(dev, &which, &n, stats.data()) != VK_SUCCESS) continue;
    // A pipeline of one compute shader has one executable; were there several, their names
    // tell the figures apart.
    std::string prefix = executables > 1 ? std::string(props[e].name) + ": " : std::string();
    for (uint32_t i = 0; i < n; ++i) {
      const VkPipelineExecutableStatisticKHR &s = stats[i];
      double value = 0;
      switch (s.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: value = s.value.b32 ? 1 : 0; break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: value = double(s.value.i64); break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: value = double(s.value.u64); break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: value = s.value.f64; break;
      default: continue;
      }
      out.push_back({prefix + s.name, s.description, value});
    }
  }
  return out;
}

VulkanKernel::~VulkanKernel() {
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();
  // Launches of this pipeline may still be queued on any stream.
  if (pipeline_) (void)device_.synchronize();
  if (pipeline_ && specArgs_.empty()) vk.vkDestroyPipeline(dev, pipeline_, nullptr);
  for (auto &[values, pipeline] : specialized_) vk.vkDestroyPipeline(dev, pipeline, nullptr);
  if (pipelineLayout_) vk.vkDestroyPipelineLayout(dev, pipelineLayout_, nullptr);
  if (setLayout_) vk.vkDestroyDescriptorSetLayout(dev, setLayout_, nullptr);
  if (shader_) vk.vkDestroyShaderModule(dev, shader_, nullptr);
}

Status VulkanKernel::launch(detail::DriverStream &stream, Grid grid, std::span<const detail::LaunchArg> args) {
  const VolkDeviceTable &vk = device_.vk();
  VulkanStreamCore &core = static_cast<VulkanStream &>(stream).core();
  // Buffers go to set 0 at binding = abiSlot; scalars into the push-constant block at byte abiSlot.
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(bufferCount_);
  std::vector<VkWriteDescriptorSet> writes;
  writes.reserve(bufferCount_);
  std::vector<uint8_t> push(artifact_.pushConstantBytes, 0);
  // Without specialization constants pipeline_ is fixed at load; with them, launches on other
  // threads may be adding to the map (and setting pipeline_): read under the lock.
  VkPipeline pipeline = specArgs_.empty() ? pipeline_ : VK_NULL_HANDLE;
  if (!specArgs_.empty()) {
    std::vector<uint32_t> values(specArgs_.size());
    for (size_t i = 0; i < specArgs_.size(); ++i)
      std::memcpy(&values[i], args[specArgs_[i]].scalar, 4);
    std::lock_guard<std::mutex> lock(specializedMutex_);
    auto it = specialized_.find(values);
    if (it == specialized_.end()) {
      Result<VkPipeline> p = createPipeline(values);
      if (!p) return p.status();
      it = specialized_.emplace(values, *p).first;
      if (!pipeline_) pipeline_ = *p; // what statistics() describes
    }
    pipeline = it->second;
  }
  for (const detail::LaunchArg &arg : args) {
    if (arg.buffer) {
      infos.push_back({static_cast<const VulkanBuffer *>(arg.buffer)->handle(), 0, VK_WHOLE_SIZE});
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstBinding = arg.spec->abiSlot;
      w.descriptorCount = 1;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w.pBufferInfo = &infos.back();
      writes.push_back(w);
    } else {
      std::memcpy(push.data() + arg.spec->abiSlot, arg.scalar, sizeOf(arg.spec->dtype));
    }
  }
  return core.submit(
      [&](VulkanFrame &frame, VkCommandBuffer cmd) {
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        if (pushed_) {
          // Written into the command buffer: no set to allocate or update.
          vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout_, 0, uint32_t(writes.size()),
                                       writes.data());
        } else if (bufferCount_ > 0) {
          // A set of this submission's own: earlier launches may still be reading theirs.
          Result<VkDescriptorSet> set = core.descriptorSet(frame, setLayout_, bufferCount_);
          if (!set) return set.status();
          for (VkWriteDescriptorSet &w : writes) w.dstSet = *set;
          vk.vkUpdateDescriptorSets(device_.handle(), uint32_t(writes.size()), writes.data(), 0, nullptr);
          vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout_, 0, 1, &*set, 0, nullptr);
        }
        if (!push.empty())
          vk.vkCmdPushConstants(cmd, pipelineLayout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(push.size()), push.data());
        vk.vkCmdDispatch(cmd, grid.x, grid.y, grid.z);
        return Status::success();
      },
      launchWhat_, true);
}

} // namespace tessera::vulkan
