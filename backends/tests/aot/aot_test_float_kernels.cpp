// The AOT tests' float kernels, compiled with aot_test_kernels.cpp into one header: an f32
// scalar, and a portable kernel (compiled with both denormal modes) over f16 input.
#include "tessera/aot.hpp"

#include "aot_test_block.hpp"

namespace tl = tessera::tl;
using tessera::DType;

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
