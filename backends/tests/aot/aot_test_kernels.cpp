// A kernel file for the AOT tests: one kernel per scalar type a launch function can take (i32,
// i64, u32, f32), buffers of several element types, and a portable kernel (compiled with both
// denormal modes). aot_test.cpp launches them through the generated aot_test_kernels.hpp.
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

// out = x * s, one rounding: the same bits as the host.
auto scale = [](tl::Ptr<float> x, tl::Ptr<float> out, tl::Scalar<float> s, tl::Scalar<int32_t> n) {
  tl::Tile offs = tl::program_id(0) * kAotTestBlock + tl::arange(0, kAotTestBlock);
  tl::Tile mask = offs < n;
  tl::store(out + offs, tl::load(x + offs, mask) * s, mask);
};
TESSERA_EXPORT_KERNEL(scale, {.argNames = {"x", "out", "s", "n"}});

// out = f32(x) * s under the portable contract.
void widen_f16(tl::Ptr<tessera::f16> x, tl::Ptr<float> out, tl::Scalar<float> s, tl::Scalar<int32_t> n) {
  tl::Tile offs = tl::program_id(0) * kAotTestBlock + tl::arange(0, kAotTestBlock);
  tl::Tile mask = offs < n;
  tl::store(out + offs, tl::cast(tl::load(x + offs, mask), DType::F32) * s, mask);
}
TESSERA_EXPORT_KERNEL(widen_f16, {.argNames = {"x", "out", "s", "n"}, .numerics = tessera::Numerics::Portable});
