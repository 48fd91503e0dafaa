// Kernel package v2 (.tspkg): the versioned, checksummed file that carries compiled kernels
// from the compiler to the runtime. Byte layout: docs/package-format.md.
#pragma once

#include "tessera/runtime/DType.hpp"
#include "tessera/runtime/Status.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tessera {

/// Newest package format this build reads and the one it writes.
inline constexpr uint32_t kPackageFormatVersion = 4;

enum class ArgKind : uint8_t { Buffer = 1, Scalar = 2 };

/// One kernel argument as the kernel was traced: `Ptr<float> x` is {"x", Buffer, F32}.
/// `abiSlot` is where the argument travels on Vulkan: the descriptor binding (set 0) for a
/// buffer, the byte offset in the push-constant block for a scalar. CUDA passes the arguments
/// as kernel parameters in declaration order (a buffer as its device address).
struct ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::Buffer;
  DType dtype = DType::F32;
  uint32_t abiSlot = 0;
  bool operator==(const ArgSpec &) const = default;
};

enum class TargetKind : uint8_t { PTX = 1, SPIRV = 2 };

/// The suffix of a SPIR-V chip whose portable kernels keep f32 denormals in software.
inline constexpr const char *kSoftDenormalsSuffix = "+soft-denormals";
/// Whether a SPIR-V chip ends in kSoftDenormalsSuffix.
bool hasSoftDenormals(const std::string &chip);
/// The part of a SPIR-V chip that asks for Vulkan cooperative matrices (VK_KHR_cooperative_matrix,
/// SPIR-V 1.6): "vulkan1.3+coopmat", before any kSoftDenormalsSuffix. Fast-mode `dot` on f16 then
/// runs on the device's matrix units; the runtime picks such code only on a device that reports
/// the shapes and passes its self-test.
inline constexpr const char *kCoopMatrixSuffix = "+coopmat";
/// Whether a SPIR-V chip asks for cooperative matrices (holds kCoopMatrixSuffix).
bool hasCoopMatrix(const std::string &chip);
/// After kCoopMatrixSuffix: the code also assumes that a 16 x 16 f32 accumulator's elements sit in
/// the 32 invocations of a subgroup as mma.sync's C fragments, and keeps accumulators in registers
/// ("vulkan1.3+coopmat+mma-lanes"). The runtime picks it only where its self-test found that layout.
inline constexpr const char *kMmaLanesSuffix = "+mma-lanes";
bool hasMmaLanes(const std::string &chip);
/// After kCoopMatrixSuffix (before kMmaLanesSuffix): fast-mode `dot` on bf16 also runs on
/// cooperative matrices (VK_KHR_shader_bfloat16, SPV_KHR_bfloat16): "vulkan1.3+coopmat+bf16". The
/// runtime picks such code only where bf16 matrices pass a self-test of their own.
inline constexpr const char *kCoopBF16Suffix = "+bf16";
bool hasCoopBF16(const std::string &chip);
/// After kMmaLanesSuffix (or kCoopBF16Suffix, or kCoopMatrixSuffix): block matmuls run on
/// workgroup-scope cooperative matrices that the driver stages itself (VK_NV_cooperative_matrix2):
/// "vulkan1.3+coopmat+mma-lanes+wgmat". Such code is a variant for arguments with the divisors it
/// names (Artifact::divisors); the runtime picks it only where workgroup-scope matrices passed their
/// self-test.
inline constexpr const char *kWorkgroupMatrixSuffix = "+wgmat";
bool hasWorkgroupMatrices(const std::string &chip);
const char *toString(TargetKind t);

/// What a compiled artifact was built for. For PTX `chip` is "sm_90" and `ptxVersion` is
/// e.g. 80 for PTX ISA 8.0; for SPIR-V `chip` is "vulkan1.1" (the SPIR-V environment), or
/// "vulkan1.1+soft-denormals" for devices that flush f32 denormals (portable kernels then keep
/// them in software), or "vulkan1.3+coopmat" (with or without that suffix) for code that uses
/// cooperative matrices, and the subgroup size is the one the code was specialized for.
struct TargetDesc {
  TargetKind kind = TargetKind::SPIRV;
  std::string chip;
  uint32_t ptxVersion = 0;
  uint32_t subgroupSize = 0;
  bool operator==(const TargetDesc &) const = default;
};

/// One target's compiled form of a kernel plus what a launch needs to know.
/// A value the runtime knows at launch: kernel argument `arg` (a 32-bit integer scalar) or, with
/// `arg` < 0, the constant `value`.
struct HostScalar {
  int32_t arg = -1;
  int64_t value = 0;
  bool operator==(const HostScalar &) const = default;
};

/// A CUDA tensor map (the descriptor of Hopper's bulk tensor copies, TMA) that the runtime builds
/// at each launch and passes after the kernel's own parameters, 128 bytes each, in order: the
/// row-major matrix of 16-bit elements at buffer argument `buffer`, `rows` x `cols` elements with
/// `rowStride` elements from one row to the next, copied in boxes of `boxRows` x `boxCols`
/// (elements outside the matrix read as zeros), each box row swizzled in shared memory over
/// `swizzleBytes` (0, 32, 64 or 128) as the warpgroup matrix units read it. With `rank` 3 the
/// buffer is a stack of such matrices, rows x rowStride elements apart (attention's heads), as
/// many as 32-bit element offsets reach; a copy names the matrix as its third coordinate.
struct TensorMapSpec {
  uint32_t buffer = 0;
  HostScalar rows, cols, rowStride;
  uint32_t boxRows = 0, boxCols = 0;
  uint32_t swizzleBytes = 0;
  uint32_t rank = 2;
  bool operator==(const TensorMapSpec &) const = default;
};

/// What a specialized artifact assumes of its divisibleArgs: multiples of 16, so that a row of a
/// 16-bit matrix starts 32-byte aligned and a mask `cols < n` is one bit per run of 16 elements.
inline constexpr int64_t kSpecializedDivisor = 16;

struct Artifact {
  TargetDesc target;
  std::string entryPoint;                  // symbol in the PTX / OpEntryPoint name in SPIR-V
  std::array<uint32_t, 3> blockSize{1, 1, 1}; // threads per program (workgroup size)
  uint32_t sharedMemBytes = 0;             // static shared (workgroup) memory the code uses
  uint32_t pushConstantBytes = 0;          // Vulkan: size of the push-constant block
  std::vector<uint8_t> code;               // PTX text (no trailing NUL) or SPIR-V words (LE)
  /// PTX: tensor maps the launch passes after the arguments. An artifact with them is the
  /// bulk-tensor-copy form of another artifact of the same target in the kernel, which the
  /// runtime launches instead where the maps can be built for the launch's arguments.
  std::vector<TensorMapSpec> tensorMaps;
  /// Argument specialization (format 3): the integer scalar arguments, by index, that this code
  /// assumes are multiples of kSpecializedDivisor. An artifact with them is a variant of the plain
  /// artifact of the same target (selection never picks it itself); the runtime launches it
  /// instead where the launch's arguments satisfy the assumption.
  std::vector<uint32_t> divisibleArgs;
  /// (Format 4.) The divisor each divisibleArgs entry must be a multiple of, in the same order;
  /// empty: kSpecializedDivisor for each. Code on workgroup-scope matrices (kWorkgroupMatrixSuffix)
  /// assumes the matrix sizes are multiples of its blocks.
  std::vector<uint32_t> divisors;
  /// The divisor divisibleArgs[i] must be a multiple of.
  uint32_t divisorOf(size_t i) const { return i < divisors.size() ? divisors[i] : uint32_t(kSpecializedDivisor); }
  bool operator==(const Artifact &) const = default;
};

struct KernelEntry {
  std::string name;
  std::vector<ArgSpec> args;
  uint32_t numWarps = 4;
  std::string tileIR; // the kernel's tile-dialect module, printed
  std::vector<Artifact> artifacts;
  bool operator==(const KernelEntry &) const = default;

  /// The artifact for `target`-kind code that a device with this subgroup size can run, or null
  /// (plain code: never a specialized variant).
  const Artifact *find(TargetKind kind, uint32_t subgroupSize) const;
};

struct Package {
  std::vector<KernelEntry> kernels;
  bool operator==(const Package &) const = default;
  const KernelEntry *find(std::string_view name) const;
};

std::vector<uint8_t> serializePackage(const Package &pkg);
/// Checks magic, version, length and checksum before reading anything; every failure is a
/// Status (Corrupt, or Unsupported for a newer format version), never a crash.
Result<Package> parsePackage(std::span<const uint8_t> bytes);
Result<Package> readPackageFile(const std::string &path);
Status writePackageFile(const std::string &path, const Package &pkg);
/// 64-bit FNV-1a of `bytes`: the package checksum, also used to name and check cache files.
uint64_t fnv1a64(std::span<const uint8_t> bytes);
/// Writes `bytes` to `path` through a temporary file beside it (unique to this process and
/// call) and a rename: a reader, or another process writing the same path, never sees half a
/// file. The folder must exist.
Status writeFileAtomically(const std::string &path, std::span<const uint8_t> bytes);

} // namespace tessera
