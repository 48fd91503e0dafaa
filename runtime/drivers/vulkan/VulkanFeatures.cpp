// Shader features: the feature-struct chain (query + enable), their stable names, and the
// OpCapability check that refuses a kernel before the driver would fail on it obscurely.
#include "vulkan/VulkanFeatures.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace tessera::vulkan {

namespace {

constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kCapabilityDenormPreserve = 4464;
constexpr uint32_t kExecutionModeDenormPreserve = 4459;
constexpr const char *kWidthBits[3] = {"16", "32", "64"};
constexpr const char *kWidthSuffix[3] = {"f16", "f32", "f64"};

std::optional<size_t> widthIndex(uint32_t bits) {
  switch (bits) {
  case 16: return 0;
  case 32: return 1;
  case 64: return 2;
  default: return std::nullopt;
  }
}

// A capability that one device feature flag decides.
struct FlagCapability {
  uint32_t capability;
  const char *name;
  const char *feature; // how the Vulkan spec names the feature, and where it lives
  bool ShaderFeatures::*flag;
};

constexpr FlagCapability kFlagCapabilities[] = {
    {9, "Float16", "shaderFloat16 (VkPhysicalDeviceShaderFloat16Int8Features / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::float16},
    {10, "Float64", "shaderFloat64 (VkPhysicalDeviceFeatures)", &ShaderFeatures::float64},
    {11, "Int64", "shaderInt64 (VkPhysicalDeviceFeatures)", &ShaderFeatures::int64},
    {12, "Int64Atomics",
     "shaderBufferInt64Atomics (VkPhysicalDeviceShaderAtomicInt64Features / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::int64Atomics},
    {22, "Int16", "shaderInt16 (VkPhysicalDeviceFeatures)", &ShaderFeatures::int16},
    {39, "Int8", "shaderInt8 (VkPhysicalDeviceShaderFloat16Int8Features / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::int8},
    {4433, "StorageBuffer16BitAccess",
     "storageBuffer16BitAccess (VkPhysicalDevice16BitStorageFeatures / VkPhysicalDeviceVulkan11Features)",
     &ShaderFeatures::storage16},
    {4434, "UniformAndStorageBuffer16BitAccess",
     "uniformAndStorageBuffer16BitAccess (VkPhysicalDevice16BitStorageFeatures / VkPhysicalDeviceVulkan11Features)",
     &ShaderFeatures::uniform16},
    {4435, "StoragePushConstant16",
     "storagePushConstant16 (VkPhysicalDevice16BitStorageFeatures / VkPhysicalDeviceVulkan11Features)",
     &ShaderFeatures::pushConstant16},
    {4448, "StorageBuffer8BitAccess",
     "storageBuffer8BitAccess (VkPhysicalDevice8BitStorageFeatures / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::storage8},
    {4449, "UniformAndStorageBuffer8BitAccess",
     "uniformAndStorageBuffer8BitAccess (VkPhysicalDevice8BitStorageFeatures / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::uniform8},
    {4450, "StoragePushConstant8",
     "storagePushConstant8 (VkPhysicalDevice8BitStorageFeatures / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::pushConstant8},
    {6022, "CooperativeMatrixKHR", "cooperativeMatrix (VK_KHR_cooperative_matrix)", &ShaderFeatures::coopMatrix},
    {5116, "BFloat16TypeKHR", "shaderBFloat16Type (VK_KHR_shader_bfloat16)", &ShaderFeatures::bfloat16},
    {5118, "BFloat16CooperativeMatrixKHR", "shaderBFloat16CooperativeMatrix (VK_KHR_shader_bfloat16)",
     &ShaderFeatures::bfloat16CoopMatrix},
    {5345, "VulkanMemoryModel",
     "vulkanMemoryModel (VkPhysicalDeviceVulkanMemoryModelFeatures / VkPhysicalDeviceVulkan12Features)",
     &ShaderFeatures::vulkanMemoryModel},
    // Tessera's atomics act on buffers, so the buffer variant of each feature decides.
    {6033, "AtomicFloat32AddEXT", "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)",
     &ShaderFeatures::atomicFloat32Add},
    {6034, "AtomicFloat64AddEXT", "shaderBufferFloat64AtomicAdd (VK_EXT_shader_atomic_float)",
     &ShaderFeatures::atomicFloat64Add},
    {6095, "AtomicFloat16AddEXT", "shaderBufferFloat16AtomicAdd (VK_EXT_shader_atomic_float2)",
     &ShaderFeatures::atomicFloat16Add},
    {5612, "AtomicFloat32MinMaxEXT", "shaderBufferFloat32AtomicMinMax (VK_EXT_shader_atomic_float2)",
     &ShaderFeatures::atomicFloat32MinMax},
    {5613, "AtomicFloat64MinMaxEXT", "shaderBufferFloat64AtomicMinMax (VK_EXT_shader_atomic_float2)",
     &ShaderFeatures::atomicFloat64MinMax},
    {5616, "AtomicFloat16MinMaxEXT", "shaderBufferFloat16AtomicMinMax (VK_EXT_shader_atomic_float2)",
     &ShaderFeatures::atomicFloat16MinMax},
};

// GroupNonUniform* capabilities: one VkSubgroupFeatureFlagBits each, in the compute stage.
struct SubgroupCapability {
  uint32_t capability;
  const char *name;
  VkSubgroupFeatureFlagBits bit;
  const char *bitName;
  const char *featureName; // BackendInfo::features
};

constexpr SubgroupCapability kSubgroupCapabilities[] = {
    {61, "GroupNonUniform", VK_SUBGROUP_FEATURE_BASIC_BIT, "VK_SUBGROUP_FEATURE_BASIC_BIT", "subgroup.basic"},
    {62, "GroupNonUniformVote", VK_SUBGROUP_FEATURE_VOTE_BIT, "VK_SUBGROUP_FEATURE_VOTE_BIT", "subgroup.vote"},
    {63, "GroupNonUniformArithmetic", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT",
     "subgroup.arithmetic"},
    {64, "GroupNonUniformBallot", VK_SUBGROUP_FEATURE_BALLOT_BIT, "VK_SUBGROUP_FEATURE_BALLOT_BIT", "subgroup.ballot"},
    {65, "GroupNonUniformShuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "VK_SUBGROUP_FEATURE_SHUFFLE_BIT",
     "subgroup.shuffle"},
    {66, "GroupNonUniformShuffleRelative", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT,
     "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT", "subgroup.shuffle_relative"},
    {67, "GroupNonUniformClustered", VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "VK_SUBGROUP_FEATURE_CLUSTERED_BIT",
     "subgroup.clustered"},
    {68, "GroupNonUniformQuad", VK_SUBGROUP_FEATURE_QUAD_BIT, "VK_SUBGROUP_FEATURE_QUAD_BIT", "subgroup.quad"},
};

// Float controls: the capability, the execution mode that names its bit width, and the
// VkPhysicalDeviceFloatControlsProperties member prefix (+ "Float16/32/64").
struct FloatControlCapability {
  uint32_t capability;
  uint32_t executionMode;
  const char *name;
  const char *property;
  std::array<bool, 3> ShaderFeatures::*flags;
  const char *featureName; // + ".f16" / ".f32" / ".f64"
};

constexpr FloatControlCapability kFloatControlCapabilities[] = {
    {4464, 4459, "DenormPreserve", "shaderDenormPreserveFloat", &ShaderFeatures::denormPreserve, "denorm.preserve"},
    {4465, 4460, "DenormFlushToZero", "shaderDenormFlushToZeroFloat", &ShaderFeatures::denormFlushToZero,
     "denorm.flush"},
    {4466, 4461, "SignedZeroInfNanPreserve", "shaderSignedZeroInfNanPreserveFloat",
     &ShaderFeatures::signedZeroInfNanPreserve, "signed_zero_inf_nan.preserve"},
    {4467, 4462, "RoundingModeRTE", "shaderRoundingModeRTEFloat", &ShaderFeatures::roundingRTE, "rounding.rte"},
    {4468, 4463, "RoundingModeRTZ", "shaderRoundingModeRTZFloat", &ShaderFeatures::roundingRTZ, "rounding.rtz"},
};

Status refuse(const KernelEntry &k, const std::string &capability, const std::string &deviceName,
              const std::string &why) {
  return Status(StatusCode::Unsupported, "kernel '" + k.name + "' needs SPIR-V capability " + capability + ", which " +
                                             deviceName + " via vulkan does not support: " + why +
                                             " (compile the kernel without it, or run it on a device that has it)");
}

// Calls `visit(index, count, opcode)` for each instruction after the header; stops at a
// malformed one (cannot happen after the entry-point walk; never loop forever or read past the end).
template <class F> void forEachInstruction(const std::vector<uint32_t> &words, F visit) {
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) return;
    visit(i, count, opcode);
    i += count;
  }
}

bool isDenormPreserveMode(const std::vector<uint32_t> &words, size_t i, uint32_t count, uint32_t opcode) {
  return opcode == kOpExecutionMode && count >= 4 && words[i + 2] == kExecutionModeDenormPreserve;
}

// The widths that the module's OpExecutionMode DenormPreserve instructions name.
std::array<bool, 3> denormPreserveWidths(const std::vector<uint32_t> &words) {
  std::array<bool, 3> widths{};
  forEachInstruction(words, [&](size_t i, uint32_t count, uint32_t opcode) {
    if (isDenormPreserveMode(words, i, count, opcode))
      if (auto w = widthIndex(words[i + 3])) widths[*w] = true;
  });
  return widths;
}

// "16, 32" for the widths set in `which`.
std::string widthList(const std::array<bool, 3> &which) {
  std::string out;
  for (size_t w = 0; w < 3; ++w)
    if (which[w]) out += (out.empty() ? "" : ", ") + std::string(kWidthBits[w]);
  return out;
}

} // namespace

std::vector<std::string> ShaderFeatures::names() const {
  std::vector<std::string> out;
  auto add = [&](bool on, const char *name) {
    if (on) out.emplace_back(name);
  };
  add(float16, "float16");
  add(float64, "float64");
  add(int8, "int8");
  add(int16, "int16");
  add(int64, "int64");
  add(storage8, "storage8");
  add(uniform8, "uniform8");
  add(pushConstant8, "push_constant8");
  add(storage16, "storage16");
  add(uniform16, "uniform16");
  add(pushConstant16, "push_constant16");
  add(int64Atomics, "atomic.int64");
  add(atomicFloat16Add, "atomic.float16.add");
  add(atomicFloat32Add, "atomic.float32.add");
  add(atomicFloat64Add, "atomic.float64.add");
  add(atomicFloat16MinMax, "atomic.float16.minmax");
  add(atomicFloat32MinMax, "atomic.float32.minmax");
  add(atomicFloat64MinMax, "atomic.float64.minmax");
  add(vulkanMemoryModel, "vulkan_memory_model");
  add(coopMatrix, "cooperative_matrix");
  add(coopMatrix && coopMatrixF16, "cooperative_matrix.f16.16x16x16");
  add(bfloat16, "bfloat16");
  add(coopMatrix && bfloat16CoopMatrix && coopMatrixBF16, "cooperative_matrix.bf16.16x16x16");
  add(coopMatrix && coopMatrixWorkgroupScope, "cooperative_matrix2.workgroup_scope");
  add(coopMatrix && coopMatrixFlexibleDimensions, "cooperative_matrix2.flexible_dimensions");
  for (const SubgroupCapability &c : kSubgroupCapabilities) add(subgroupOps & c.bit, c.featureName);
  for (const FloatControlCapability &c : kFloatControlCapabilities)
    for (size_t w = 0; w < 3; ++w) add((this->*c.flags)[w], (std::string(c.featureName) + "." + kWidthSuffix[w]).c_str());
  return out;
}

std::string describeCoopMatrixShape(const CoopMatrixPropertiesKHR &p) {
  auto type = [](uint32_t t) -> std::string {
    static constexpr const char *kNames[] = {"f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
    if (t < std::size(kNames)) return kNames[t];
    if (t == kComponentBFloat16) return "bf16";
    if (t == 1000491002) return "e4m3"; // VK_NV_cooperative_matrix2's 8-bit floats
    if (t == 1000491003) return "e5m2";
    return "type<" + std::to_string(t) + ">";
  };
  std::string s = std::to_string(p.MSize) + "x" + std::to_string(p.NSize) + "x" + std::to_string(p.KSize) + " " +
                  type(p.AType) + "*" + type(p.BType) + "+" + type(p.CType) + "->" + type(p.ResultType);
  if (p.saturatingAccumulation) s += " saturating";
  if (p.scope != kScopeSubgroup)
    s += p.scope == 1 ? " device" : p.scope == 2 ? " workgroup" : p.scope == 5 ? " queue-family" : " scope<" + std::to_string(p.scope) + ">";
  return s;
}

std::string describeFlexibleDimensions(const CoopMatrixFlexibleDimensionsNV &p) {
  CoopMatrixPropertiesKHR shape;
  shape.MSize = p.MGranularity;
  shape.NSize = p.NGranularity;
  shape.KSize = p.KGranularity;
  shape.AType = p.AType;
  shape.BType = p.BType;
  shape.CType = p.CType;
  shape.ResultType = p.ResultType;
  shape.saturatingAccumulation = p.saturatingAccumulation;
  shape.scope = kScopeSubgroup; // the scope is printed below, always
  std::string s = describeCoopMatrixShape(shape);
  s.insert(s.find(' '), "-granular");
  if (p.scope == kScopeWorkgroup) return s + " workgroup of " + std::to_string(p.workgroupInvocations);
  return s + (p.scope == kScopeSubgroup ? " subgroup" : " scope<" + std::to_string(p.scope) + ">");
}

std::set<std::string> deviceExtensions(VkPhysicalDevice pd) {
  uint32_t n = 0;
  std::set<std::string> names;
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr) != VK_SUCCESS) return names;
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data()) != VK_SUCCESS) return names;
  for (const VkExtensionProperties &e : exts) names.insert(e.extensionName);
  return names;
}

void FeatureChain::link(void *next, VkBaseOutStructure &s) {
  static_cast<VkBaseOutStructure *>(next)->pNext = &s;
  tail_ = &s;
}

FeatureChain::FeatureChain(VkPhysicalDevice pd, uint32_t apiVersion, const std::set<std::string> &extensions)
    : apiVersion_(apiVersion) {
  tail_ = &features_;
  auto chain = [&](auto &s) { link(tail_, reinterpret_cast<VkBaseOutStructure &>(s)); };
  auto offer = [&](const char *name) {
    if (!extensions.count(name)) return false;
    extensions_.push_back(name);
    return true;
  };
  if (apiVersion >= VK_API_VERSION_1_2) {
    chain(f11_);
    chain(f12_);
    if (apiVersion >= VK_API_VERSION_1_3) chain(f13_);
  } else {
    chain(storage16_); // core in 1.1
    if ((has8BitStorage_ = offer(VK_KHR_8BIT_STORAGE_EXTENSION_NAME))) chain(storage8_);
    if ((hasFloat16Int8_ = offer(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))) chain(float16Int8_);
    if ((hasAtomicInt64_ = offer(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME))) chain(atomicInt64_);
    if ((hasMemoryModel_ = offer(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME))) chain(memoryModel_);
    offer(VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME); // properties only; core from 1.2
    if (offer(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) chain(timeline_);
  }
  if ((hasAtomicFloat_ = offer(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME))) chain(atomicFloat_);
  // float2 depends on float: offered only together.
  if (hasAtomicFloat_ && (hasAtomicFloat2_ = offer(VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME))) chain(atomicFloat2_);
  // Cooperative matrices' SPIR-V is 1.6: only Vulkan 1.3 devices can take it.
  if (apiVersion >= VK_API_VERSION_1_3 && (hasCoopMatrix_ = offer(kCoopMatrixExtension))) chain(coopMatrix_);
  if (hasCoopMatrix_ && (hasCoopMatrix2_ = offer(kCoopMatrix2Extension))) chain(coopMatrix2_);
  if ((hasExecutableInfo_ = offer(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME))) chain(executableInfo_);
  if ((hasBFloat16_ = offer(kBFloat16Extension))) chain(bfloat16_);
  // Opt-in: on an H100 through NVIDIA's driver launches took 10-12 us with them against 6.5-7.8
  // with a set per launch (run 48, docs/bench.md).
  const char *push = std::getenv("TESSERA_VULKAN_PUSH_DESCRIPTORS");
  if (push && std::string_view(push) == "1")
    hasPushDescriptor_ = offer(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME); // (no features: properties only)
  vkGetPhysicalDeviceFeatures2(pd, &features_);
}

bool FeatureChain::timelineSemaphores() const {
  return apiVersion_ >= VK_API_VERSION_1_2 ? f12_.timelineSemaphore : timeline_.timelineSemaphore;
}

void FeatureChain::disableRobustness() {
  features_.features.robustBufferAccess = VK_FALSE;
  if (apiVersion_ >= VK_API_VERSION_1_3) f13_.robustImageAccess = VK_FALSE;
}

ShaderFeatures FeatureChain::shaderFeatures(const VkPhysicalDeviceSubgroupProperties &subgroup,
                                            const VkPhysicalDeviceFloatControlsProperties *fc,
                                            const std::vector<CoopMatrixPropertiesKHR> &coopShapes) const {
  ShaderFeatures f;
  f.coopMatrix = hasCoopMatrix_ && coopMatrix_.cooperativeMatrix;
  auto listed = [&](uint32_t in) {
    return std::any_of(coopShapes.begin(), coopShapes.end(), [&](const CoopMatrixPropertiesKHR &p) {
      return p.MSize == 16 && p.NSize == 16 && p.KSize == 16 && p.AType == in && p.BType == in &&
             p.CType == kComponentFloat32 && p.ResultType == kComponentFloat32 && !p.saturatingAccumulation &&
             p.scope == kScopeSubgroup;
    });
  };
  f.coopMatrixF16 = listed(kComponentFloat16);
  f.coopMatrixBF16 = listed(kComponentBFloat16);
  f.bfloat16 = hasBFloat16_ && bfloat16_.shaderBFloat16Type;
  f.bfloat16CoopMatrix = hasBFloat16_ && bfloat16_.shaderBFloat16CooperativeMatrix;
  f.coopMatrixWorkgroupScope = hasCoopMatrix2_ && coopMatrix2_.cooperativeMatrixWorkgroupScope;
  f.coopMatrixFlexibleDimensions = hasCoopMatrix2_ && coopMatrix2_.cooperativeMatrixFlexibleDimensions;
  const VkPhysicalDeviceFeatures &core = features_.features;
  f.float64 = core.shaderFloat64;
  f.int16 = core.shaderInt16;
  f.int64 = core.shaderInt64;
  if (apiVersion_ >= VK_API_VERSION_1_2) {
    f.storage16 = f11_.storageBuffer16BitAccess;
    f.uniform16 = f11_.uniformAndStorageBuffer16BitAccess;
    f.pushConstant16 = f11_.storagePushConstant16;
    f.storage8 = f12_.storageBuffer8BitAccess;
    f.uniform8 = f12_.uniformAndStorageBuffer8BitAccess;
    f.pushConstant8 = f12_.storagePushConstant8;
    f.float16 = f12_.shaderFloat16;
    f.int8 = f12_.shaderInt8;
    f.int64Atomics = f12_.shaderBufferInt64Atomics;
    f.vulkanMemoryModel = f12_.vulkanMemoryModel;
  } else { // structs of absent extensions stay zero: false
    f.storage16 = storage16_.storageBuffer16BitAccess;
    f.uniform16 = storage16_.uniformAndStorageBuffer16BitAccess;
    f.pushConstant16 = storage16_.storagePushConstant16;
    f.storage8 = storage8_.storageBuffer8BitAccess;
    f.uniform8 = storage8_.uniformAndStorageBuffer8BitAccess;
    f.pushConstant8 = storage8_.storagePushConstant8;
    f.float16 = float16Int8_.shaderFloat16;
    f.int8 = float16Int8_.shaderInt8;
    f.int64Atomics = atomicInt64_.shaderBufferInt64Atomics;
    f.vulkanMemoryModel = memoryModel_.vulkanMemoryModel;
  }
  f.atomicFloat32Add = atomicFloat_.shaderBufferFloat32AtomicAdd;
  f.atomicFloat64Add = atomicFloat_.shaderBufferFloat64AtomicAdd;
  f.atomicFloat16Add = atomicFloat2_.shaderBufferFloat16AtomicAdd;
  f.atomicFloat32MinMax = atomicFloat2_.shaderBufferFloat32AtomicMinMax;
  f.atomicFloat64MinMax = atomicFloat2_.shaderBufferFloat64AtomicMinMax;
  f.atomicFloat16MinMax = atomicFloat2_.shaderBufferFloat16AtomicMinMax;
  f.subgroupOps = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? subgroup.supportedOperations : 0;
  if (fc) {
    f.denormPreserve = {bool(fc->shaderDenormPreserveFloat16), bool(fc->shaderDenormPreserveFloat32),
                        bool(fc->shaderDenormPreserveFloat64)};
    f.denormFlushToZero = {bool(fc->shaderDenormFlushToZeroFloat16), bool(fc->shaderDenormFlushToZeroFloat32),
                           bool(fc->shaderDenormFlushToZeroFloat64)};
    f.signedZeroInfNanPreserve = {bool(fc->shaderSignedZeroInfNanPreserveFloat16),
                                  bool(fc->shaderSignedZeroInfNanPreserveFloat32),
                                  bool(fc->shaderSignedZeroInfNanPreserveFloat64)};
    f.roundingRTE = {bool(fc->shaderRoundingModeRTEFloat16), bool(fc->shaderRoundingModeRTEFloat32),
                     bool(fc->shaderRoundingModeRTEFloat64)};
    f.roundingRTZ = {bool(fc->shaderRoundingModeRTZFloat16), bool(fc->shaderRoundingModeRTZFloat32),
                     bool(fc->shaderRoundingModeRTZFloat64)};
  }
  return f;
}

Status checkCapabilities(const KernelEntry &k, const std::vector<uint32_t> &words, const ShaderFeatures &features,
                         const std::string &deviceName) {
  // First pass: the capabilities, and which float widths each float-control execution mode names.
  std::vector<uint32_t> capabilities;
  std::array<std::array<bool, 3>, std::size(kFloatControlCapabilities)> widths{};
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0) break; // cannot happen after the entry-point walk; never loop forever
    if (opcode == kOpCapability && count >= 2) capabilities.push_back(words[i + 1]);
    if (opcode == kOpExecutionMode && count >= 4)
      for (size_t c = 0; c < std::size(kFloatControlCapabilities); ++c)
        if (words[i + 2] == kFloatControlCapabilities[c].executionMode)
          if (auto w = widthIndex(words[i + 3])) widths[c][*w] = true;
  }

  for (uint32_t cap : capabilities) {
    for (const FlagCapability &c : kFlagCapabilities)
      if (c.capability == cap && !(features.*c.flag))
        return refuse(k, c.name, deviceName, std::string(c.feature) + " is not supported");
    for (const SubgroupCapability &c : kSubgroupCapabilities)
      if (c.capability == cap && !(features.subgroupOps & c.bit))
        return refuse(k, c.name, deviceName,
                      std::string("VkPhysicalDeviceSubgroupProperties::supportedOperations lacks ") + c.bitName +
                          " in the compute stage (subgroupSupportedStages / supportedStages)");
    for (size_t c = 0; c < std::size(kFloatControlCapabilities); ++c) {
      const FloatControlCapability &fc = kFloatControlCapabilities[c];
      if (fc.capability != cap) continue;
      std::array<bool, 3> need = widths[c];
      // The width comes only from OpExecutionMode; a bare capability (no such mode) is checked
      // as 32-bit, the width every Tessera float kernel has.
      bool bare = need == std::array<bool, 3>{};
      if (bare) need[1] = true;
      for (size_t w = 0; w < 3; ++w) {
        if (!need[w] || (features.*fc.flags)[w]) continue;
        std::string bits = w == 0 ? "16" : w == 1 ? "32" : "64";
        std::string what = std::string(fc.name) + " (" + bits + "-bit floats" +
                           (bare ? ", assumed: no execution mode names the width" : "") + ")";
        return refuse(k, what, deviceName,
                      std::string("VkPhysicalDeviceFloatControlsProperties::") + fc.property + bits + " is false");
      }
    }
  }
  return Status::success();
}

std::vector<uint32_t> stripMeasuredDenormPreserve(const std::vector<uint32_t> &words, std::array<bool, 3> widths) {
  auto stripped = [&](size_t i, uint32_t count, uint32_t opcode) {
    if (!isDenormPreserveMode(words, i, count, opcode)) return false;
    auto w = widthIndex(words[i + 3]);
    return w && widths[*w];
  };
  // The capability goes with its last mode; a module that keeps one (or had none) keeps it.
  bool modeRemains = false, modeStripped = false;
  forEachInstruction(words, [&](size_t i, uint32_t count, uint32_t opcode) {
    if (!isDenormPreserveMode(words, i, count, opcode)) return;
    (stripped(i, count, opcode) ? modeStripped : modeRemains) = true;
  });
  const bool stripCapability = modeStripped && !modeRemains;
  std::vector<uint32_t> out(words.begin(), words.begin() + std::min<size_t>(5, words.size()));
  out.reserve(words.size());
  size_t end = out.size();
  forEachInstruction(words, [&](size_t i, uint32_t count, uint32_t opcode) {
    end = i + count;
    if (stripped(i, count, opcode)) return;
    if (stripCapability && opcode == kOpCapability && count == 2 && words[i + 1] == kCapabilityDenormPreserve) return;
    out.insert(out.end(), words.begin() + i, words.begin() + i + count);
  });
  out.insert(out.end(), words.begin() + end, words.end()); // a malformed tail, if any, as it was
  return out;
}

Result<std::vector<uint32_t>> acceptMeasuredDenormPreserve(const KernelEntry &k, std::vector<uint32_t> words,
                                                           const ShaderFeatures &features,
                                                           const std::function<DenormMeasurement()> &measure,
                                                           const std::string &deviceName) {
  std::array<bool, 3> unpromised = denormPreserveWidths(words);
  for (size_t w = 0; w < 3; ++w) unpromised[w] = unpromised[w] && !features.denormPreserve[w];
  if (unpromised == std::array<bool, 3>{}) return words;
  const DenormMeasurement m = measure();
  for (size_t w = 0; w < 3; ++w) {
    if (!unpromised[w] || m.preserved[w]) continue;
    std::string bits = kWidthBits[w];
    std::string found = m.unmeasured.empty() ? "a probe found " + bits + "-bit denormals flushed"
                                             : "the denormal probe could not measure it (" + m.unmeasured + ")";
    Status refused = refuse(k, "DenormPreserve (" + bits + "-bit floats)", deviceName,
                            "VkPhysicalDeviceFloatControlsProperties::shaderDenormPreserveFloat" + bits + " is false, and " +
                                found);
    if (w != 1) return refused;
    return Status(refused.code(), refused.message() + "; a portable kernel compiled for the device's own target (chip "
                                                      "vulkan1.1" + std::string(kSoftDenormalsSuffix) +
                                      ", which Device::target() gives here; tessera compile --denormals=software) "
                                      "keeps f32 denormals in software and runs");
  }
  return stripMeasuredDenormPreserve(words, unpromised);
}

std::string describeDenormSupport(const std::array<bool, 3> &promised, const DenormMeasurement &m) {
  if (promised == std::array<bool, 3>{true, true, true}) return "promised";
  std::array<bool, 3> measured{}, flushed{}, unmeasured{};
  for (size_t w = 0; w < 3; ++w) {
    if (promised[w]) continue;
    if (m.preserved[w]) measured[w] = true;
    else if (m.unmeasured.empty()) flushed[w] = true;
    else unmeasured[w] = true;
  }
  std::string out;
  auto group = [&](const char *what, const std::array<bool, 3> &which) {
    if (which != std::array<bool, 3>{}) out += (out.empty() ? "" : ", ") + std::string(what) + " (" + widthList(which) + ")";
  };
  group("promised", promised);
  group("measured", measured);
  group("flushed", flushed);
  group("not measured", unmeasured);
  if (!m.unmeasured.empty() && unmeasured != std::array<bool, 3>{}) out += ": " + m.unmeasured;
  return out;
}

} // namespace tessera::vulkan
