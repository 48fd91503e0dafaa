// tessera-wgmatrix-probe: runs SPIR-V matmul modules written with workgroup-scope cooperative
// matrices (VK_NV_cooperative_matrix2; bench/wgmatrix/gen_wg_matmul.py writes them, and the
// compiler's +wgmat variants are such modules) through the Tessera runtime on a Vulkan device,
// checks sampled rows of C against float64 and times them, in turns within one process.
// A measuring instrument: it answers how fast the driver's own staging of workgroup-scope matrices
// is, and what separates a compiled kernel from a hand-written one. A probe module reads A
// (binding 0, M x K f16), B (binding 1, K x N f16) and writes C (binding 2, M x N f16 or f32), all
// row-major, one workgroup per BM x BN block of C; its sizes are baked in and must match the ones
// given here.
//
//   tessera-wgmatrix-probe --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256
//                          [--out=f16|f32] [--in=f16|bf16] [--repeat=50] [--rows=16] [--rounds=1]
//                          [--shapes] CASE...
//   CASE: --spv=FILE[@OPT,OPT...] | --package=FILE
//
// Each case is loaded and checked, then every round times each case in turn (a process the
// driver runs slowly shows in every case of it, not in one).
// OPTs of a module: push-sizes (N and K go to it as push constants, bytes 0 and 4:
// gen_wg_matmul.py --push-sizes), bias (C = A @ B + bias, bias N f32 at binding 3:
// gen_wg_matmul.py --bias), grid1d (one row of M/BM * N/BN programs: gen_wg_matmul.py --grouped),
// nv-extension (inserts OpExtension "SPV_NV_cooperative_matrix2", which MLIR 22 cannot name),
// tessera (the module has the ABI of --package's kernel: it is an edit of that code).
// --package=FILE: the workgroup-matrix (+wgmat) artifact of a package from 05_matmul
// --write-package (arguments a, b, bias, c, M, N, K; one row of programs), run as plain code;
// with --write-spv=FILE its SPIR-V words go to FILE instead (no device needed), for edit_compiled.py.
// The older global flags --spv=FILE --push-sizes --bias --grid1d --nv-extension still work: the
// last four apply to every module. --shapes prints the device's cooperative-matrix shapes and
// limits. Exit status: 0 checked and timed, 1 a wrong result or a failed step, 2 bad usage, 3 no
// device with workgroup-scope cooperative matrices.
#include "tessera/runtime/Runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

struct CaseSpec {
  std::string path;
  bool pushSizes = false, bias = false, grid1d = false, nvExtension = false, tessera = false, package = false, unbiased = false;
};

struct Options {
  std::string out = "f16", in = "f16", package, writeSpv;
  int m = 0, n = 0, k = 0, bm = 0, bn = 0, wg = 0, repeat = 50, rows = 16, rounds = 1;
  bool shapes = false;
  CaseSpec every; // the older global flags: options of every module
  std::vector<CaseSpec> cases;
};

// One module option (the --spv=FILE@OPT list's, or an older global flag without its "--").
bool setOption(CaseSpec &c, const std::string &opt) {
  if (opt == "push-sizes") c.pushSizes = true;
  else if (opt == "bias") c.bias = true;
  else if (opt == "grid1d") c.grid1d = true;
  else if (opt == "nv-extension") c.nvExtension = true;
  else if (opt == "tessera") c.tessera = true;
  else if (opt == "unbiased") c.unbiased = true;
  else return false;
  return true;
}

bool parseCase(const std::string &text, CaseSpec &c) {
  size_t at = text.find('@');
  c.path = text.substr(0, at);
  if (c.path.empty()) return false;
  std::string opts = at == std::string::npos ? std::string() : text.substr(at + 1);
  for (size_t pos = 0; pos < opts.size();) {
    size_t end = opts.find(',', pos);
    std::string opt = opts.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (!setOption(c, opt)) {
      std::fprintf(stderr, "unknown module option '%s' in '%s'\n", opt.c_str(), text.c_str());
      return false;
    }
    pos = end == std::string::npos ? opts.size() : end + 1;
  }
  return true;
}

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t len = std::strlen(name);
      return a.compare(0, len, name) == 0 ? a.c_str() + len : nullptr;
    };
    if (const char *v = value("--spv=")) {
      if (!parseCase(v, o.cases.emplace_back())) return false;
    } else if (const char *v = value("--package=")) {
      o.package = v;
      o.cases.push_back({.path = v, .bias = true, .grid1d = true, .tessera = true, .package = true});
    } else if (const char *v = value("--write-spv=")) o.writeSpv = v;
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
    else if (const char *v = value("--rounds=")) o.rounds = std::atoi(v);
    else if (a == "--shapes") o.shapes = true;
    else if (a == "--nv-extension" || a == "--push-sizes" || a == "--bias" || a == "--grid1d") setOption(o.every, a.substr(2));
    else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  for (CaseSpec &c : o.cases) {
    if (c.tessera) {
      c.bias = !c.unbiased, c.grid1d = true; // the compiled kernel's ABI (unbiased: an edit that drops the add)
      continue;
    }
    c.pushSizes |= o.every.pushSizes, c.bias |= o.every.bias, c.grid1d |= o.every.grid1d, c.nvExtension |= o.every.nvExtension;
  }
  if (!o.writeSpv.empty()) {
    if (o.package.empty()) std::fprintf(stderr, "--write-spv needs --package\n");
    return !o.package.empty();
  }
  bool sizes = o.m > 0 && o.n > 0 && o.k > 0 && o.bm > 0 && o.bn > 0 && o.wg > 0;
  bool tesseraNeedsPackage = std::any_of(o.cases.begin(), o.cases.end(), [](const CaseSpec &c) { return c.tessera; }) &&
                             o.package.empty();
  if (o.cases.empty() || tesseraNeedsPackage || !sizes || o.m % o.bm || o.n % o.bn || (o.out != "f16" && o.out != "f32") ||
      (o.in != "f16" && o.in != "bf16") || o.repeat < 1 || o.rounds < 1) {
    std::fprintf(stderr, "usage: tessera-wgmatrix-probe --m=M --n=N --k=K --bm=BM --bn=BN --wg=WG [--out=f16|f32] "
                         "[--in=f16|bf16] [--repeat=R] [--rows=ROWS] [--rounds=N] [--shapes] "
                         "(--spv=FILE[@push-sizes,bias,grid1d,nv-extension,tessera] | --package=FILE)... "
                         "(BM divides M, BN divides N; a tessera module needs --package)\n");
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

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

/// One module under test, loaded.
struct Case {
  CaseSpec spec;
  std::string label;
  std::optional<tessera::Kernel> kernel;
};

/// The package's kernel with only its workgroup-matrix artifact, as plain code (no divisors:
/// the sizes here are the caller's to choose), or an error.
tessera::Result<tessera::KernelEntry> workgroupEntry(const std::string &path) {
  auto pkg = tessera::readPackageFile(path);
  if (!pkg) return pkg.status();
  for (const tessera::KernelEntry &k : pkg->kernels)
    for (const tessera::Artifact &a : k.artifacts) {
      if (!tessera::hasWorkgroupMatrices(a.target.chip)) continue;
      std::vector<std::string> names;
      for (const tessera::ArgSpec &arg : k.args) names.push_back(arg.name);
      if (names != std::vector<std::string>{"a", "b", "bias", "c", "M", "N", "K"})
        return tessera::Status(tessera::StatusCode::InvalidArgument,
                               path + ": kernel '" + k.name + "' does not take 05_matmul's arguments a, b, bias, c, M, N, K");
      tessera::KernelEntry e = k;
      e.artifacts = {a};
      e.artifacts[0].divisibleArgs.clear();
      e.artifacts[0].divisors.clear();
      return e;
    }
  return tessera::Status(tessera::StatusCode::NotFound, path + " holds no workgroup-matrix (+wgmat) artifact");
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  std::optional<tessera::KernelEntry> compiled;
  if (!o.package.empty()) {
    auto e = workgroupEntry(o.package);
    if (!e) {
      std::fprintf(stderr, "%s\n", e.status().message().c_str());
      return 2;
    }
    compiled = *e;
    if (!o.writeSpv.empty()) {
      const std::vector<uint8_t> &code = compiled->artifacts[0].code;
      std::ofstream file(o.writeSpv, std::ios::binary);
      if (!file.write(reinterpret_cast<const char *>(code.data()), std::streamsize(code.size()))) {
        std::fprintf(stderr, "%s: cannot write\n", o.writeSpv.c_str());
        return 1;
      }
      return 0;
    }
  }

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
  std::vector<Case> cases;
  for (const CaseSpec &spec : o.cases) {
    Case &c = cases.emplace_back();
    c.spec = spec;
    c.label = spec.path.substr(spec.path.find_last_of('/') + 1);
    tessera::Package pkg;
    tessera::KernelEntry &k = pkg.kernels.emplace_back();
    if (spec.tessera) {
      k = *compiled;
      if (!spec.package) k.artifacts[0].code = readFile(spec.path);
      // The runtime takes +wgmat code only as a variant; here it is the plain code.
      k.artifacts[0].target.chip = "vulkan1.3+coopmat";
    } else {
      k.name = "wgmm";
      k.numWarps = uint32_t(o.wg / 32);
      k.args = {{"a", tessera::ArgKind::Buffer, tessera::DType::F16, 0},
                {"b", tessera::ArgKind::Buffer, tessera::DType::F16, 1},
                {"c", tessera::ArgKind::Buffer, outType, 2}};
      if (spec.bias) k.args.push_back({"bias", tessera::ArgKind::Buffer, tessera::DType::F32, 3});
      if (spec.pushSizes)
        k.args.insert(k.args.end(), {{"n", tessera::ArgKind::Scalar, tessera::DType::I32, 0},
                                     {"k", tessera::ArgKind::Scalar, tessera::DType::I32, 4}});
      tessera::Artifact &art = k.artifacts.emplace_back();
      art.target = {tessera::TargetKind::SPIRV, "vulkan1.3+coopmat", 0, 32};
      art.entryPoint = "main";
      art.blockSize = {uint32_t(o.wg), 1, 1};
      art.code = readFile(spec.path);
      art.pushConstantBytes = spec.pushSizes ? 8 : 0;
    }
    std::vector<uint8_t> &code = k.artifacts[0].code;
    if (code.size() < 20 || code.size() % 4) {
      std::fprintf(stderr, "%s: not a SPIR-V module (%zu bytes)\n", spec.path.c_str(), code.size());
      return 2;
    }
    if (spec.nvExtension) code = withNvExtension(code);
    if (spec.tessera && k.artifacts[0].blockSize[0] != uint32_t(o.wg)) {
      std::fprintf(stderr, "%s: its workgroup has %u invocations, not --wg=%d\n", spec.path.c_str(), k.artifacts[0].blockSize[0], o.wg);
      return 2;
    }
    auto mod = dev->load(pkg);
    if (!mod) {
      std::fprintf(stderr, "%s: load: %s\n", c.label.c_str(), mod.status().message().c_str());
      return 1;
    }
    auto kernel = mod->kernel(k.name);
    if (!kernel) {
      std::fprintf(stderr, "%s: kernel: %s\n", c.label.c_str(), kernel.status().message().c_str());
      return 1;
    }
    c.kernel = *kernel;
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
  std::vector<float> bias(N);
  for (float &v : bias) v = uni(rng);
  auto dbias = dev->allocate(tessera::DType::F32, N);
  if (!da || !db || !dc || !dbias) {
    std::fprintf(stderr, "allocation failed\n");
    return 1;
  }
  const size_t outBytes = M * N * (outType == tessera::DType::F16 ? 2 : 4);
  if (!da->upload(a.data(), a.size() * 2) || !db->upload(b.data(), b.size() * 2) || !dbias->upload(bias.data(), N * 4)) {
    std::fprintf(stderr, "upload failed\n");
    return 1;
  }
  auto launch = [&](const Case &c) {
    const tessera::Grid grid = c.spec.grid1d ? tessera::Grid{uint32_t((N / o.bn) * (M / o.bm)), 1, 1}
                                             : tessera::Grid{uint32_t(N / o.bn), uint32_t(M / o.bm), 1};
    std::vector<tessera::KernelArg> args;
    if (c.spec.tessera) {
      args = {*da, *db, *dbias, *dc, int32_t(M), int32_t(N), int32_t(K)};
    } else {
      args = {*da, *db, *dc};
      if (c.spec.bias) args.emplace_back(*dbias);
      if (c.spec.pushSizes) args.insert(args.end(), {int32_t(N), int32_t(K)});
    }
    return c.kernel->launch(grid, args);
  };

  // Check each: whole rows, sampled at random, against float64 from the rounded inputs; scaled by
  // the sum of |products| (what f32 accumulation can be held to).
  std::vector<double> bt(K * N);
  for (size_t i = 0; i < K * N; ++i) bt[i] = value(b[i]);
  std::vector<uint8_t> poison(outBytes, 0xff), c(outBytes); // NaN in both types: unwritten elements show
  std::uniform_int_distribution<size_t> pickRow(0, M - 1);
  for (const Case &cs : cases) {
    if (!dc->upload(poison.data(), outBytes)) return 1;
    if (tessera::Status s = launch(cs); !s || !(s = dev->synchronize())) {
      std::fprintf(stderr, "%s: launch: %s\n", cs.label.c_str(), s.message().c_str());
      return 1;
    }
    if (!dc->download(c.data(), outBytes)) {
      std::fprintf(stderr, "download failed\n");
      return 1;
    }
    double worst = 0;
    size_t unwritten = 0;
    for (int r = 0; r < o.rows; ++r) {
      size_t i = pickRow(rng);
      std::vector<double> ref(N, 0.0), mag(N, 0.0);
      if (cs.spec.bias)
        for (size_t j = 0; j < N; ++j) ref[j] = bias[j], mag[j] = std::fabs(bias[j]);
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
    std::printf("%s: check: %d random rows, %zu non-finite, worst error %.3g of its bound: %s\n", cs.label.c_str(), o.rows,
                unwritten, worst, ok ? "ok" : "WRONG");
    if (!ok) return 1;
  }

  const double flops = 2.0 * double(M) * double(N) * double(K);
  for (int round = 1; round <= o.rounds; ++round)
    for (const Case &cs : cases) {
      for (int i = 0; i < 10; ++i)
        if (tessera::Status s = launch(cs); !s) return 1;
      if (!dev->synchronize() || !dev->beginTiming()) return 1;
      for (int i = 0; i < o.repeat; ++i)
        if (tessera::Status s = launch(cs); !s) return 1;
      auto seconds = dev->endTiming();
      if (!seconds || seconds->empty()) {
        std::fprintf(stderr, "timing failed\n");
        return 1;
      }
      std::sort(seconds->begin(), seconds->end());
      const double median = (*seconds)[seconds->size() / 2];
      std::printf("round %d %s: timed %d launches: median %.4f ms, %.1f TFLOP/s (fastest %.1f, slowest %.1f)\n", round,
                  cs.label.c_str(), o.repeat, median * 1e3, flops / median / 1e12, flops / seconds->front() / 1e12,
                  flops / seconds->back() / 1e12);
    }
  for (const Case &cs : cases)
    for (const tessera::KernelStatistic &s : cs.kernel->statistics())
      std::printf("  %s: %s: %g\n", cs.label.c_str(), s.name.c_str(), s.value);
  return 0;
}
