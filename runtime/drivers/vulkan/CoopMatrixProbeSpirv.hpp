// The cooperative-matrix self-test's shader, as SPIR-V words. No Vulkan here: the compiler's
// tests read the same words back through MLIR's SPIR-V deserializer (the SPIRV-Tools of Debian 12
// predate SPV_KHR_cooperative_matrix and cannot check it).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::vulkan {

/// The entry point of the probe shader.
inline constexpr const char *kCoopMatrixProbeEntry = "coop_matrix_probe";

/// A SPIR-V 1.6 compute shader of one subgroup (`subgroupSize` invocations) that computes
/// D = A x B + C for 16 x 16 matrices with cooperative matrices (16 x 16 x 16, f16 x f16 + f32 ->
/// f32, subgroup scope): A row-major f16 at binding 0, B row-major f16 at binding 1, C row-major
/// f32 at binding 2, overwritten with D. It also shows where an accumulator's elements live: it
/// loads the f32 matrix X (binding 3, row-major) and writes to L (binding 4, f32) the element
/// count of one invocation at L[0] and element i of invocation `lane` at
/// L[1 + lane * (256 / subgroupSize) + i]. With `bf16`, A and B are bf16 matrices instead
/// (SPV_KHR_bfloat16: bf16 x bf16 + f32 -> f32), loaded from the same arrays of 16-bit elements
/// (their bits bf16's).
std::vector<uint32_t> coopMatrixProbeSpirv(uint32_t subgroupSize, bool bf16 = false);

/// The entry point of the operand-lanes probe shader.
inline constexpr const char *kOperandLanesProbeEntry = "operand_lanes_probe";

/// A SPIR-V 1.6 compute shader of one subgroup that shows where the elements of 16 x 16 f16 A and
/// B matrices (subgroup scope) live: it loads the f16 matrix X (binding 0, row-major, X[r][c] =
/// 16 r + c) as an A matrix and as a B matrix and writes to L (binding 1, f32), with P = 256 /
/// subgroupSize: the A matrix's element count of one invocation at L[0], its element i of
/// invocation `lane` at L[1 + lane P + i]; the B matrix's the same from L[1 + subgroupSize P].
std::vector<uint32_t> operandLanesProbeSpirv(uint32_t subgroupSize);

/// The entry point, sizes and workgroup of the workgroup-scope probe shader.
inline constexpr const char *kWorkgroupMatrixProbeEntry = "workgroup_matrix_probe";
inline constexpr uint32_t kWorkgroupProbeM = 64, kWorkgroupProbeN = 64, kWorkgroupProbeK = 32;
inline constexpr uint32_t kWorkgroupProbeInvocations = 128;

/// A SPIR-V 1.6 compute shader of one workgroup of kWorkgroupProbeInvocations invocations that
/// computes D = A x B + C with workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2:
/// Scope Workgroup, sizes in multiples of a granularity, the driver staging them itself): A
/// (M x K, f16 or with `bf16` bf16 bits) at binding 0, B (K x N, the same) at binding 1, C (M x N
/// f32) at binding 2, overwritten with D, every matrix row-major and dense.
std::vector<uint32_t> workgroupMatrixProbeSpirv(bool bf16 = false);

} // namespace tessera::vulkan
