// The Tessera compiler API: traced kernels to PTX and SPIR-V, packaged for the runtime.
//
//   auto kernel = tessera::trace("add", add);
//   auto pkg = tessera::compile(*kernel, device->target());   // or several targets at once
//   auto module = device->load(*pkg);
#pragma once

#include "tessera/tl.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

/// A stage of the pipeline that `emit` can print.
enum class Stage : uint8_t {
  Tile,       // tile IR as traced
  TileOpt,    // tile IR after canonicalization
  GPU,        // per-thread code in gpu/scf/arith (target-specific ABI already applied)
  NVVM,       // NVPTX only: LLVM/NVVM dialect before translation
  PTX,        // NVPTX only: PTX text
  SPIRVMLIR,  // SPIR-V only: the spirv dialect module
  SPIRV,      // SPIR-V only: disassembled binary
};
std::optional<Stage> parseStage(std::string_view name); // "tile", "tile-opt", "gpu", ...
const char *toString(Stage s);

/// PTX for `chip` ("sm_90" by default) in PTX ISA `ptxVersion` (e.g. 80 for 8.0; 0 picks the
/// oldest ISA the chip supports).
TargetDesc nvptxTarget(std::string chip = "sm_90", uint32_t ptxVersion = 0);
/// SPIR-V 1.3 for Vulkan 1.1+, specialized for devices of this subgroup size. With
/// `softDenormals` (chip "vulkan1.1+soft-denormals") portable kernels keep f32 denormals in
/// software, for drivers that flush them (NVIDIA's); `Device::target()` asks for it there.
/// With `coopMatrix` (chip "vulkan1.3+coopmat"): SPIR-V 1.6 for Vulkan 1.3+, and fast-mode `dot`
/// on f16 uses cooperative matrices (VK_KHR_cooperative_matrix, 16 x 16 x 16 steps);
/// `Device::target()` asks for it where the device reports that shape and passes the self-test.
/// With `mmaLanes` too (chip "vulkan1.3+coopmat+mma-lanes", subgroup size 32): accumulators stay in
/// registers, placed as mma.sync's C fragments, which the device's self-test must have found.
/// With `bf16` too (chip "vulkan1.3+coopmat+bf16", before any "+mma-lanes"): fast-mode `dot` on
/// bf16 also runs on cooperative matrices (VK_KHR_shader_bfloat16), where the device passes a
/// bf16 self-test.
/// With `workgroup` too (chip ending "+wgmat", after the others): block matmuls run on
/// workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2), as a variant for arguments
/// that are multiples of the blocks.
TargetDesc spirvTarget(uint32_t subgroupSize, bool softDenormals = false, bool coopMatrix = false,
                       bool mmaLanes = false, bool bf16 = false, bool workgroup = false);

/// Checks a target before LLVM sees it (LLVM aborts the process on an unsupported PTX version
/// or chip); the error says which chips or versions would work. Also resolves ptxVersion 0.
Result<TargetDesc> validateTarget(const TargetDesc &target);

/// Compiles one kernel for one target.
Result<Artifact> compileArtifact(const TracedKernel &kernel, const TargetDesc &target);
/// Compiles every kernel for every target into one package.
Result<Package> compile(std::span<const TracedKernel> kernels, std::span<const TargetDesc> targets);
Result<Package> compile(const TracedKernel &kernel, const TargetDesc &target);

/// Text of one pipeline stage (for `tessera compile --emit=...` and for tests).
Result<std::string> emit(const TracedKernel &kernel, const TargetDesc &target, Stage stage);

/// Kernels from tile IR text (one Kernel per `tile.kernel` function).
Result<std::vector<TracedKernel>> parseTileIR(std::string_view text, std::string_view bufferName = "<tile-ir>");

/// Validates SPIR-V words with SPIRV-Tools for Vulkan 1.1 (1.3 for SPIR-V 1.4 and newer); the
/// error carries the validator's message. A module declaring CooperativeMatrixKHR passes
/// unchecked: the SPIRV-Tools this builds with (2023.1) predates that extension.
Status validateSpirv(std::span<const uint32_t> words);

} // namespace tessera
