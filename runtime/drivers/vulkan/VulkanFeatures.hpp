// Shader features of a Vulkan device: queried once at discovery, all enabled at vkCreateDevice, and
// checked against each SPIR-V module's OpCapability list when a kernel is loaded.
#pragma once

#include "tessera/runtime/Package.hpp"
#include "vulkan/VulkanStatus.hpp"

#include <array>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::vulkan {

// VK_KHR_cooperative_matrix, defined here: the Vulkan headers of Debian 12 (1.3.239) predate it.
// Values and layouts as the Vulkan registry gives them.
inline constexpr const char *kCoopMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr VkStructureType kCoopMatrixFeaturesType = VkStructureType(1000506000);
inline constexpr VkStructureType kCoopMatrixPropertiesType = VkStructureType(1000506001);
inline constexpr uint32_t kComponentFloat16 = 0, kComponentFloat32 = 1; // VkComponentTypeKHR
inline constexpr uint32_t kScopeSubgroup = 3;                           // VkScopeKHR
// VK_KHR_shader_bfloat16 (also newer than those headers): bf16 in shaders and as a
// cooperative-matrix component type.
inline constexpr const char *kBFloat16Extension = "VK_KHR_shader_bfloat16";
inline constexpr VkStructureType kBFloat16FeaturesType = VkStructureType(1000141000);
inline constexpr uint32_t kComponentBFloat16 = 1000141000; // VkComponentTypeKHR
struct BFloat16FeaturesKHR {
  VkStructureType sType = kBFloat16FeaturesType;
  void *pNext = nullptr;
  VkBool32 shaderBFloat16Type = VK_FALSE;
  VkBool32 shaderBFloat16DotProduct = VK_FALSE;
  VkBool32 shaderBFloat16CooperativeMatrix = VK_FALSE;
};
struct CoopMatrixFeaturesKHR {
  VkStructureType sType = kCoopMatrixFeaturesType;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct CoopMatrixPropertiesKHR {
  VkStructureType sType = kCoopMatrixPropertiesType;
  void *pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0; // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0; // VkScopeKHR
};
// VK_NV_cooperative_matrix2 (also newer than Debian 12's headers): workgroup-scope matrices, whose
// staging through shared memory the driver manages, and matrix sizes in multiples of a granularity
// ("flexible dimensions"). Both are Vulkan features only: the SPIR-V is VK_KHR_cooperative_matrix's,
// with Scope Workgroup and larger sizes in OpTypeCooperativeMatrixKHR.
inline constexpr const char *kCoopMatrix2Extension = "VK_NV_cooperative_matrix2";
inline constexpr VkStructureType kCoopMatrix2FeaturesType = VkStructureType(1000593000);
inline constexpr VkStructureType kCoopMatrixFlexibleDimensionsType = VkStructureType(1000593001);
inline constexpr VkStructureType kCoopMatrix2PropertiesType = VkStructureType(1000593002);
inline constexpr uint32_t kScopeWorkgroup = 2; // VkScopeKHR
struct CoopMatrix2FeaturesNV {
  VkStructureType sType = kCoopMatrix2FeaturesType;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrixWorkgroupScope = VK_FALSE;
  VkBool32 cooperativeMatrixFlexibleDimensions = VK_FALSE;
  VkBool32 cooperativeMatrixReductions = VK_FALSE;
  VkBool32 cooperativeMatrixConversions = VK_FALSE;
  VkBool32 cooperativeMatrixPerElementOperations = VK_FALSE;
  VkBool32 cooperativeMatrixTensorAddressing = VK_FALSE;
  VkBool32 cooperativeMatrixBlockLoads = VK_FALSE;
};
struct CoopMatrix2PropertiesNV {
  VkStructureType sType = kCoopMatrix2PropertiesType;
  void *pNext = nullptr;
  uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize = 0;
  uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension = 0;
  uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory = 0;
};
/// One entry of vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV: matrix sizes
/// that are multiples of the granularities, for these types, at this scope (and, at workgroup
/// scope, this many invocations a workgroup).
struct CoopMatrixFlexibleDimensionsNV {
  VkStructureType sType = kCoopMatrixFlexibleDimensionsType;
  void *pNext = nullptr;
  uint32_t MGranularity = 0, NGranularity = 0, KGranularity = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0; // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0; // VkScopeKHR
  uint32_t workgroupInvocations = 0;
};

/// One cooperative-matrix shape as reports print it: "16x16x16 f16*f16+f32->f32", with
/// " saturating" and a scope other than the subgroup's appended (" workgroup"); component types
/// the registry numbers but this list does not name print as "type<N>".
std::string describeCoopMatrixShape(const CoopMatrixPropertiesKHR &p);
/// One flexible-dimensions entry as reports print it: "16x16x16-granular f16*f16+f32->f32
/// workgroup of 256" (the scope, and at workgroup scope the invocations, always shown).
std::string describeFlexibleDimensions(const CoopMatrixFlexibleDimensionsNV &p);

/// What one physical device supports for compute shaders, as plain flags (cheap to copy and check).
/// Float-control arrays are indexed by bit width: [0] = 16, [1] = 32, [2] = 64.
struct ShaderFeatures {
  bool float16 = false, float64 = false, int8 = false, int16 = false, int64 = false;
  bool storage8 = false, uniform8 = false, pushConstant8 = false;
  bool storage16 = false, uniform16 = false, pushConstant16 = false;
  bool int64Atomics = false, vulkanMemoryModel = false;
  /// VK_KHR_cooperative_matrix's feature, and whether the device lists the shape Tessera's code
  /// uses (16 x 16 x 16, f16 x f16 + f32 -> f32, subgroup scope) among its properties.
  bool coopMatrix = false, coopMatrixF16 = false;
  /// VK_KHR_shader_bfloat16's features (bf16 in shaders; bf16 cooperative matrices), and whether
  /// the device lists 16 x 16 x 16 bf16 x bf16 + f32 -> f32 at subgroup scope.
  bool bfloat16 = false, bfloat16CoopMatrix = false, coopMatrixBF16 = false;
  /// VK_NV_cooperative_matrix2's workgroup-scope matrices and flexible dimensions.
  bool coopMatrixWorkgroupScope = false, coopMatrixFlexibleDimensions = false;
  bool atomicFloat32Add = false, atomicFloat64Add = false, atomicFloat16Add = false;
  bool atomicFloat32MinMax = false, atomicFloat64MinMax = false, atomicFloat16MinMax = false;
  VkSubgroupFeatureFlags subgroupOps = 0; // supportedOperations, or 0 when compute is not a supported stage
  std::array<bool, 3> denormPreserve{}, denormFlushToZero{}, signedZeroInfNanPreserve{}, roundingRTE{}, roundingRTZ{};

  /// The stable names reported in BackendInfo::features (docs/runtime.md lists them), in a fixed order.
  std::vector<std::string> names() const;
};

/// The device extensions `pd` offers, by name.
std::set<std::string> deviceExtensions(VkPhysicalDevice pd);

/// Every feature struct Tessera cares about, chained under one VkPhysicalDeviceFeatures2 and filled
/// by vkGetPhysicalDeviceFeatures2: handed unchanged to vkCreateDevice it enables everything the
/// device supports. Holds pointers into itself, so it is neither copied nor moved.
class FeatureChain {
public:
  FeatureChain(VkPhysicalDevice pd, uint32_t apiVersion, const std::set<std::string> &extensions);
  FeatureChain(const FeatureChain &) = delete;
  FeatureChain &operator=(const FeatureChain &) = delete;

  VkPhysicalDeviceFeatures2 &head() { return features_; }
  /// The extensions the chained structs belong to (to enable along with them).
  const std::vector<const char *> &extensions() const { return extensions_; }
  /// Turns robustness off: kernels mask their own accesses (as on CUDA); robust access only costs speed.
  void disableRobustness();
  /// Whether the device has timeline semaphores (core in 1.2, VK_KHR_timeline_semaphore before):
  /// streams need them.
  bool timelineSemaphores() const;
  /// Whether pipelines can report the driver's statistics about their machine code
  /// (VK_KHR_pipeline_executable_properties' pipelineExecutableInfo): Kernel::statistics.
  bool pipelineStatistics() const { return hasExecutableInfo_ && executableInfo_.pipelineExecutableInfo; }
  /// Whether launches can write their buffers into the command buffer (VK_KHR_push_descriptor)
  /// instead of a descriptor set allocated and written per launch: only where
  /// TESSERA_VULKAN_PUSH_DESCRIPTORS=1 asks (measured slower through NVIDIA's driver).
  bool pushDescriptors() const { return hasPushDescriptor_; }
  /// The feature flags, plus the subgroup and float-control properties queried separately.
  /// `coopShapes`: the device's cooperative-matrix properties (empty without the extension).
  ShaderFeatures shaderFeatures(const VkPhysicalDeviceSubgroupProperties &subgroup,
                                const VkPhysicalDeviceFloatControlsProperties *floatControls,
                                const std::vector<CoopMatrixPropertiesKHR> &coopShapes = {}) const;

private:
  void link(void *next, VkBaseOutStructure &s);
  uint32_t apiVersion_;
  VkPhysicalDeviceFeatures2 features_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  // Vulkan 1.2+: the aggregate structs. 1.1: the individual structs (16-bit storage is core,
  // the rest extensions). The two forms must not be chained together at device creation.
  VkPhysicalDeviceVulkan11Features f11_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features f13_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceShaderAtomicInt64Features atomicInt64_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT atomicFloat2_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_2_FEATURES_EXT};
  bool has8BitStorage_ = false, hasFloat16Int8_ = false, hasAtomicInt64_ = false, hasMemoryModel_ = false;
  CoopMatrixFeaturesKHR coopMatrix_;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  bool hasExecutableInfo_ = false, hasPushDescriptor_ = false;
  bool hasAtomicFloat_ = false, hasAtomicFloat2_ = false, hasCoopMatrix_ = false, hasBFloat16_ = false;
  BFloat16FeaturesKHR bfloat16_;
  CoopMatrix2FeaturesNV coopMatrix2_;
  bool hasCoopMatrix2_ = false;
  std::vector<const char *> extensions_;
  void *tail_ = nullptr; // last struct in the chain
};

/// Refuses (Unsupported) a SPIR-V module that declares a capability `features` lacks, naming the
/// kernel, the capability and the Vulkan feature. Capabilities outside the known list are left to
/// the driver. `words` is a well-formed module (the entry-point walk has already checked it).
Status checkCapabilities(const KernelEntry &kernel, const std::vector<uint32_t> &words, const ShaderFeatures &features,
                         const std::string &deviceName);

/// Whether code with cooperative matrices (chip vulkan1.3+coopmat) may run on a device, and why
/// (VulkanCoopMatrixProbe.cpp): `usable` only when the device reports the feature and the
/// 16 x 16 x 16 f16 shape and the self-test computed its product exactly.
struct CoopMatrixCheck {
  bool usable = false;
  /// Whether a 16 x 16 f32 accumulator's elements sit in the invocations as mma.sync's C fragments
  /// (32 lanes, lane 4g + t holding rows g, g + 8 and columns 2t, 2t + 1, 8 + 2t, 9 + 2t, element
  /// i at row g + 8 (i / 4), column 2t + i % 2 + 8 ((i / 2) % 2), as NVIDIA's driver does), and a
  /// 16 x 16 f16 A matrix's in the same places (NVIDIA's too): code for the chip
  /// "vulkan1.3+coopmat+mma-lanes" then keeps accumulators in registers (and may build A matrices
  /// from registers the same way).
  bool mmaLanes = false;
  std::string detail; // for reports: "self-test passed (...)" or why not
  /// Whether bf16 matrices (VK_KHR_shader_bfloat16: 16 x 16 x 16 bf16 x bf16 + f32 -> f32) passed a
  /// self-test of their own too: code for a chip with kCoopBF16Suffix may then run.
  bool bf16 = false;
  /// Whether workgroup-scope matrices (VK_NV_cooperative_matrix2: 64 x 64 x 32 f16 at 128
  /// invocations, staged by the driver) passed a self-test of their own too.
  bool workgroup = false;
};

/// The self-test's result kept on disk (CoopMatrixRecord.cpp), one file per device and driver
/// (`<cache>/vulkan-coopmat/<vendor>-<device>-<driver version>-<pipelineCacheUUID>.txt`): a magic
/// line, "usable 0|1", "mma-lanes 0|1", "bf16 0|1", "workgroup 0|1", "detail ...", and the FNV-1a hash
/// of those lines. A file
/// that does not parse exactly, or whose hash differs, is ignored (the self-test runs again).
std::string formatCoopMatrixRecord(const CoopMatrixCheck &check);
std::optional<CoopMatrixCheck> parseCoopMatrixRecord(std::string_view text);
std::optional<CoopMatrixCheck> readCoopMatrixRecord(const std::string &path);
void writeCoopMatrixRecord(const std::string &path, const CoopMatrixCheck &check);

/// What the denormal probe (VulkanDenormProbe.cpp) found on one device. `preserved[w]` ([0] = 16,
/// [1] = 32, [2] = 64) is true when every probe output of that width was bit-exact with denormals
/// kept. `unmeasured` is empty when the probe ran; otherwise it says why not, and every width is false.
struct DenormMeasurement {
  std::array<bool, 3> preserved{};
  std::string unmeasured;
};

/// `words` without the `OpExecutionMode <entry> DenormPreserve W` instructions whose width W has
/// `widths[index of W]` set, and without `OpCapability DenormPreserve` when no DenormPreserve mode
/// remains after at least one was removed. Whole instructions go; every other word is kept as it
/// is (the header too: ids are untouched).
/// `words` is a well-formed module.
std::vector<uint32_t> stripMeasuredDenormPreserve(const std::vector<uint32_t> &words, std::array<bool, 3> widths);

/// The measured fallback for DenormPreserve, decided before checkCapabilities. Finds the widths the
/// module's `OpExecutionMode DenormPreserve W` instructions name that `features` does not promise
/// (shaderDenormPreserveFloatW false). None: `words` comes back unchanged and `measure` is not
/// called. Otherwise `measure` is called once; when it found every such width preserved, the
/// result is `words` with those modes stripped (stripMeasuredDenormPreserve), so the driver sees
/// only what it promises; else Unsupported, naming the first such width, the property and what
/// the probe found. A bare `OpCapability DenormPreserve` (no mode) names no width and is left to
/// checkCapabilities.
Result<std::vector<uint32_t>> acceptMeasuredDenormPreserve(const KernelEntry &kernel, std::vector<uint32_t> words,
                                                           const ShaderFeatures &features,
                                                           const std::function<DenormMeasurement()> &measure,
                                                           const std::string &deviceName);

/// Per width, where denormal preservation comes from, for reports: "promised" when the driver
/// promises all three widths; otherwise the groups present, in this order, e.g. "promised (32),
/// measured (16), flushed (64)", "measured (16, 32, 64)" or "not measured (16, 32, 64): <why>".
/// `measurement` is consulted only for widths the driver does not promise.
std::string describeDenormSupport(const std::array<bool, 3> &promised, const DenormMeasurement &measurement);

} // namespace tessera::vulkan
