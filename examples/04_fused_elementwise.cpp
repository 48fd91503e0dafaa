// 04_fused_elementwise: bias + GELU in one pass over a bf16 matrix, with 2-D tiles.
//
// You will learn 2-D tiles (offsets rows[:, None] * stride + cols[None, :] written with
// tl::expand_dims), masks on both dimensions, a 2-D grid, broadcasting a per-column bias over
// rows, and a math function (erf): y = gelu(x + bias), gelu(v) = v/2 * (1 + erf(v / sqrt(2))).
// Run: 04_fused_elementwise [rows] [cols].
#include "tessera/runtime/Runtime.hpp"
#ifndef TESSERA_EXAMPLE_AOT
#include "tessera/tessera.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using tessera::bf16;
constexpr int BM = 16, BN = 64; // one program covers a 16 x 64 block

#ifndef TESSERA_EXAMPLE_AOT
namespace tl = tessera::tl;
static tessera::Result<tessera::TracedKernel> traceBiasGelu() {
  auto biasGelu = [](tl::Ptr<bf16> x, tl::Ptr<bf16> bias, tl::Ptr<bf16> y, tl::Scalar<int32_t> m, tl::Scalar<int32_t> n) {
    tl::Tile rows = tl::program_id(0) * BM + tl::arange(0, BM), cols = tl::program_id(1) * BN + tl::arange(0, BN);
    tl::Tile r = tl::expand_dims(rows, 1), c = tl::expand_dims(cols, 0); // [BM, 1] and [1, BN]
    tl::Tile mask = (r < m) & (c < n);                                   // [BM, BN]
    tl::Tile offs = r * n + c;
    tl::Tile v = tl::cast(tl::load(x + offs, mask), tessera::DType::F32) +
                 tl::cast(tl::load(bias + cols, cols < n), tessera::DType::F32); // bias broadcasts over rows
    tl::Tile g = v * 0.5f * (1.0f + tl::erf(v * 0.70710678f));
    tl::store(y + offs, tl::cast(g, tessera::DType::BF16), mask);
  };
  return tessera::trace("bias_gelu", biasGelu, {.numWarps = 4, .argNames = {"x", "bias", "y", "m", "n"}});
}
#endif

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "04_fused_elementwise: %s: %s\n", what, s.toString().c_str());
  return 1;
}

int main(int argc, char **argv) {
  std::string packageDir = ".", writeDir;
  std::vector<int> pos;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--package-dir=", 14)) packageDir = argv[i] + 14;
    else if (!std::strncmp(argv[i], "--write-package=", 16)) writeDir = argv[i] + 16;
    else pos.push_back(std::atoi(argv[i]));
  }
  int rows = pos.size() > 0 ? pos[0] : 100, cols = pos.size() > 1 ? pos[1] : 300;
#ifndef TESSERA_EXAMPLE_AOT
  auto kernel = traceBiasGelu();
  if (!kernel) return fail("trace", kernel.status());
  if (!writeDir.empty()) {
    std::vector<tessera::TargetDesc> targets{tessera::nvptxTarget("sm_90"), tessera::spirvTarget(8), tessera::spirvTarget(32)};
    auto all = tessera::compile(std::span(&*kernel, 1), targets);
    if (!all) return fail("compile", all.status());
    if (auto s = tessera::writePackageFile(writeDir + "/bias_gelu.tspkg", *all); !s) return fail("write", s);
  }
#endif
  auto rt = tessera::Runtime::create();
  if (!rt) return fail("runtime", rt.status());
  auto device = (*rt)->openDefault();
  if (!device) return fail("device", device.status());
  tessera::Device &dev = **device;
#ifndef TESSERA_EXAMPLE_AOT
  auto pkg = tessera::compile(*kernel, dev.target());
#else
  auto pkg = tessera::readPackageFile(packageDir + "/bias_gelu.tspkg");
#endif
  if (!pkg) return fail("compile", pkg.status());
  auto module = dev.load(*pkg);
  if (!module) return fail("load", module.status());
  auto k = module->kernel("bias_gelu");
  if (!k) return fail("kernel", k.status());

  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.f, 2.f);
  size_t count = size_t(rows) * cols;
  std::vector<bf16> x(count), bias(cols), y(count, bf16::fromBits(0xffff));
  for (bf16 &v : x) v = bf16::fromFloat(dist(rng));
  for (bf16 &v : bias) v = bf16::fromFloat(dist(rng));
  auto bx = dev.allocate(tessera::DType::BF16, count), bb = dev.allocate(tessera::DType::BF16, cols),
       by = dev.allocate(tessera::DType::BF16, count);
  if (!bx || !bb || !by) return fail("allocate", !bx ? bx.status() : !bb ? bb.status() : by.status());
  for (auto [buf, host] : {std::pair{&*bx, &x}, {&*bb, &bias}, {&*by, &y}})
    if (auto s = buf->upload(std::span<const bf16>(*host)); !s) return fail("upload", s);
  tessera::Grid grid{uint32_t((rows + BM - 1) / BM), uint32_t((cols + BN - 1) / BN)};
  if (auto s = k->launch(grid, {*bx, *bb, *by, int32_t(rows), int32_t(cols)}); !s) return fail("launch", s);
  if (auto s = by->download(std::span<bf16>(y)); !s) return fail("download", s);

  // bf16 keeps 8 significant bits: the result is within one rounding (half a bf16 ULP) of the
  // f32 value, whose own error (erf's polynomial or libdevice) is far smaller; allow 1 ULP
  // (lavapipe: 0.55).
  double worst = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      double v = double(x[size_t(r) * cols + c].toFloat()) + bias[c].toFloat();
      double ref = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), got = y[size_t(r) * cols + c].toFloat();
      double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ref), 1e-30)) - 7);
      double err = std::fabs(got - ref) / ulp;
      if (!(err <= 1.0 || std::fabs(got - ref) < 1e-6)) {
        std::fprintf(stderr, "  y[%d][%d] = %.6g, expected %.6g (v = %.6g)\n", r, c, got, ref, v);
        return 1;
      }
      worst = std::max(worst, std::fabs(got - ref) < 1e-6 ? 0.0 : err);
    }
  std::printf("bias_gelu %dx%d bf16, %ux%u programs of %u threads on %s: max error %.2f bf16 ULP\n", rows, cols,
              grid.x, grid.y, k->artifact().blockSize[0], dev.describe().c_str(), worst);
  return 0;
}
