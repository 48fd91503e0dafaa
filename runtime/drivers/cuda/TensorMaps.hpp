// The tensor maps of an artifact that reads its operands through bulk tensor copies (Hopper's
// TMA; Artifact::tensorMaps): what cuTensorMapEncodeTiled gets for one launch, or why the launch
// runs the kernel's other artifact instead.
#pragma once

#include "Driver.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace tessera::cuda {

/// A map over 16-bit elements: the matrix at `address`, `cols` x `rows` elements with rows
/// `strideBytes` apart, copied in boxes of `boxCols` x `boxRows`, swizzled over `swizzleBytes`;
/// with rank 3, `slices` such matrices `sliceBytes` apart (boxes of one slice).
struct TensorMapRequest {
  uint64_t address = 0;
  uint64_t cols = 0, rows = 0, strideBytes = 0;
  uint32_t boxCols = 0, boxRows = 0, swizzleBytes = 0;
  uint32_t rank = 2;
  uint64_t slices = 1, sliceBytes = 0;
  bool operator==(const TensorMapRequest &) const = default;
};

/// The map `spec` describes for a launch with `args`, `addresses` holding each buffer argument's
/// device address (0 for scalars). Nothing, with the reason in `why`, where a tensor map cannot
/// describe what the kernel's loads read: the matrix's address not 16-byte aligned, its row
/// stride not a multiple of 16 bytes or shorter than a row, no rows or columns, or offsets past
/// the kernel's 32-bit element offsets (which the other artifact computes as the kernel says).
std::optional<TensorMapRequest> tensorMapRequest(const TensorMapSpec &spec, std::span<const detail::LaunchArg> args,
                                                 std::span<const uint64_t> addresses, std::string *why);

} // namespace tessera::cuda
