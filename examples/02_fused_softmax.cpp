// 02_fused_softmax: row-wise softmax, one row per program, the row held in registers.
//
// You will learn reductions (max and sum of a whole tile), masks with an `other` value, and
// specialization: the tile length BLOCK is a C++ constant, the next power of two of the row
// length, so any row length works with one kernel per BLOCK. Run: 02_fused_softmax [rows] [cols].
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

static int nextPow2(int n) { int b = 1; while (b < n) b *= 2; return b; }
// Each thread holds BLOCK / (numWarps x subgroup) values; at most 64 even on 8-wide subgroups
// (lavapipe), so a row is at most 32 warps x 8 x 64 = 16384 long.
static uint32_t warpsFor(int block) { return uint32_t(std::clamp(block / 512, 1, 32)); }
constexpr int kMaxCols = 16384;
static std::string packageName(int block) { return "/softmax_b" + std::to_string(block) + ".tspkg"; }

#ifndef TESSERA_EXAMPLE_AOT
namespace tl = tessera::tl;
static tessera::Result<tessera::TracedKernel> traceSoftmax(int BLOCK) {
  auto softmax = [BLOCK](tl::Ptr<float> in, tl::Ptr<float> out, tl::Scalar<int32_t> stride, tl::Scalar<int32_t> n) {
    tl::Tile cols = tl::arange(0, BLOCK), mask = cols < n;
    tl::Tile row = tl::program_id(0) * stride;
    tl::Tile x = tl::load(in + row + cols, mask, -INFINITY);
    tl::Tile e = tl::exp(x - tl::max(x));        // masked lanes: exp(-inf) = 0
    tl::store(out + row + cols, e / tl::sum(e), mask);
  };
  return tessera::trace("softmax", softmax, {.numWarps = warpsFor(BLOCK), .argNames = {"in", "out", "stride", "n"}});
}
#endif

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "02_fused_softmax: %s: %s\n", what, s.toString().c_str());
  return 1;
}

int main(int argc, char **argv) {
  int rows = 7, cols = 1000;
  std::string packageDir = ".", writeDir;
  std::vector<int> positional;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--package-dir=", 14)) packageDir = argv[i] + 14;
    else if (!std::strncmp(argv[i], "--write-package=", 16)) writeDir = argv[i] + 16;
    else positional.push_back(std::atoi(argv[i]));
  }
  if (positional.size() > 0) rows = positional[0];
  if (positional.size() > 1) cols = positional[1];
  if (rows < 1 || cols < 1 || cols > kMaxCols) {
    std::fprintf(stderr, "02_fused_softmax: need rows >= 1 and 1 <= cols <= %d (one row per program)\n", kMaxCols);
    return 1;
  }
  int block = nextPow2(cols);

#ifndef TESSERA_EXAMPLE_AOT
  auto kernel = traceSoftmax(block);
  if (!kernel) return fail("trace", kernel.status());
  if (!writeDir.empty()) {
    std::vector<tessera::TargetDesc> targets{tessera::nvptxTarget("sm_90"), tessera::spirvTarget(8), tessera::spirvTarget(32)};
    auto all = tessera::compile(std::span(&*kernel, 1), targets);
    if (!all) return fail("compile", all.status());
    if (auto s = tessera::writePackageFile(writeDir + packageName(block), *all); !s) return fail("write", s);
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
  auto pkg = tessera::readPackageFile(packageDir + packageName(block));
#endif
  if (!pkg) return fail("compile", pkg.status());
  auto module = dev.load(*pkg);
  if (!module) return fail("load", module.status());
  auto softmax = module->kernel("softmax");
  if (!softmax) return fail("kernel", softmax.status());

  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.f, 4.f);
  size_t count = size_t(rows) * cols;
  std::vector<float> x(count), y(count, std::nanf(""));
  for (float &v : x) v = dist(rng);
  auto bx = dev.allocate(tessera::DType::F32, count), by = dev.allocate(tessera::DType::F32, count);
  if (!bx || !by) return fail("allocate", !bx ? bx.status() : by.status());
  if (auto s = bx->upload(std::span<const float>(x)); !s) return fail("upload", s);
  if (auto s = by->upload(std::span<const float>(y)); !s) return fail("upload", s);
  if (auto s = softmax->launch({uint32_t(rows)}, {*bx, *by, int32_t(cols), int32_t(cols)}); !s) return fail("launch", s);
  if (auto s = by->download(std::span<float>(y)); !s) return fail("download", s);

  // Against a double-precision softmax. exp in fast mode is the device's (libdevice, GLSL.std.450:
  // a few ULP), and the sum adds n rounding errors of 2^-24: 1e-5 relative covers both (lavapipe: 3.0e-6).
  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    const float *xr = &x[size_t(r) * cols];
    double m = *std::max_element(xr, xr + cols), s = 0;
    for (int c = 0; c < cols; ++c) s += std::exp(double(xr[c]) - m);
    for (int c = 0; c < cols; ++c) {
      double ref = std::exp(double(xr[c]) - m) / s, got = y[size_t(r) * cols + c];
      double err = std::fabs(got - ref) / std::max(ref, 1e-30);
      if (!(err <= 1e-5)) {
        std::fprintf(stderr, "  out[%d][%d] = %.9g, expected %.9g\n", r, c, got, ref);
        return 1;
      }
      worst = std::max(worst, err);
    }
  }
  std::printf("softmax %dx%d (BLOCK %d, %u threads) on %s: max relative error %.2e\n", rows, cols, block,
              softmax->artifact().blockSize[0], dev.describe().c_str(), worst);
  return 0;
}
