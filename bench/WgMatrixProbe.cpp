// tessera-wgmatrix-probe: runs one SPIR-V matmul module written with workgroup-scope cooperative
// matrices (VK_NV_cooperative_matrix2; bench/wgmatrix/gen_wg_matmul.py writes them) through the
// Tessera runtime on a Vulkan device, checks sampled rows of C against float64 and times it.
// A measuring instrument: it answers how fast the driver's own staging of workgroup-scope matrices
// is before any Tessera lowering is built on them. The module reads A (binding 0, M x K f16), B
// (binding 1, K x N f16) and writes C (binding 2, M x N f16 or f32), all row-major, one workgroup
// per BM x BN block of C; its sizes are baked in and must match the ones given here.
//
//   tessera-wgmatrix-probe --spv=FILE --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256
//                          [--out=f16|f32] [--in=f16|bf16] [--repeat=50] [--rows=16] [--nv-extension] [--shapes]
//
// --in=bf16: A and B hold bf16 bits (for a module written with gen_wg_matmul.py --bf16).
// --push-sizes: N and K go to the module as push constants (bytes 0 and 4; gen_wg_matmul.py
// --push-sizes). --bias: C = A @ B + bias, bias (N f32) at binding 3 (gen_wg_matmul.py --bias).
// --grid1d: one row of M/BM * N/BN programs (gen_wg_matmul.py --grouped).
//
// --nv-extension inserts OpExtension "SPV_NV_cooperative_matrix2" into the module (MLIR 22 cannot
// name it); --shapes prints the device's cooperative-matrix shapes and limits. Exit status: 0 checked and timed, 1 a wrong result or a failed step, 2 bad usage,
// 3 no device with workgroup-scope cooperative matrices.
#include "tessera/runtime/Runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string spv, out = "f16", in = "f16";
  int m = 0, n = 0, k = 0, bm = 0, bn = 0, wg = 0, repeat = 50, rows = 16;
  bool nvExtension = false, shapes = false, pushSizes = false, bias = false, grid1d = false;
};

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t len = std::strlen(name);
      return a.compare(0, len, name) == 0 ? a.c_str() + len : nullptr;
    };
    if (const char *v = value("--spv=")) o.spv = v;
    else if (const char *v = value("--out=")) o.out = v;
    else if (const char *v = value("--in=")) o.in = v;
    else if (const char *v = value("--m=")) o.m = std::atoi(v);
    else if (const char *v = value("--n=")) o.n = std::atoi(v);
    else if (const char *v = value("--k=")) o.k = std::atoi(v);
    else if (const char *v = value("--bm=")) o.bm = std::atoi(v);
    else if (const char *v = value("--bn=")) o.bn = std::atoi(v);
    else if (const char *v = value("--wg=")) o.wg = std::atoi(v);
    else if (const char *v = value("--repeat=")) o.repeat = std::atoi(v);
    else if (const char *v = value("--rows=")) o.rows = std::atoi(v);
    else if (a == "--nv-extension") o.nvExtension = true;
    else if (a == "--shapes") o.shapes = true;
    else if (a == "--push-sizes") o.pushSizes = true;
    else if (a == "--bias") o.bias = true;
    else if (a == "--grid1d") o.grid1d = true;
    else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  bool sizes = o.m > 0 && o.n > 0 && o.k > 0 && o.bm > 0 && o.bn > 0 && o.wg > 0;
  if (o.spv.empty() || !sizes || o.m % o.bm || o.n % o.bn || (o.out != "f16" && o.out != "f32") || (o.in != "f16" && o.in != "bf16") || o.repeat < 1) {
    std::fprintf(stderr, "usage: tessera-wgmatrix-probe --spv=FILE --m=M --n=N --k=K --bm=BM --bn=BN --wg=WG "
                         "[--out=f16|f32] [--in=f16|bf16] [--repeat=R] [--rows=ROWS] [--nv-extension] [--shapes] [--push-sizes] [--bias] [--grid1d] (BM divides M, BN divides N)\n");
    return false;
  }
  return true;
}

// Inserts OpExtension "SPV_NV_cooperative_matrix2" before the module's first OpExtension (or its
// OpMemoryModel): the logical layout puts extensions after the capabilities.
std::vector<uint8_t> withNvExtension(const std::vector<uint8_t> &bytes) {
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  const char name[] = "SPV_NV_cooperative_matrix2";
  std::vector<uint32_t> inst(1 + (sizeof name + 3) / 4, 0);
  std::memcpy(inst.data() + 1, name, sizeof name);
  inst[0] = uint32_t(inst.size()) << 16 | 10; // OpExtension
  size_t at = 5;
  while (at < words.size()) {
    uint32_t op = words[at] & 0xffff, count = words[at] >> 16;
    if (op == 10 || op == 14 || count == 0) break; // OpExtension, OpMemoryModel
    at += count;
  }
  words.insert(words.begin() + at, inst.begin(), inst.end());
  std::vector<uint8_t> out(words.size() * 4);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  std::ifstream file(o.spv, std::ios::binary);
  std::vector<uint8_t> code((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (code.size() < 20 || code.size() % 4) {
    std::fprintf(stderr, "%s: not a SPIR-V module (%zu bytes)\n", o.spv.c_str(), code.size());
    return 2;
  }
  if (o.nvExtension) code = withNvExtension(code);

  auto rt = tessera::Runtime::create();
  if (!rt) {
    std::fprintf(stderr, "runtime: %s\n", rt.status().message().c_str());
    return 1;
  }
  std::shared_ptr<tessera::Device> dev;
  for (const tessera::DeviceInfo &d : (*rt)->devices()) {
    const tessera::BackendInfo *b = d.find(tessera::Backend::Vulkan);
    if (!b || !b->hasFeature("cooperative_matrix2.workgroup_scope")) continue;
    auto opened = (*rt)->open(d.index, tessera::Backend::Vulkan);
    if (!opened) {
      std::fprintf(stderr, "%s: %s\n", d.name.c_str(), opened.status().message().c_str());
      return 1;
    }
    dev = *opened;
    std::printf("device: %s\nmatrix units: %s\n", dev->describe().c_str(), dev->matrixUnits().c_str());
    if (o.shapes)
      for (const std::string &s : b->matrixShapes) std::printf("  matrix shape: %s\n", s.c_str());
    break;
  }
  if (!dev) {
    std::printf("no Vulkan device offers workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2)\n");
    return 3;
  }

  const tessera::DType outType = o.out == "f16" ? tessera::DType::F16 : tessera::DType::F32;
  tessera::Package pkg;
  tessera::KernelEntry &k = pkg.kernels.emplace_back();
  k.name = "wgmm";
  k.numWarps = uint32_t(o.wg / 32);
  k.args = {{"a", tessera::ArgKind::Buffer, tessera::DType::F16, 0},
            {"b", tessera::ArgKind::Buffer, tessera::DType::F16, 1},
            {"c", tessera::ArgKind::Buffer, outType, 2}};
  if (o.bias) k.args.push_back({"bias", tessera::ArgKind::Buffer, tessera::DType::F32, 3});
  if (o.pushSizes)
    k.args.insert(k.args.end(), {{"n", tessera::ArgKind::Scalar, tessera::DType::I32, 0},
                                 {"k", tessera::ArgKind::Scalar, tessera::DType::I32, 4}});
  tessera::Artifact &art = k.artifacts.emplace_back();
  art.target = {tessera::TargetKind::SPIRV, "vulkan1.3+coopmat", 0, 32};
  art.entryPoint = "main";
  art.blockSize = {uint32_t(o.wg), 1, 1};
  art.code = std::move(code);
  art.pushConstantBytes = o.pushSizes ? 8 : 0;
  auto mod = dev->load(pkg);
  if (!mod) {
    std::fprintf(stderr, "load: %s\n", mod.status().message().c_str());
    return 1;
  }
  auto kernel = mod->kernel("wgmm");
  if (!kernel) {
    std::fprintf(stderr, "kernel: %s\n", kernel.status().message().c_str());
    return 1;
  }

  const size_t M = o.m, N = o.n, K = o.k;
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  // The buffers are 16-bit either way; with --in=bf16 they hold bf16 bits.
  const bool bf16In = o.in == "bf16";
  auto draw = [&] {
    tessera::f16 h;
    h.bits = bf16In ? tessera::bf16::fromFloat(uni(rng)).bits : tessera::f16::fromFloat(uni(rng)).bits;
    return h;
  };
  auto value = [&](tessera::f16 h) -> double {
    if (!bf16In) return h.toFloat();
    tessera::bf16 v;
    v.bits = h.bits;
    return v.toFloat();
  };
  std::vector<tessera::f16> a(M * K), b(K * N);
  for (auto &v : a) v = draw();
  for (auto &v : b) v = draw();
  auto da = dev->allocate(tessera::DType::F16, M * K), db = dev->allocate(tessera::DType::F16, K * N);
  auto dc = dev->allocate(outType, M * N);
  std::vector<float> bias(N, 0.0f);
  if (o.bias)
    for (float &v : bias) v = uni(rng);
  auto dbias = dev->allocate(tessera::DType::F32, N);
  if (!dbias || !dbias->upload(bias.data(), N * 4)) {
    std::fprintf(stderr, "bias allocation failed\n");
    return 1;
  }
  if (!da || !db || !dc) {
    std::fprintf(stderr, "allocation failed\n");
    return 1;
  }
  const size_t outBytes = M * N * (outType == tessera::DType::F16 ? 2 : 4);
  std::vector<uint8_t> poison(outBytes, 0xff); // NaN in both types: unwritten elements show
  if (!da->upload(a.data(), a.size() * 2) || !db->upload(b.data(), b.size() * 2) || !dc->upload(poison.data(), outBytes)) {
    std::fprintf(stderr, "upload failed\n");
    return 1;
  }
  const tessera::Grid grid = o.grid1d ? tessera::Grid{uint32_t((N / o.bn) * (M / o.bm)), 1, 1}
                                      : tessera::Grid{uint32_t(N / o.bn), uint32_t(M / o.bm), 1};
  auto launch = [&] {
    std::vector<tessera::KernelArg> args{*da, *db, *dc};
    if (o.bias) args.emplace_back(*dbias);
    if (o.pushSizes) args.insert(args.end(), {int32_t(N), int32_t(K)});
    return kernel->launch(grid, args);
  };
  if (tessera::Status s = launch(); !s || !(s = dev->synchronize())) {
    std::fprintf(stderr, "launch: %s\n", s.message().c_str());
    return 1;
  }

  // Check: whole rows, sampled at random, against float64 from the rounded inputs; scaled by the
  // sum of |products| (what f32 accumulation can be held to).
  std::vector<uint8_t> c(outBytes);
  if (!dc->download(c.data(), outBytes)) {
    std::fprintf(stderr, "download failed\n");
    return 1;
  }
  std::vector<double> bt(K * N);
  for (size_t i = 0; i < K * N; ++i) bt[i] = value(b[i]);
  double worst = 0;
  size_t unwritten = 0;
  std::uniform_int_distribution<size_t> pickRow(0, M - 1);
  for (int r = 0; r < o.rows; ++r) {
    size_t i = pickRow(rng);
    std::vector<double> ref(bias.begin(), bias.end()), mag(N, 0.0);
    for (size_t j = 0; j < N; ++j) mag[j] = std::fabs(ref[j]);
    for (size_t kk = 0; kk < K; ++kk) {
      double av = value(a[i * K + kk]);
      const double *brow = &bt[kk * N];
      for (size_t j = 0; j < N; ++j) {
        ref[j] += av * brow[j];
        mag[j] += std::fabs(av * brow[j]);
      }
    }
    for (size_t j = 0; j < N; ++j) {
      double got;
      if (outType == tessera::DType::F16) {
        tessera::f16 h;
        std::memcpy(&h.bits, &c[(i * N + j) * 2], 2);
        got = h.toFloat();
      } else {
        float f;
        std::memcpy(&f, &c[(i * N + j) * 4], 4);
        got = f;
      }
      if (!std::isfinite(got)) {
        ++unwritten;
        continue;
      }
      // f16 output adds its own rounding: half an ulp of the result.
      double allowed = 1e-5 * mag[j] + (outType == tessera::DType::F16 ? std::fabs(ref[j]) * 0x1p-11 : 0.0) + 1e-30;
      worst = std::max(worst, std::fabs(got - ref[j]) / allowed);
    }
  }
  bool ok = unwritten == 0 && worst <= 1.0;
  std::printf("check: %d random rows, %zu non-finite, worst error %.3g of its bound: %s\n", o.rows, unwritten, worst,
              ok ? "ok" : "WRONG");
  if (!ok) return 1;

  for (int i = 0; i < 20; ++i)
    if (tessera::Status s = launch(); !s) return 1;
  if (!dev->synchronize()) return 1;
  if (!dev->beginTiming()) return 1;
  for (int i = 0; i < o.repeat; ++i)
    if (tessera::Status s = launch(); !s) return 1;
  auto seconds = dev->endTiming();
  if (!seconds || seconds->empty()) {
    std::fprintf(stderr, "timing failed\n");
    return 1;
  }
  std::sort(seconds->begin(), seconds->end());
  const double flops = 2.0 * double(M) * double(N) * double(K), median = (*seconds)[seconds->size() / 2];
  std::printf("timed %d launches: median %.4f ms, %.1f TFLOP/s (fastest %.1f, slowest %.1f)\n", o.repeat, median * 1e3,
              flops / median / 1e12, flops / seconds->front() / 1e12, flops / seconds->back() / 1e12);
  for (const tessera::KernelStatistic &s : kernel->statistics()) std::printf("  %s: %g\n", s.name.c_str(), s.value);
  return 0;
}
