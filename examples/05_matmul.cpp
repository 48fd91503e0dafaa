// 05_matmul: C = act(A @ B + bias), f16, bf16 or f32 in and out, f32 accumulation.
//
// You will learn a tiled matrix multiply: each program computes a BM x BN block of C, walking K in
// steps of BK with tl::for_range (a loop on the device that carries the accumulator), loading
// masked tiles of A and B at the ragged edges, and multiplying them with tl::dot. Programs are
// numbered in groups of GROUP_M block-rows so that neighbours share tiles of B in the L2 cache.
// The epilogue (bias, activation, rounding to f16/bf16) runs on the accumulator in registers.
// Run: 05_matmul [M] [N] [K] [--dtype=f16|bf16|f32] [--act=none|relu|gelu] [--portable] [--repeat=R]
//                [--config=BMxBNxBK/WARPS] (block shape and warps per program; default 128x256x64/8 for
//                f16/bf16 through CUDA on sm_90, 128x128x32/8 on other tensor cores, 128x256x32/16 for
//                f16 through Vulkan on cooperative matrices in mma.sync's lanes (128x256x64/8 where
//                workgroup-scope matrices run), for f32 128x256x32/8 through CUDA on sm_90 (64x128x16/4
//                on other GPUs) and 64x256x16/8 through Vulkan on a GPU, else 64x64x32/4)
//                [--stages=2] (loads of A and B for the next k step issued before this step's dot)
//                [--b-transposed] (B stored N x K, as a linear layer's weights: C = A @ B^T)
//                [--tune] (pick the block shape by timing a few on this device, cached: tessera/autotune.hpp)
//                [--write-package=DIR] [--ptx-chips=sm_90,sm_90a] (write the kernel's package for these PTX
//                chips and SPIR-V; an sm_90 device takes sm_90a's code: the warpgroup matrix units).
// --repeat=R also times R more launches on the device, after about 200 ms of warm-up launches
// (examples/timing.hpp), and prints the median TFLOP/s, the fastest and the slowest; back to back,
// or with --flush-l2 each after a 128 MiB device copy, as triton.testing.do_bench times. Past 2^30
// multiply-adds only 64 random rows of C are checked against float64 (the host is slow). --stats
// prints what the driver reports about the kernel's machine code (registers, spills).
#include "tessera/runtime/Runtime.hpp"
#include "timing.hpp"
#ifndef TESSERA_EXAMPLE_AOT
#include "tessera/autotune.hpp"
#include "tessera/interpreter.hpp"
#include "tessera/tessera.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using tessera::bf16;
using tessera::DType;
using tessera::f16;

// The element type's conversions (f16 and bf16 have them as members; f32 is the host's float).
template <class T> T fromFloat(float v) { return T::fromFloat(v); }
template <> float fromFloat<float>(float v) { return v; }
template <class T> float toFloat(T v) { return v.toFloat(); }
template <> float toFloat<float>(float v) { return v; }
template <class T> uint32_t bitsOf(T v) { return v.bits; }
template <> uint32_t bitsOf<float>(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
template <class T> T poison() { return T::fromBits(0xffff); } // a NaN
template <> float poison<float>() { return std::nanf(""); }
template <class T> const char *dtypeName() { return std::is_same_v<T, f16> ? "f16" : std::is_same_v<T, bf16> ? "bf16" : "f32"; }
/// Significant bits of the output type, and its least normal exponent.
template <class T> int digitsOf() { return std::is_same_v<T, f16> ? 11 : std::is_same_v<T, bf16> ? 8 : 24; }
template <class T> int minExponentOf() { return std::is_same_v<T, f16> ? -14 : -126; }

/// The block shape and warps of a program (--config=BMxBNxBK/W; the default: defaultConfig).
struct Config {
  int BM = 64, BN = 64, BK = 32, warps = 4, stages = 1;
  bool bTransposed = false; // B stored N x K (--b-transposed), as a linear layer's weights
  std::string name() const {
    return std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "w" + std::to_string(warps) +
           (stages > 1 ? "s" + std::to_string(stages) : "") + (bTransposed ? "bt" : "");
  }
};
constexpr int GROUP_M = 8;
enum class Act { None, Relu, Gelu };
static const char *actName(Act a) { return a == Act::Relu ? "relu" : a == Act::Gelu ? "gelu" : "none"; }
static std::string packageName(const std::string &dtype, Act act, bool portable, const Config &c) {
  return "/matmul_" + dtype + "_" + actName(act) + (portable ? "_portable" : "_fast") + "_" + c.name() + ".tspkg";
}

#ifndef TESSERA_EXAMPLE_AOT
namespace tl = tessera::tl;
template <class T> tessera::Result<tessera::TracedKernel> traceMatmul(Act act, bool portable, Config cfg) {
  const int BM = cfg.BM, BN = cfg.BN, BK = cfg.BK;
  const bool bT = cfg.bTransposed;
  auto matmul = [act, BM, BN, BK, bT](tl::Ptr<T> a, tl::Ptr<T> b, tl::Ptr<float> bias, tl::Ptr<T> c, tl::Scalar<int32_t> M,
                      tl::Scalar<int32_t> N, tl::Scalar<int32_t> K) {
    // Grouped ordering: GROUP_M block-rows are finished before the next group starts.
    tl::Tile pid = tl::program_id(0);
    tl::Tile blocksM = (M + (BM - 1)) / BM, blocksN = (N + (BN - 1)) / BN;
    tl::Tile perGroup = blocksN * GROUP_M, firstM = pid / perGroup * GROUP_M;
    tl::Tile groupRows = tl::minimum(blocksM - firstM, GROUP_M);
    tl::Tile pm = firstM + pid % perGroup % groupRows, pn = pid % perGroup / groupRows;

    tl::Tile rows = tl::expand_dims(pm * BM + tl::arange(0, BM), 1);  // BM x 1
    tl::Tile cols = tl::expand_dims(pn * BN + tl::arange(0, BN), 0);  // 1 x BN
    tl::Tile bRows = tl::expand_dims(pn * BN + tl::arange(0, BN), 1); // BN x 1: B's rows with --b-transposed
    tl::Tile acc = tl::for_range(0, K, BK, tl::zeros({BM, BN}, DType::F32), [&](const tl::Tile &k, const tl::Tile &acc) {
      tl::Tile ka = tl::expand_dims(k + tl::arange(0, BK), 0), kb = tl::expand_dims(k + tl::arange(0, BK), 1);
      tl::Tile x = tl::load(a + rows * K + ka, (rows < M) & (ka < K), 0);  // BM x BK, zeros past the edges
      if (bT)  // B is N x K: a BN x BK tile of it, multiplied as it lies (tl::trans)
        return tl::dot(x, tl::trans(tl::load(b + bRows * K + ka, (bRows < N) & (ka < K), 0)), acc);
      tl::Tile y = tl::load(b + kb * N + cols, (kb < K) & (cols < N), 0);  // BK x BN
      return tl::dot(x, y, acc);
    });
    tl::Tile v = acc + tl::load(bias + cols, cols < N, 0);
    if (act == Act::Relu) v = tl::maximum(v, 0.0f);
    if (act == Act::Gelu) v = 0.5f * v * (1.0f + tl::erf(v * 0.70710678118654752f));
    tl::store(c + rows * N + cols, tl::cast(v, tessera::DTypeOf<T>::value), (rows < M) & (cols < N));
  };
  return tessera::trace("matmul", matmul,
                        {.numWarps = uint32_t(cfg.warps), .argNames = {"a", "b", "bias", "c", "M", "N", "K"},
                         .numerics = portable ? tessera::Numerics::Portable : tessera::Numerics::Fast,
                         .numStages = uint32_t(cfg.stages),
                         // M, N and K as Vulkan code's specialization constants: compiled with
                         // them known (run 78: +27% and +39% at f16 4096^3), a pipeline per size.
                         .specializedArgs = {"M", "N", "K"}});
}
#endif

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "05_matmul: %s: %s\n", what, s.toString().c_str());
  return 1;
}

/// The block shape when --config does not name one (the fastest measured, docs/bench.md):
/// 128 x 256 x 64 with 8 warps for 16-bit inputs on an sm_90 device through CUDA (Hopper's
/// warpgroup units), 128 x 128 x 32 with 8 warps on the other tensor cores; through Vulkan
/// 128 x 256 x 64 with 8 warps where workgroup-scope matrices run (VK_NV_cooperative_matrix2;
/// the driver stages them: run 77 measured 301 TFLOP/s at f16 4096^3) and the sizes are multiples
/// of those blocks, with no activation, B as it lies and one stage (what that code takes);
/// otherwise 128 x 256 x 32 with 16 warps for f16 where cooperative matrices keep accumulators
/// in mma.sync's lanes (the device's target ends in +mma-lanes: NVIDIA), and for bf16 where they
/// take bf16 too (+bf16); for f32 (FMA) 128 x 256 x 32 with 8 warps through CUDA on sm_90 (128
/// accumulators a thread, one program a multiprocessor, its operands copied in 3 stages and each
/// 32-deep k step one block of multiply-adds: run 97 on the H100, 46.1 TFLOP/s against 45.1-45.3
/// for 64 x 128 x 32 / 4 and 64 x 128 x 16 / 4) and 64 x 128 x 16 with 4 warps on other CUDA GPUs
/// (where the 3 stages of the larger block do not fit), 64 x 256 x 16 with 8 warps through Vulkan
/// on a GPU (run 97: 37.1 TFLOP/s, against 34.0 for 64 x 128 x 16 / 4), else 64 x 64 x 32 with 4
/// warps, which fits every device's shared memory (lavapipe's 32 KiB on the FMA path too).
template <class T> Config defaultConfig(const tessera::Device &dev, bool portable, int stages, int M, int N, int K, Act act,
                                        bool bTransposed) {
  const bool cuda = dev.backend() == tessera::Backend::CUDA;
  const bool tensorCores = cuda && dev.backendInfo().computeCapability >= 80;
  const std::string chip = cuda ? std::string() : dev.target().chip;
  const bool coopLanes = tessera::hasMmaLanes(chip) && (std::is_same_v<T, f16> || (std::is_same_v<T, bf16> && tessera::hasCoopBF16(chip)));
  const bool workgroupMatrices = !portable && coopLanes && act == Act::None && !bTransposed && stages <= 1 &&
                                 M % 128 == 0 && N % 256 == 0 && K % 64 == 0 &&
                                 dev.workgroupMatrixInvocations(std::is_same_v<T, bf16>) >= 256;
  Config c;
  if (!portable && !std::is_same_v<T, float> && cuda && dev.backendInfo().computeCapability == 90) c = Config{128, 256, 64, 8};
  else if (!portable && !std::is_same_v<T, float> && tensorCores) c = Config{128, 128, 32, 8};
  else if (workgroupMatrices) c = Config{128, 256, 64, 8};
  else if (!portable && coopLanes) c = Config{128, 256, 32, 16};
  else if (!portable && std::is_same_v<T, float> && cuda && dev.backendInfo().computeCapability == 90)
    c = Config{128, 256, 32, 8};
  else if (!portable && std::is_same_v<T, float> && cuda) c = Config{64, 128, 16, 4};
  else if (!portable && std::is_same_v<T, float> && !dev.info().isCpu) c = Config{64, 256, 16, 8};
  c.stages = stages;
  c.bTransposed = bTransposed;
  return c;
}

/// The PTX chips a written package holds (--ptx-chips): sm_90a's code (the warpgroup matrix units,
/// wgmma) is what an sm_90 device loads; sm_90 serves the others.
static std::vector<std::string> ptxChips{"sm_90", "sm_90a"};

template <class T> int run(int M, int N, int K, Act act, bool portable, int repeat, Config cfg, bool explicitConfig,
                           bool tune, const std::string &packageDir, const std::string &writeDir) {
  const std::string dtype = dtypeName<T>();
  auto rt = tessera::Runtime::create();
  if (!rt) return fail("runtime", rt.status());
  auto device = (*rt)->openDefault();
  if (!device) return fail("device", device.status());
  tessera::Device &dev = **device;
  if (!explicitConfig) cfg = defaultConfig<T>(dev, portable, cfg.stages, M, N, K, act, cfg.bTransposed);
#ifndef TESSERA_EXAMPLE_AOT
  auto kernel = traceMatmul<T>(act, portable, cfg);
  if (!kernel) return fail("trace", kernel.status());
  if (!writeDir.empty()) {
    std::vector<tessera::TargetDesc> targets{tessera::spirvTarget(8), tessera::spirvTarget(32)};
    for (const std::string &chip : ptxChips) targets.push_back(tessera::nvptxTarget(chip));
    if (portable) targets.push_back(tessera::spirvTarget(32, true)); // for Vulkan drivers that flush f32 denormals
    else if (!std::is_same_v<T, float>) // cooperative matrices (16-bit inputs) where the device passes their self-test;
      // in registers where it found mma.sync's lanes; bf16 on them where it passed theirs too
      // (and, with lanes, on workgroup-scope matrices for sizes that are multiples of the blocks)
      for (bool lanes : {false, true})
        for (bool withBF16 : {false, true})
          for (bool workgroup : {false, true})
            if ((!withBF16 || std::is_same_v<T, bf16>) && (!workgroup || lanes))
              targets.push_back(tessera::spirvTarget(32, false, true, lanes, withBF16, workgroup));
    auto all = tessera::compile(std::span(&*kernel, 1), targets);
    if (!all) return fail("compile", all.status());
    if (auto s = tessera::writePackageFile(writeDir + packageName(dtype, act, portable, cfg), *all); !s) return fail("write", s);
  }
#endif
#ifndef TESSERA_EXAMPLE_AOT
  auto pkg = tessera::compile(*kernel, dev.target());
#else
  auto pkg = tessera::readPackageFile(packageDir + packageName(dtype, act, portable, cfg));
#endif
  if (!pkg) return fail("compile", pkg.status());
  auto module = dev.load(*pkg);
  if (!module) return fail("load", module.status());
  auto mm = module->kernel("matmul");
  if (!mm) return fail("kernel", mm.status());
  tessera::Kernel matmul = *mm;

  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<T> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N, poison<T>());
  std::vector<float> bias(N);
  for (T &v : a) v = fromFloat<T>(dist(rng));
  for (T &v : b) v = fromFloat<T>(dist(rng));
  for (float &v : bias) v = dist(rng);
  const DType dt = tessera::DTypeOf<T>::value;
  auto da = dev.allocate(dt, a.size()), db = dev.allocate(dt, b.size()), dc = dev.allocate(dt, c.size());
  auto dbias = dev.allocate(DType::F32, size_t(N));
  if (!da || !db || !dc || !dbias) return fail("allocate", !da ? da.status() : !db ? db.status() : !dc ? dc.status() : dbias.status());
  if (auto s = da->upload(std::span<const T>(a)); !s) return fail("upload", s);
  if (auto s = db->upload(std::span<const T>(b)); !s) return fail("upload", s);
  if (auto s = dbias->upload(std::span<const float>(bias)); !s) return fail("upload", s);
  auto gridOf = [&](const Config &g) { return tessera::Grid{uint32_t(((M + g.BM - 1) / g.BM) * ((N + g.BN - 1) / g.BN))}; };
#ifndef TESSERA_EXAMPLE_AOT
  std::optional<tessera::Tuned> tuned;
  if (tune) {
    // The fastest of a few block shapes (and load pipelining) on this device, measured once and then remembered per
    // device, driver and shape bucket ($TESSERA_CACHE_DIR/autotune.txt). Shapes the device
    // cannot run (too much shared memory) are skipped with their reason.
    std::vector<tessera::TuneConfig> configs;
    for (Config g : {Config{128, 256, 64, 8}, Config{128, 256, 32, 16}, Config{256, 128, 32, 8}, Config{128, 128, 64, 8}, Config{128, 128, 32, 8}, Config{128, 128, 32, 4}, Config{64, 64, 32, 4}, Config{128, 64, 32, 4},
                     Config{64, 128, 32, 4}, Config{128, 64, 32, 8}, Config{32, 64, 32, 4}, Config{32, 32, 32, 2},
                     Config{64, 64, 32, 4, 2}, Config{128, 64, 32, 4, 2}})
      configs.push_back({{{"BM", g.BM}, {"BN", g.BN}, {"BK", g.BK}, {"STAGES", g.stages}}, uint32_t(g.warps)});
    auto configOf = [&cfg](const tessera::TuneConfig &t) {
      return Config{int(t.get("BM")), int(t.get("BN")), int(t.get("BK")), int(t.numWarps), std::max(1, int(t.get("STAGES"))),
                    cfg.bTransposed};
    };
    tessera::Autotuner tuner;
    auto best = tuner.tune(
        dev, "matmul_" + dtype + "_" + actName(act) + (portable ? "_portable" : "_fast") + (cfg.bTransposed ? "_bt" : ""),
        tessera::shapeBucket({int64_t(M), int64_t(N), int64_t(K)}), configs,
        [&](const tessera::TuneConfig &t) { return traceMatmul<T>(act, portable, configOf(t)); },
        [&](const tessera::Kernel &k, const tessera::TuneConfig &t) {
          return k.launch(gridOf(configOf(t)), {*da, *db, *dbias, *dc, int32_t(M), int32_t(N), int32_t(K)});
        });
    if (!best) return fail("tune", best.status());
    tuned = std::move(*best);
    cfg = configOf(tuned->config);
    matmul = tuned->kernel;
    kernel = traceMatmul<T>(act, portable, cfg); // for the interpreter's check below
    if (!kernel) return fail("trace", kernel.status());
    if (tuned->fromCache)
      std::printf("tuned: %s from the cache\n", cfg.name().c_str());
    else
      std::printf("tuned: %s, the fastest of %zu measured (%zu skipped)\n", cfg.name().c_str(), tuned->seconds.size(),
                  tuned->skipped.size());
  }
#else
  if (tune) return std::fprintf(stderr, "05_matmul: --tune needs the compiler (this is the runtime-only build)\n"), 1;
#endif
  if (auto s = dc->upload(std::span<const T>(c)); !s) return fail("upload", s); // poison: NaN everywhere
  const tessera::Grid grid = gridOf(cfg);
  if (auto s = matmul.launch(grid, {*da, *db, *dbias, *dc, int32_t(M), int32_t(N), int32_t(K)}); !s) return fail("launch", s);
  if (auto s = dc->download(std::span<T>(c)); !s) return fail("download", s);

  // Against float64: the f32 sum is within K * 2^-24 of Σ|a b| (either order, fused or not);
  // GELU's slope is below 1.13 and fast erf adds ~1e-6; the result then rounds once to the
  // output type (half an ULP: 2^-11 relative for f16, 2^-8 for bf16; one ULP allowed).
  const int digits = digitsOf<T>();
  double worst = 0;
  std::vector<int> checkRows;
  const bool sampled = double(M) * N * K > 0x1p30;
  for (int m = 0; m < M; ++m)
    if (!sampled) checkRows.push_back(m);
  for (int i = 0; sampled && i < 64; ++i) checkRows.push_back(std::uniform_int_distribution<int>(0, M - 1)(rng));
  std::vector<double> sums(N), mags(N);
  for (int m : checkRows) {
    // Row m of A times B, walking B by rows (by columns, 64 rows of an 8192^3 product took half a
    // minute on the host).
    for (int n = 0; n < N; ++n) sums[n] = bias[n], mags[n] = std::fabs(bias[n]);
    if (cfg.bTransposed) // B's row n is column n of the product
      for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) {
          const double p = toFloat(a[size_t(m) * K + k]) * toFloat(b[size_t(n) * K + k]);
          sums[n] += p, mags[n] += std::fabs(p);
        }
    else
      for (int k = 0; k < K; ++k) {
        const double x = toFloat(a[size_t(m) * K + k]);
        const T *row = &b[size_t(k) * N];
        for (int n = 0; n < N; ++n) {
          const double p = x * toFloat(row[n]);
          sums[n] += p, mags[n] += std::fabs(p);
        }
      }
    for (int n = 0; n < N; ++n) {
      const double sum = sums[n], mag = mags[n];
      double ref = act == Act::Relu ? std::max(sum, 0.0) : act == Act::Gelu ? 0.5 * sum * (1 + std::erf(sum / std::sqrt(2.0))) : sum;
      double got = toFloat(c[size_t(m) * N + n]), err = std::fabs(got - ref);
      double ulp = std::ldexp(1.0, std::max(std::ilogb(std::fabs(ref)), minExponentOf<T>()) - (digits - 1));
      double allowed = ulp + 1.13 * (K + 2) * 0x1p-24 * mag + 1e-6 * std::fabs(ref);
      if (!(err <= allowed)) {
        std::fprintf(stderr, "05_matmul: c[%d][%d] = %.6g, expected %.6g (allowed error %.3g)\n", m, n, got, ref, allowed);
        return 1;
      }
      worst = std::max(worst, err / allowed);
    }
  }
  std::printf("matmul %dx%dx%d %s + bias + %s (%s, %s) on %s: largest error %.0f%% of its bound%s\n", M, N, K, dtype.c_str(),
              actName(act), portable ? "portable" : "fast", cfg.name().c_str(), dev.describe().c_str(), 100 * worst,
              sampled ? " (64 random rows checked)" : "");
  if (!portable) std::printf("matrix units for fast dot: %s\n", dev.matrixUnits().c_str());
  if (repeat > 0) {
    auto seconds = timeLaunches(dev, repeat, [&] {
      return matmul.launch(grid, {*da, *db, *dbias, *dc, int32_t(M), int32_t(N), int32_t(K)});
    });
    if (!seconds) return fail("timing", seconds.status());
    printTflops(repeat, *seconds, 2.0 * M * N * K);
  }
  if (!portable) printTensorCopies(matmul);
  printStatistics(matmul);

#ifndef TESSERA_EXAMPLE_AOT
  // Portable mode promises the interpreter's bits on every device.
  if (portable) {
    tessera::HostBuffer ha = tessera::HostBuffer::of(a), hb = tessera::HostBuffer::of(b), hbias = tessera::HostBuffer::of(bias);
    tessera::HostBuffer hc(dt, c.size());
    if (auto s = tessera::interpret(*kernel, grid, {ha, hb, hbias, hc, int32_t(M), int32_t(N), int32_t(K)}); !s)
      return fail("interpret", s);
    size_t differ = 0;
    for (size_t i = 0; i < c.size(); ++i) differ += bitsOf(c[i]) != bitsOf(hc.data<T>()[i]);
    if (differ) return std::fprintf(stderr, "05_matmul: %zu elements differ from the interpreter\n", differ), 1;
    std::printf("portable: all %zu elements bit-identical to the interpreter\n", c.size());
  }
#endif
  return 0;
}

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // each line out as it is printed, also into a pipe
  std::string packageDir = ".", writeDir, dtype = "f16";
  Act act = Act::Gelu;
  bool portable = false;
  int repeat = 0;
  bool tune = false, explicitConfig = false;
  Config cfg;
  std::vector<int> pos;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--package-dir=", 14)) packageDir = argv[i] + 14;
    else if (!std::strncmp(argv[i], "--write-package=", 16)) writeDir = argv[i] + 16;
    else if (!std::strncmp(argv[i], "--ptx-chips=", 12)) {
      ptxChips.clear();
      std::istringstream list(argv[i] + 12);
      for (std::string chip; std::getline(list, chip, ',');) ptxChips.push_back(chip);
    }
    else if (!std::strncmp(argv[i], "--dtype=", 8)) dtype = argv[i] + 8;
    else if (!std::strcmp(argv[i], "--act=none")) act = Act::None;
    else if (!std::strcmp(argv[i], "--act=relu")) act = Act::Relu;
    else if (!std::strcmp(argv[i], "--act=gelu")) act = Act::Gelu;
    else if (!std::strcmp(argv[i], "--portable")) portable = true;
    else if (!std::strncmp(argv[i], "--repeat=", 9)) repeat = std::atoi(argv[i] + 9);
    else if (parseTimingOption(argv[i])) continue;
    else if (!std::strcmp(argv[i], "--tune")) tune = true;
    else if (!std::strncmp(argv[i], "--stages=", 9)) cfg.stages = std::atoi(argv[i] + 9);
    else if (!std::strcmp(argv[i], "--b-transposed")) cfg.bTransposed = true;
    else if (!std::strncmp(argv[i], "--config=", 9)) {
      if (std::sscanf(argv[i] + 9, "%dx%dx%d/%d", &cfg.BM, &cfg.BN, &cfg.BK, &cfg.warps) != 4)
        return std::fprintf(stderr, "05_matmul: --config=BMxBNxBK/WARPS, e.g. 64x64x32/4\n"), 1;
      explicitConfig = true;
    }
    else if (argv[i][0] == '-') return std::fprintf(stderr, "05_matmul: unknown option %s\n", argv[i]), 1;
    else pos.push_back(std::atoi(argv[i]));
  }
  int M = pos.size() > 0 ? pos[0] : 200, N = pos.size() > 1 ? pos[1] : 130, K = pos.size() > 2 ? pos[2] : 300;
  if (M < 1 || N < 1 || K < 1) return std::fprintf(stderr, "05_matmul: need M, N, K >= 1\n"), 1;
  if (dtype == "f16") return run<f16>(M, N, K, act, portable, repeat, cfg, explicitConfig, tune, packageDir, writeDir);
  if (dtype == "bf16") return run<bf16>(M, N, K, act, portable, repeat, cfg, explicitConfig, tune, packageDir, writeDir);
  if (dtype == "f32") return run<float>(M, N, K, act, portable, repeat, cfg, explicitConfig, tune, packageDir, writeDir);
  return std::fprintf(stderr, "05_matmul: --dtype must be f16, bf16 or f32\n"), 1;
}
