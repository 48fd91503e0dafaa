// tensorMapRequest: a tensor map's fields from the launch's arguments (TensorMaps.hpp).
#include "cuda/TensorMaps.hpp"

#include <cstring>
#include <limits>

namespace tessera::cuda {

namespace {

/// The value of `v` for this launch: an i32 scalar argument, or the constant.
std::optional<int64_t> hostValue(const HostScalar &v, std::span<const detail::LaunchArg> args, std::string *why) {
  if (v.arg < 0) return v.value;
  const detail::LaunchArg &a = args[size_t(v.arg)];
  if (!a.scalar || !a.spec || a.spec->dtype != DType::I32) {
    *why = "argument " + std::to_string(v.arg) + " is not an i32 scalar";
    return std::nullopt;
  }
  int32_t x;
  std::memcpy(&x, a.scalar, sizeof x);
  return x;
}

} // namespace

std::optional<TensorMapRequest> tensorMapRequest(const TensorMapSpec &spec, std::span<const detail::LaunchArg> args,
                                                 std::span<const uint64_t> addresses, std::string *why) {
  if (spec.buffer >= args.size() || spec.buffer >= addresses.size() || !args[spec.buffer].spec ||
      args[spec.buffer].spec->kind != ArgKind::Buffer || sizeOf(args[spec.buffer].spec->dtype) != 2) {
    *why = "argument " + std::to_string(spec.buffer) + " is not a buffer of 16-bit elements";
    return std::nullopt;
  }
  for (const HostScalar *v : {&spec.rows, &spec.cols, &spec.rowStride})
    if (v->arg >= int32_t(args.size())) {
      *why = "argument " + std::to_string(v->arg) + " does not exist";
      return std::nullopt;
    }
  std::optional<int64_t> rows = hostValue(spec.rows, args, why), cols = hostValue(spec.cols, args, why),
                         stride = hostValue(spec.rowStride, args, why);
  if (!rows || !cols || !stride) return std::nullopt;
  const uint64_t address = addresses[spec.buffer];
  constexpr int64_t kElementBytes = 2;
  if (*rows < 1 || *cols < 1) {
    *why = "the matrix has no elements (" + std::to_string(*rows) + " x " + std::to_string(*cols) + ")";
    return std::nullopt;
  }
  if (*stride < *cols || (*stride * kElementBytes) % 16 != 0) {
    *why = "the row stride of " + std::to_string(*stride) + " elements is not a multiple of 16 bytes at least a row (" +
           std::to_string(*cols) + " elements) long";
    return std::nullopt;
  }
  if (address % 16 != 0) {
    *why = "the matrix's address is not 16-byte aligned";
    return std::nullopt;
  }
  // The kernel's element offsets are 32-bit: past them its loads read what the wrapped offsets
  // say, which the other artifact does as written.
  if ((*rows - 1) * *stride + *cols - 1 > std::numeric_limits<int32_t>::max()) {
    *why = "the matrix's last element lies past the kernel's 32-bit element offsets";
    return std::nullopt;
  }
  if (spec.rank != 2 && spec.rank != 3) {
    *why = "a tensor map of rank " + std::to_string(spec.rank);
    return std::nullopt;
  }
  TensorMapRequest r;
  r.rank = spec.rank;
  if (spec.rank == 3) { // as many slices as the kernel's 32-bit offsets reach
    const int64_t slice = *rows * *stride;
    r.slices = uint64_t(std::numeric_limits<int32_t>::max() / slice);
    r.sliceBytes = uint64_t(slice * kElementBytes);
  }
  r.address = address;
  r.cols = uint64_t(*cols);
  r.rows = uint64_t(*rows);
  r.strideBytes = uint64_t(*stride * kElementBytes);
  r.boxCols = spec.boxCols;
  r.boxRows = spec.boxRows;
  r.swizzleBytes = spec.swizzleBytes;
  return r;
}

} // namespace tessera::cuda
