// 06_flash_attention: attention forward, O = softmax(Q K^T / sqrt(D)) V, causal or not, for
// Q, K, V and O of shape [batch, heads, seq, D] in f16 or bf16, D = 64 or 128.
//
// You will learn the online softmax: each program owns BLOCK_M query rows and walks the keys in
// blocks of BLOCK_N with tl::for_range, carrying the running row maximum m, the running sum of
// exponentials l and the unnormalised output acc. A new block rescales what was carried by
// exp(m_old - m_new), so the [seq x seq] score matrix never exists in memory. Causal attention
// stops the walk at the diagonal and masks the scores above it.
// Run: 06_flash_attention [batch] [heads] [seq] [D] [--dtype=f16|bf16] [--causal] [--portable]
//                         [--blocks=BLOCK_MxBLOCK_N] [--warps=W] (subgroups per program; default 4)
//                         [--repeat=R]
//                         [--stages=2] (the next key block's K and V loaded before this block's work)
//                         [--overlap=0|1] (the loop rotated: a block's softmax while the matrix units
//                         multiply the previous block's values; off by default: 8% slower on the
//                         warpgroup units with the producer warpgroup, within 3% of the plain loop
//                         with TESSERA_PINGPONG=1 when compiling, runs 45-50, docs/bench.md)
//                         [--write-package=DIR] [--ptx-chips=sm_90,sm_90a] (write the kernel's package for
//                         these PTX chips and SPIR-V; an sm_90 device takes sm_90a's code: the warpgroup units)
// The blocks default to 128 x 128 on 8 warps for D = 128 through CUDA on sm_90 (two warpgroups of
// Hopper's units: 431 TFLOP/s against 64 x 32's 375 on an H100, run 37, docs/bench.md), to
// 128 x 32 on 8 subgroups for D = 128 through Vulkan where cooperative matrices keep accumulators
// in mma.sync's lanes (the queries' matrices held in registers, so the block fits NVIDIA's 48 KiB:
// 185 TFLOP/s against 64 x 32's 97 on an H100, run 103), else to 64 x 64 (D = 64) or 64 x 32
// (D = 128) on matrix units (NVIDIA through CUDA, and through Vulkan where cooperative matrices
// keep accumulators in mma.sync's lanes: operands staged as 16-bit values) and 16 x 16 elsewhere
// (the FMA path stages 32-bit values: two products of a D = 128 program must fit lavapipe's
// 32 KiB). --repeat=R times R more launches after about 200 ms of warm-up (examples/timing.hpp), back to back or with --flush-l2
// each after a 128 MiB device copy (as triton.testing.do_bench); past 2^32 multiply-adds only 64
// random (batch x head, row) pairs are checked. --stats prints what the driver reports about the
// kernel's machine code (registers, spills).
#include "tessera/runtime/Runtime.hpp"
#include "timing.hpp"
#ifndef TESSERA_EXAMPLE_AOT
#include "tessera/interpreter.hpp"
#include "tessera/tessera.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using tessera::bf16;
using tessera::DType;
using tessera::f16;

struct Blocks {
  int m = 0, n = 0, stages = 1, warps = 4;
  bool overlap = false; // the rotated loop (--overlap=1)
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + (warps != 4 ? "w" + std::to_string(warps) : "") +
           (stages > 1 ? "s" + std::to_string(stages) : "") + (overlap ? "o" : "");
  }
};
static std::string packageName(const std::string &dtype, int D, bool causal, bool portable, Blocks bl) {
  return "/attention_" + dtype + "_d" + std::to_string(D) + (causal ? "_causal" : "") + (portable ? "_portable" : "_fast") +
         "_" + bl.name() + ".tspkg";
}

#ifndef TESSERA_EXAMPLE_AOT
namespace tl = tessera::tl;
template <class T> tessera::Result<tessera::TracedKernel> traceAttention(int D, bool causal, bool portable, Blocks bl) {
  const int BLOCK_M = bl.m, BLOCK_N = bl.n;
  const bool overlap = bl.overlap;
  auto attention = [D, causal, overlap, BLOCK_M, BLOCK_N](tl::Ptr<T> q, tl::Ptr<T> k, tl::Ptr<T> v, tl::Ptr<T> o, tl::Scalar<int32_t> seq,
                               tl::Scalar<float> scale) {
    const DType dt = tessera::DTypeOf<T>::value;
    tl::Tile head = tl::program_id(1) * seq * D; // this (batch, head)'s [seq x D] slice
    tl::Tile log2Scale = scale * 1.4426950408889634f;
    tl::Tile rowIds = tl::program_id(0) * BLOCK_M + tl::arange(0, BLOCK_M);
    tl::Tile rows = tl::expand_dims(rowIds, 1), dims = tl::expand_dims(tl::arange(0, D), 0);
    tl::Tile qTile = tl::load(q + head + rows * D + dims, rows < seq, 0); // BLOCK_M x D
    // Causal: keys past the block's last row never count.
    tl::Tile end = causal ? tl::minimum(seq, (tl::program_id(0) + 1) * BLOCK_M) : tl::Tile(seq);
    // Scores of one key block, masked: keys past the sequence never count; causal, nor past the
    // row (rows < seq for every row stored: one compare a score).
    auto scores = [&](const tl::Tile &keys) {
      tl::Tile keyRows = tl::expand_dims(keys, 1);
      // The keys' rows as they lie in memory (wide loads); the dot reads them transposed, so
      // tl::trans moves nothing.
      tl::Tile kTile = tl::load(k + head + keyRows * D + dims, keyRows < seq, 0); // BLOCK_N x D
      return tl::dot(qTile, tl::trans(kTile));                                  // BLOCK_M x BLOCK_N
    };
    auto valid = [&](const tl::Tile &keys) {
      tl::Tile keyCols = tl::expand_dims(keys, 0);
      return causal ? keyCols <= tl::minimum(rows, seq - 1) : keyCols < seq;
    };
    // Base 2 with the scale folded in: exp(x * scale) = exp2(x * scale * log2(e)), so each score
    // costs one multiply-add and one exp2 (fast mode: ex2.approx). m is kept in that base, and the
    // row maximum is taken before scaling (scaling by a positive number keeps the order).
    struct Softmax {
      tl::Tile m, p, alpha;
    };
    auto softmax = [&](const tl::Tile &s, const tl::Tile &m) {
      tl::Tile mNew = tl::maximum(m, tl::max(s, 1) * log2Scale);
      return Softmax{mNew, tl::exp2(s * log2Scale - tl::expand_dims(mNew, 1)), tl::exp2(m - mNew)};
    };
    std::vector<tl::Tile> init{tl::full({BLOCK_M}, -INFINITY, DType::F32), tl::zeros({BLOCK_M}, DType::F32),
                               tl::zeros({BLOCK_M, D}, DType::F32)};
    std::vector<tl::Tile> done;
    if (!overlap) {
      done = tl::for_range(0, end, BLOCK_N, init, [&](const tl::Tile &start, const std::vector<tl::Tile> &st) {
        const tl::Tile &m = st[0], &l = st[1], &acc = st[2];
        tl::Tile keys = start + tl::arange(0, BLOCK_N);
        tl::Tile s = scores(keys);
        Softmax sm = softmax(tl::where(valid(keys), s, -INFINITY), m);
        tl::Tile keyRows = tl::expand_dims(keys, 1);
        tl::Tile vTile = tl::load(v + head + keyRows * D + dims, keyRows < seq, 0); // BLOCK_N x D
        tl::Tile accNew = tl::dot(tl::cast(sm.p, dt), vTile, acc * tl::expand_dims(sm.alpha, 1));
        return std::vector<tl::Tile>{sm.m, l * sm.alpha + tl::sum(sm.p, 1), accNew};
      });
    } else {
      // Rotated: an iteration issues this key block's scores, then the previous block's
      // probabilities times its values, then this block's softmax, which needs only the scores:
      // it runs while the matrix units multiply the values (each dot is waited for where its
      // result is first used). One iteration more: the first multiplies zero probabilities (the
      // values of keys below 0 load as zeros), the last's keys are all masked off.
      init.push_back(tl::zeros({BLOCK_M, BLOCK_N}, dt));       // the previous block's probabilities
      init.push_back(tl::full({BLOCK_M}, 1.0f, DType::F32)); // and their rescaling of acc
      done = tl::for_range(0, end + BLOCK_N, BLOCK_N, init, [&](const tl::Tile &start, const std::vector<tl::Tile> &st) {
        const tl::Tile &m = st[0], &l = st[1], &acc = st[2], &pPrev = st[3], &alphaPrev = st[4];
        // (acc rescaled before the scores' instructions are in flight: its registers are another
        // dot's result, which ptxas would otherwise wait for all the units' instructions to read.)
        tl::Tile accScaled = acc * tl::expand_dims(alphaPrev, 1);
        tl::Tile keys = start + tl::arange(0, BLOCK_N);
        tl::Tile s = scores(keys);
        tl::Tile prevRows = tl::expand_dims(start + tl::arange(-BLOCK_N, 0), 1);
        tl::Tile vTile = tl::load(v + head + prevRows * D + dims, (prevRows >= 0) & (prevRows < seq), 0);
        tl::Tile accNew = tl::dot(pPrev, vTile, accScaled);
        Softmax sm = softmax(tl::where(valid(keys), s, -INFINITY), m);
        return std::vector<tl::Tile>{sm.m, l * sm.alpha + tl::sum(sm.p, 1), accNew, tl::cast(sm.p, dt), sm.alpha};
      });
    }
    tl::Tile out = done[2] / tl::expand_dims(done[1], 1);
    tl::store(o + head + rows * D + dims, tl::cast(out, dt), rows < seq);
  };
  return tessera::trace("attention", attention,
                        {.numWarps = uint32_t(bl.warps), .argNames = {"q", "k", "v", "o", "seq", "scale"},
                         .numerics = portable ? tessera::Numerics::Portable : tessera::Numerics::Fast,
                         .numStages = uint32_t(bl.stages),
                         // The sequence length as Vulkan code's specialization constant: compiled
                         // with it known (run 78: +19% non-causal), a pipeline per length.
                         .specializedArgs = {"seq"}});
}
#endif

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "06_flash_attention: %s: %s\n", what, s.toString().c_str());
  return 1;
}

/// The PTX chips a written package holds (--ptx-chips): sm_90a's code (the warpgroup matrix units,
/// wgmma) is what an sm_90 device loads; sm_90 serves the others.
static std::vector<std::string> ptxChips{"sm_90", "sm_90a"};

template <class T> int run(int batch, int heads, int seq, int D, bool causal, bool portable, Blocks bl, int repeat,
                           const std::string &packageDir, const std::string &writeDir) {
  const std::string dtype = std::is_same_v<T, f16> ? "f16" : "bf16";
  auto rt = tessera::Runtime::create();
  if (!rt) return fail("runtime", rt.status());
  auto device = (*rt)->openDefault();
  if (!device) return fail("device", device.status());
  tessera::Device &dev = **device;
  if (!bl.m) { // matrix units take bigger blocks: their operands are 16-bit in shared memory
    const tessera::TargetDesc target = dev.target();
    const bool coopLanes = tessera::hasMmaLanes(target.chip) && (std::is_same_v<T, f16> || tessera::hasCoopBF16(target.chip));
    const bool warpgroupUnits = dev.backend() == tessera::Backend::CUDA && dev.backendInfo().computeCapability == 90;
    bl = !portable && warpgroupUnits && D == 128 ? Blocks{128, 128, bl.stages, 8, bl.overlap}
         : !portable && coopLanes && D == 128 ? Blocks{128, 32, bl.stages, 8, bl.overlap}
         : (target.kind == tessera::TargetKind::PTX || coopLanes) && !portable
             ? Blocks{64, D == 64 ? 64 : 32, bl.stages, bl.warps, bl.overlap}
             : Blocks{16, 16, bl.stages, bl.warps, bl.overlap};
  }
  const int BLOCK_M = bl.m;
#ifndef TESSERA_EXAMPLE_AOT
  auto kernel = traceAttention<T>(D, causal, portable, bl);
  if (!kernel) return fail("trace", kernel.status());
  if (!writeDir.empty()) {
    std::vector<tessera::TargetDesc> targets{tessera::spirvTarget(8), tessera::spirvTarget(32)};
    for (const std::string &chip : ptxChips) targets.push_back(tessera::nvptxTarget(chip));
    if (portable) targets.push_back(tessera::spirvTarget(32, true)); // for Vulkan drivers that flush f32 denormals
    else // cooperative matrices where the device passes their self-test; in registers where it found mma.sync's lanes;
      // bf16 on them where it passed theirs too
      for (bool lanes : {false, true})
        for (bool withBF16 : {false, true})
          if (!withBF16 || !std::is_same_v<T, f16>) targets.push_back(tessera::spirvTarget(32, false, true, lanes, withBF16));
    auto all = tessera::compile(std::span(&*kernel, 1), targets);
    if (!all) return fail("compile", all.status());
    if (auto s = tessera::writePackageFile(writeDir + packageName(dtype, D, causal, portable, bl), *all); !s) return fail("write", s);
  }
#endif
#ifndef TESSERA_EXAMPLE_AOT
  auto pkg = tessera::compile(*kernel, dev.target());
#else
  auto pkg = tessera::readPackageFile(packageDir + packageName(dtype, D, causal, portable, bl));
#endif
  if (!pkg) return fail("compile", pkg.status());
  auto module = dev.load(*pkg);
  if (!module) return fail("load", module.status());
  auto attn = module->kernel("attention");
  if (!attn) return fail("kernel", attn.status());

  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.f, 1.f);
  const size_t count = size_t(batch) * heads * seq * D;
  std::vector<T> q(count), k(count), v(count), o(count, T::fromBits(0xffff));
  for (auto *t : {&q, &k, &v})
    for (T &x : *t) x = T::fromFloat(dist(rng));
  const float scale = 1.0f / std::sqrt(float(D));
  const DType dt = tessera::DTypeOf<T>::value;
  tessera::Buffer bufs[4];
  std::vector<T> *host[4] = {&q, &k, &v, &o};
  for (int i = 0; i < 4; ++i) {
    auto b = dev.allocate(dt, count);
    if (!b) return fail("allocate", b.status());
    bufs[i] = *b;
    if (auto s = bufs[i].upload(std::span<const T>(*host[i])); !s) return fail("upload", s);
  }
  const tessera::Grid grid{uint32_t((seq + BLOCK_M - 1) / BLOCK_M), uint32_t(batch * heads)};
  if (auto s = attn->launch(grid, {bufs[0], bufs[1], bufs[2], bufs[3], int32_t(seq), scale}); !s) return fail("launch", s);
  if (auto s = bufs[3].download(std::span<T>(o)); !s) return fail("download", s);

  // Against float64 attention on the same (rounded) inputs. The probabilities are rounded to
  // the input type before the second product (as every flash kernel does): each weight is off
  // by up to half an ULP of the type, so the output is off by up to 2^-digits * max|v| on top of
  // its own rounding (one ULP allowed) and the f32 math (fast exp: a few ULP of f32).
  const int digits = std::is_same_v<T, f16> ? 11 : 8;
  double worst = 0;
  std::vector<double> w(seq);
  std::vector<std::pair<int, int>> checks; // (batch x head, row)
  const bool sampled = double(batch) * heads * seq * seq * D > 0x1p32;
  for (int bh = 0; bh < batch * heads && !sampled; ++bh)
    for (int r = 0; r < seq; ++r) checks.push_back({bh, r});
  for (int i = 0; sampled && i < 64; ++i)
    checks.push_back({std::uniform_int_distribution<int>(0, batch * heads - 1)(rng), std::uniform_int_distribution<int>(0, seq - 1)(rng)});
  for (auto [bh, r] : checks) {
    const size_t base = size_t(bh) * seq * D;
    int last = causal ? r : seq - 1;
    double mx = -INFINITY, sum = 0, vmax = 0;
    for (int c = 0; c <= last; ++c) {
      double dotqk = 0;
      for (int d = 0; d < D; ++d) dotqk += double(q[base + size_t(r) * D + d].toFloat()) * k[base + size_t(c) * D + d].toFloat();
      w[c] = dotqk * scale;
      mx = std::max(mx, w[c]);
    }
    for (int c = 0; c <= last; ++c) sum += (w[c] = std::exp(w[c] - mx));
    for (int d = 0; d < D; ++d) {
      double ref = 0;
      for (int c = 0; c <= last; ++c) {
        double x = v[base + size_t(c) * D + d].toFloat();
        ref += w[c] / sum * x;
        vmax = std::max(vmax, std::fabs(x));
      }
      double got = o[base + size_t(r) * D + d].toFloat(), err = std::fabs(got - ref);
      double ulp = std::ldexp(1.0, std::max(std::ilogb(std::fabs(ref)), digits == 11 ? -14 : -126) - (digits - 1));
      double allowed = ulp + std::ldexp(vmax, -digits) + 1e-5 * vmax;
      if (!(err <= allowed)) {
        std::fprintf(stderr, "06_flash_attention: o[%d][%d][%d] = %.6g, expected %.6g (allowed %.3g)\n", bh, r, d, got, ref, allowed);
        return 1;
      }
      worst = std::max(worst, err / allowed);
    }
  }
  std::printf("attention %dx%dx%dx%d %s%s (%s, blocks %s) on %s: largest error %.0f%% of its bound%s\n", batch, heads, seq,
              D, dtype.c_str(), causal ? " causal" : "", portable ? "portable" : "fast", bl.name().c_str(),
              dev.describe().c_str(), 100 * worst, sampled ? " (64 random rows checked)" : "");
  if (!portable) std::printf("matrix units for fast dot: %s\n", dev.matrixUnits().c_str());
  if (repeat > 0) {
    auto seconds = timeLaunches(dev, repeat, [&] {
      return attn->launch(grid, {bufs[0], bufs[1], bufs[2], bufs[3], int32_t(seq), scale});
    });
    if (!seconds) return fail("timing", seconds.status());
    printTflops(repeat, *seconds, 4.0 * batch * heads * double(seq) * seq * D * (causal ? 0.5 : 1.0));
  }
  if (!portable) printTensorCopies(*attn);
  printStatistics(*attn);

#ifndef TESSERA_EXAMPLE_AOT
  if (portable) { // the interpreter's bits on every device
    tessera::HostBuffer hq = tessera::HostBuffer::of(q), hk = tessera::HostBuffer::of(k), hv = tessera::HostBuffer::of(v);
    tessera::HostBuffer ho(dt, count);
    if (auto s = tessera::interpret(*kernel, grid, {hq, hk, hv, ho, int32_t(seq), scale}); !s) return fail("interpret", s);
    size_t differ = 0;
    for (size_t i = 0; i < count; ++i) differ += o[i].bits != ho.data<T>()[i].bits;
    if (differ) return std::fprintf(stderr, "06_flash_attention: %zu elements differ from the interpreter\n", differ), 1;
    std::printf("portable: all %zu elements bit-identical to the interpreter\n", count);
  }
#endif
  return 0;
}

int main(int argc, char **argv) {
  std::string packageDir = ".", writeDir, dtype = "f16";
  bool causal = false, portable = false;
  Blocks bl;
  int repeat = 0;
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
    else if (!std::strcmp(argv[i], "--causal")) causal = true;
    else if (!std::strcmp(argv[i], "--portable")) portable = true;
    else if (!std::strncmp(argv[i], "--repeat=", 9)) repeat = std::atoi(argv[i] + 9);
    else if (parseTimingOption(argv[i])) continue;
    else if (!std::strncmp(argv[i], "--stages=", 9)) bl.stages = std::atoi(argv[i] + 9);
    else if (!std::strcmp(argv[i], "--overlap=0") || !std::strcmp(argv[i], "--overlap=1")) bl.overlap = argv[i][10] == '1';
    else if (!std::strncmp(argv[i], "--warps=", 8)) {
      bl.warps = std::atoi(argv[i] + 8);
      if (bl.warps < 1 || bl.warps > 32 || (bl.warps & (bl.warps - 1)))
        return std::fprintf(stderr, "06_flash_attention: --warps=W, a power of two from 1 to 32\n"), 1;
    }
    else if (!std::strncmp(argv[i], "--blocks=", 9)) {
      if (std::sscanf(argv[i] + 9, "%dx%d", &bl.m, &bl.n) != 2 || bl.m < 16 || bl.n < 16)
        return std::fprintf(stderr, "06_flash_attention: --blocks=MxN, powers of two of at least 16\n"), 1;
    }
    else if (argv[i][0] == '-') return std::fprintf(stderr, "06_flash_attention: unknown option %s\n", argv[i]), 1;
    else pos.push_back(std::atoi(argv[i]));
  }
  int batch = pos.size() > 0 ? pos[0] : 1, heads = pos.size() > 1 ? pos[1] : 2, seq = pos.size() > 2 ? pos[2] : 100,
      D = pos.size() > 3 ? pos[3] : 64;
  if (batch < 1 || heads < 1 || seq < 1 || (D != 64 && D != 128))
    return std::fprintf(stderr, "06_flash_attention: need batch, heads, seq >= 1 and D = 64 or 128\n"), 1;
  if (dtype == "f16") return run<f16>(batch, heads, seq, D, causal, portable, bl, repeat, packageDir, writeDir);
  if (dtype == "bf16") return run<bf16>(batch, heads, seq, D, causal, portable, bl, repeat, packageDir, writeDir);
  return std::fprintf(stderr, "06_flash_attention: --dtype must be f16 or bf16\n"), 1;
}
