// The AOT tests' integer kernels (the float ones are in aot_test_float_kernels.cpp: two kernel
// files make one package and one header): i32, i64 and u32 scalars, buffers of several element
// types. aot_test.cpp launches them through the generated aot_test_kernels.hpp.
#include "tessera/aot.hpp"

#include "aot_test_block.hpp"

namespace tl = tessera::tl;
using tessera::DType;

// out = i64(x * a) + b
void affine_i64(tl::Ptr<int32_t> x, tl::Ptr<int64_t> out, tl::Scalar<int32_t> a, tl::Scalar<int64_t> b,
                tl::Scalar<int32_t> n) {
  tl::Tile offs = tl::program_id(0) * kAotTestBlock + tl::arange(0, kAotTestBlock);
  tl::Tile mask = offs < n;
  tl::store(out + offs, tl::cast(tl::load(x + offs, mask) * a, DType::I64) + b, mask);
}
TESSERA_EXPORT_KERNEL(affine_i64, {.argNames = {"x", "out", "a", "b", "n"}});

// lo = u8((x ^ m) & 255)
void low_byte(tl::Ptr<uint32_t> x, tl::Ptr<uint8_t> lo, tl::Scalar<uint32_t> m, tl::Scalar<int32_t> n) {
  tl::Tile offs = tl::program_id(0) * kAotTestBlock + tl::arange(0, kAotTestBlock);
  tl::Tile mask = offs < n;
  tl::store(lo + offs, tl::cast((tl::load(x + offs, mask) ^ m) & 255, DType::U8), mask);
}
TESSERA_EXPORT_KERNEL(low_byte, {.numWarps = 2, .argNames = {"x", "lo", "m", "n"}});

// out = i + value, with argument names the generated code must not be confused by: `std` and
// `tessera` would hide the namespaces, `grid` the launch function's own first parameter.
void iota_u32(tl::Ptr<uint32_t> out, tl::Scalar<uint32_t> value, tl::Scalar<int32_t> n) {
  tl::Tile offs = tl::program_id(0) * kAotTestBlock + tl::arange(0, kAotTestBlock);
  tl::store(out + offs, tl::cast(offs, DType::U32) + value, offs < n);
}
TESSERA_EXPORT_KERNEL(iota_u32, {.argNames = {"std", "tessera", "grid"}});
