// tl::for_range and tl::dot: tracing and its errors, the interpreter's order, and a tiled matmul
// over ragged shapes on every device present, for every operand type: portable results
// bit-identical to the interpreter, fast results within the error bound of a float64 product.
#include "TestSupport.hpp"

#include "tessera/interpreter.hpp"

#include <cmath>
#include <cstring>

using namespace tessera;
using namespace tessera::test;

namespace {

template <class T> T drawValue(std::mt19937 &rng) {
  if constexpr (std::is_same_v<T, int8_t>) {
    return int8_t(std::uniform_int_distribution<int>(-128, 127)(rng));
  } else {
    float v = std::uniform_real_distribution<float>(-2.f, 2.f)(rng);
    if constexpr (std::is_same_v<T, float>) return v;
    else return T::fromFloat(v);
  }
}
template <class T> double valueOf(T v) {
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, float>) return double(v);
  else return double(v.toFloat());
}

struct Shape {
  int M, N, K;
};

/// Runs the matmul on every device and checks it, for one operand type and mode (b stored
/// N x K and multiplied through tl::trans with `bTransposed`).
template <class T, class Acc>
/// With `lanes`, SPIR-V devices run the kernel as compiled for subgroups of that many lanes (its
/// artifact then relabelled for the device's): for code whose results do not hang on the
/// hardware's subgroups, such as a dot on the FMA path, whose layout only names threads.
void checkMatmul(Numerics mode, Shape s, int BM, int BN, int BK, bool bTransposed = false, uint32_t warps = 4,
                 uint32_t lanes = 0) {
  const uint32_t seed = freshSeed();
  std::mt19937 rng(seed);
  std::vector<T> a(size_t(s.M) * s.K), b(size_t(s.K) * s.N);
  for (T &v : a) v = drawValue<T>(rng);
  for (T &v : b) v = drawValue<T>(rng);
  TracedKernel kernel = require(traceMatmul<T, Acc>(BM, BN, BK, mode, warps, bTransposed), "trace");
  auto bAt = [&](int k, int n) { return b[bTransposed ? size_t(n) * s.K + k : size_t(k) * s.N + n]; };
  Grid grid{uint32_t((s.M + BM - 1) / BM), uint32_t((s.N + BN - 1) / BN)};

  HostBuffer golden(DTypeOf<Acc>::value, size_t(s.M) * s.N);
  HostBuffer ha = HostBuffer::of(a), hb = HostBuffer::of(b);
  Status run = interpret(kernel, grid, {ha, hb, golden, s.M, s.N, s.K});
  REQUIRE_MESSAGE(run.ok(), run.toString());
  const Acc *want = golden.data<Acc>();

  // The float64 product, and Σ|a||b| per element for the fast-mode bound.
  std::vector<double> exact(golden.count()), magnitude(golden.count());
  for (int m = 0; m < s.M; ++m)
    for (int n = 0; n < s.N; ++n) {
      double sum = 0, mag = 0;
      for (int k = 0; k < s.K; ++k) {
        double p = valueOf(a[size_t(m) * s.K + k]) * valueOf(bAt(k, n));
        sum += p, mag += std::fabs(p);
      }
      exact[size_t(m) * s.N + n] = sum, magnitude[size_t(m) * s.N + n] = mag;
    }
  // The interpreter itself: integers exact; floats within K roundings of the sum's magnitude.
  for (size_t i = 0; i < exact.size(); ++i) {
    if constexpr (std::is_same_v<Acc, int32_t>)
      REQUIRE_MESSAGE(double(want[i]) == exact[i], "interpreter [" << i << "] seed " << seed);
    else
      REQUIRE_MESSAGE(std::fabs(double(want[i]) - exact[i]) <= s.K * 0x1p-24 * magnitude[i],
                      "interpreter [" << i << "] = " << want[i] << ", exact " << exact[i] << " seed " << seed);
  }

  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE(rt.ok());
  bool any = false;
  for (const DeviceInfo &d : (*rt)->devices())
    for (const BackendInfo &bi : d.backends) {
      std::shared_ptr<Device> dev = require((*rt)->open(d.index, bi.backend), "open");
      TargetDesc target = dev->target();
      if (lanes && target.kind == TargetKind::SPIRV)
        target.subgroupSize = lanes;
      Result<Package> pkg = compile(kernel, target);
      if (!pkg && pkg.status().code() == StatusCode::Unsupported) {
        MESSAGE(dev->describe() << ": " << pkg.status().toString());
        continue;
      }
      if (pkg)
        for (KernelEntry &pk : pkg->kernels)
          for (Artifact &art : pk.artifacts)
            art.target.subgroupSize = dev->target().subgroupSize;
      Module loaded = require(dev->load(require(std::move(pkg), "compile")), "load");
      Kernel k = require(loaded.kernel("matmul"), "kernel");
      Buffer da = require(dev->allocate(DTypeOf<T>::value, a.size()), "allocate");
      Buffer db = require(dev->allocate(DTypeOf<T>::value, b.size()), "allocate");
      Buffer dc = require(dev->allocate(DTypeOf<Acc>::value, golden.count()), "allocate");
      REQUIRE(da.upload(std::span<const T>(a)).ok());
      REQUIRE(db.upload(std::span<const T>(b)).ok());
      std::vector<uint8_t> poison(dc.bytes(), 0xFF);
      REQUIRE(dc.upload(poison.data(), poison.size()).ok());
      Status launched = k.launch(grid, {da, db, dc, s.M, s.N, s.K});
      REQUIRE_MESSAGE(launched.ok(), launched.toString());
      std::vector<Acc> got(golden.count());
      REQUIRE(dc.download(std::span<Acc>(got)).ok());
      size_t bad = 0;
      std::string first;
      for (size_t i = 0; i < got.size(); ++i) {
        bool ok;
        if (mode == Numerics::Portable || std::is_same_v<Acc, int32_t>)
          ok = std::memcmp(&got[i], &want[i], sizeof(Acc)) == 0;
        else // fast: any order, fused or not
          ok = std::fabs(double(got[i]) - exact[i]) <= s.K * 0x1p-23 * magnitude[i];
        if (!ok && bad++ < 4)
          first += " [" + std::to_string(i) + "] " + std::to_string(double(got[i])) + " vs " + std::to_string(double(want[i]));
      }
      CHECK_MESSAGE(bad == 0, dev->describe() << " " << toString(mode) << (bTransposed ? " b transposed " : " ") << s.M
                                              << "x" << s.N << "x" << s.K << ": " << bad
                                              << " of " << got.size() << " wrong (seed " << seed << "):" << first);
      any = true;
    }
  if (!any)
    skipTest("no device present: the matmul was checked on the interpreter only");
}

} // namespace

TEST_CASE("for_range carries tiles through a device loop and the interpreter runs it") {
  // out[i] = Σ_{k < n, step 3} (k + i): a loop whose trip count is a kernel argument.
  auto kernel = [](tl::Ptr<int32_t> out, tl::Scalar<int32_t> n) {
    tl::Tile i = tl::arange(0, 64);
    std::vector<tl::Tile> st = tl::for_range(0, n, 3, {tl::zeros({64}, DType::I32), tl::zeros({}, DType::I32)},
                                             [&](const tl::Tile &k, const std::vector<tl::Tile> &s) {
                                               return std::vector<tl::Tile>{s[0] + (i + k), s[1] + 1};
                                             });
    tl::store(out + i, st[0] * 1000 + st[1]);
  };
  TracedKernel k = require(trace("loop", kernel), "trace");
  CHECK(contains(k.tileIR(), "scf.for"));
  for (int32_t n : {0, 1, 7, 30}) {
    HostBuffer out(DType::I32, 64);
    REQUIRE(interpret(k, {1}, {out, n}).ok());
    int32_t trips = n > 0 ? (n + 2) / 3 : 0;
    for (int32_t i = 0; i < 64; ++i) {
      int32_t sum = 0;
      for (int32_t kk = 0; kk < n; kk += 3) sum += kk + i;
      CHECK(out.data<int32_t>()[i] == sum * 1000 + trips);
    }
  }
}

TEST_CASE("for_range and dot report mistakes at the user's line") {
  auto errorOf = [](auto fn) {
    Result<TracedKernel> k = trace("bad", fn);
    REQUIRE_FALSE(k.ok());
    return k.status().message();
  };
  std::string escaped = errorOf([](tl::Ptr<float> out) {
    tl::Tile inner;
    tl::Tile r = tl::for_range(0, 4, 1, tl::zeros({16}, DType::F32), [&](const tl::Tile &, const tl::Tile &s) {
      inner = s + 1.0f;
      return inner;
    });
    tl::store(out + tl::arange(0, 16), inner + r);
  });
  CHECK(contains(escaped, "DotTests.cpp:"));
  CHECK(contains(escaped, "inside a for_range body"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::for_range(0, 4, 1, tl::zeros({16}, DType::F32),
                               [&](const tl::Tile &, const tl::Tile &s) { return tl::cast(s, DType::F16); });
    tl::store(out + tl::arange(0, 16), r);
  }), "the state keeps its shape and dtype"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::for_range(0, 4, 0, tl::zeros({16}, DType::F32), [&](const tl::Tile &, const tl::Tile &s) { return s; });
    tl::store(out + tl::arange(0, 16), r);
  }), "must be a positive"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::dot(tl::zeros({16, 32}, DType::F32), tl::zeros({16, 16}, DType::F32));
    tl::store(out + tl::reshape(tl::arange(0, 256), {16, 16}), r);
  }), "inner dimensions differ"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::dot(tl::zeros({8, 16}, DType::F32), tl::zeros({16, 16}, DType::F32));
    tl::store(out + tl::reshape(tl::arange(0, 128), {8, 16}), r);
  }), "at least 16"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::dot(tl::zeros({16, 16}, DType::F16), tl::zeros({16, 16}, DType::F32));
    tl::store(out + tl::reshape(tl::arange(0, 256), {16, 16}), r);
  }), "same dtype"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::dot(tl::zeros({16, 16}, DType::I32), tl::zeros({16, 16}, DType::I32));
    tl::store(out + tl::reshape(tl::arange(0, 256), {16, 16}), tl::cast(r, DType::F32));
  }), "no i32 form"));
  CHECK(contains(errorOf([](tl::Ptr<float> out) {
    tl::Tile r = tl::dot(tl::zeros({16, 16}, DType::F16), tl::zeros({16, 16}, DType::F16), tl::zeros({16, 16}, DType::F16));
    tl::store(out + tl::reshape(tl::arange(0, 256), {16, 16}), tl::cast(r, DType::F32));
  }), "accumulator"));
}

TEST_CASE("the interpreter's dot adds k = 0, 1, ... in order, each product and sum rounded") {
  // acc = 1, products 2^-24 each: added one at a time, every sum rounds back to 1 (ties to
  // even); a tree or a fused order would keep some of them.
  auto kernel = [](tl::Ptr<float> a, tl::Ptr<float> b, tl::Ptr<float> out) {
    tl::Tile idx = tl::reshape(tl::arange(0, 256), {16, 16});
    tl::Tile r = tl::dot(tl::load(a + idx), tl::load(b + idx), tl::full({16, 16}, 1.0, DType::F32));
    tl::store(out + idx, r);
  };
  TracedKernel k = require(trace("order", kernel, {.numerics = Numerics::Portable}), "trace");
  std::vector<float> a(256, 0x1p-12f), b(256, 0x1p-12f);
  HostBuffer out(DType::F32, 256);
  HostBuffer ha = HostBuffer::of(a), hb = HostBuffer::of(b);
  REQUIRE(interpret(k, {1}, {ha, hb, out}).ok());
  for (size_t i = 0; i < 256; ++i)
    CHECK(out.data<float>()[i] == 1.0f);
}

TEST_CASE("dot lowers to fused multiply-adds in fast mode and to separate rounded ops in portable mode (PTX)") {
  auto fmaCount = [](const std::string &ptx) {
    size_t n = 0;
    for (size_t at = ptx.find("fma.rn.f32"); at != std::string::npos; at = ptx.find("fma.rn.f32", at + 1)) ++n;
    return n;
  };
  TracedKernel fast = require(traceMatmul<float, float>(32, 32, 16, Numerics::Fast), "trace");
  TracedKernel portable = require(traceMatmul<float, float>(32, 32, 16, Numerics::Portable), "trace");
  std::string fastPtx = ptxText(require(compileArtifact(fast, nvptxTarget("sm_90")), "compile"));
  std::string portablePtx = ptxText(require(compileArtifact(portable, nvptxTarget("sm_90")), "compile"));
  CHECK(fmaCount(fastPtx) >= 8);
  CHECK(fmaCount(portablePtx) == 0);
  CHECK(contains(portablePtx, "mul.rn.f32"));
  CHECK(contains(portablePtx, "add.rn.f32"));
  CHECK(contains(fastPtx, "bar.sync"));
}

TEST_CASE("an FMA-path dot loads each k step's values of A and B as 16-byte runs, its threads split to load fewest") {
  // 64 x 256 over 8 warps: 32 threads across the columns (subgroups of 4 x 8 lanes on a 2 x 4
  // grid), each 8 rows and 8 columns, so a k step is 2 16-byte loads of A (staged transposed, the
  // thread's rows side by side) and 2 of B for 64 multiply-adds. TESSERA_FMA_LAYOUT=0 keeps the
  // plain split: 16 rows and 4 columns a thread. The block holds the dot's whole K (16 k steps:
  // fma-unroll, 32 by default on NVPTX, capped at K).
  auto loopOf = [](const std::string &ptx) { // the k loop: between its label and its back branch
    const size_t fma = ptx.find("fma.rn.f32");
    REQUIRE(fma != std::string::npos);
    const size_t begin = ptx.rfind("$L__BB", fma), end = ptx.find("bra", fma);
    return ptx.substr(begin, end - begin);
  };
  auto ptxOf = [](const char *chip) {
    return ptxText(require(compileArtifact(require(traceMatmul<float, float>(64, 256, 16, Numerics::Fast, 8), "trace"),
                                           nvptxTarget(chip)),
                           "compile"));
  };
  const std::string loop = loopOf(ptxOf("sm_90"));
  CHECK(count(loop, "fma.rn.f32") == 16 * 64);
  CHECK(count(loop, "ld.shared.v4") == 16 * 4);
  CHECK(count(loop, "ld.shared") == 16 * 4);
  ::setenv("TESSERA_FMA_LAYOUT", "0", 1);
  const std::string plain = loopOf(ptxOf("sm_90"));
  ::unsetenv("TESSERA_FMA_LAYOUT");
  CHECK(count(plain, "fma.rn.f32") == 16 * 64);
  CHECK(count(plain, "ld.shared.v4") == 16 * 5); // 16 rows of A in 4 loads, 4 columns of B in 1
  CHECK(count(plain, "ld.shared") == 16 * 5);
}

TEST_CASE("fast f16 and bf16 dots use tensor cores (mma.sync) from sm_80, not portable, f32, i8 or sm_75 ones") {
  auto ptxOf = [](const Result<TracedKernel> &k, const char *chip) {
    return ptxText(require(compileArtifact(require(Result<TracedKernel>(k), "trace"), nvptxTarget(chip)), "compile"));
  };
  std::string halfPtx = ptxOf(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "sm_90");
  std::string brainPtx = ptxOf(traceMatmul<bf16, float>(64, 32, 16, Numerics::Fast), "sm_80");
  CHECK(contains(halfPtx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  CHECK(contains(brainPtx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  CHECK_FALSE(contains(halfPtx, "fma.rn.f32")); // the whole product on the tensor cores
  // Fragments come from shared memory through ldmatrix: A's four 8 x 8 matrices at once, B's
  // transposed from its row-major staging, two column blocks at once.
  for (const std::string &ptx : {halfPtx, brainPtx}) {
    CHECK(contains(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    CHECK(contains(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  }
  for (const std::string &ptx : {ptxOf(traceMatmul<f16, float>(64, 64, 32, Numerics::Portable), "sm_90"),
                                 ptxOf(traceMatmul<float, float>(32, 32, 16, Numerics::Fast), "sm_90"),
                                 ptxOf(traceMatmul<int8_t, int32_t>(32, 32, 32, Numerics::Fast), "sm_90"),
                                 ptxOf(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "sm_75")})
    CHECK_FALSE(contains(ptx, "mma.sync"));
  // A and B, loaded in the k loop for the dot alone, come from their buffers by cp.async
  // straight into shared memory, the copies for the next two k steps in flight during each.
  for (const std::string &ptx : {halfPtx, brainPtx}) {
    CHECK(contains(ptx, "cp.async.cg.shared.global"));
    CHECK(contains(ptx, "cp.async.wait_group \t1;"));
  }
  // The SPIR-V of the same fast kernel has no matrix units: it takes the FMA path, which stages
  // both operands as f32 (A transposed, in rows of M + 4; from sm_80 on the FMA path would take
  // two halves, fma-halves); the tensor-core path stages them as f16, each row padded by 8
  // elements, in 3 stages, and keeps the accumulator in registers.
  TracedKernel k = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "trace");
  Artifact spirv = require(compileArtifact(k, spirvTarget(32)), "compile");
  Artifact sm75 = require(compileArtifact(k, nvptxTarget("sm_75")), "compile");
  Artifact sm90 = require(compileArtifact(k, nvptxTarget("sm_90")), "compile");
  CHECK(spirv.sharedMemBytes == sm75.sharedMemBytes);
  CHECK(sm75.sharedMemBytes == (32 * (64 + 4) + 32 * 64) * 4);
  CHECK(sm90.sharedMemBytes == 3 * (64 * (32 + 8) + 32 * (64 + 8)) * 2);
  CHECK_FALSE(contains(ptxText(sm75), "cp.async"));
  // Past CUDA's 48 KiB of static shared memory (128 x 128 x 32 blocks in 3 stages: 57 KiB) the
  // arrays are ranges of one dynamic array, which the runtime sizes at launch.
  Artifact big = require(compileArtifact(require(traceMatmul<f16, float>(128, 128, 32, Numerics::Fast, 8), "trace"),
                                         nvptxTarget("sm_90")),
                         "compile");
  CHECK(big.sharedMemBytes == 3 * (128 * (32 + 8) + 32 * (128 + 8)) * 2);
  CHECK(contains(ptxText(big), ".extern .shared .align 16 .b8 __tessera_dynamic_shared[]"));
  CHECK_FALSE(contains(ptxText(sm90), "__tessera_dynamic_shared"));
}

TEST_CASE("on sm_90a fast f16 and bf16 dots of loaded tiles run on the warpgroup units (wgmma)") {
  auto compiled = [](Result<TracedKernel> k, const char *chip) {
    return require(compileArtifact(require(std::move(k), "trace"), nvptxTarget(chip)), "compile");
  };
  // 128 x 256 x 64 over 8 warps (2 warpgroups): one m64n256k16 per warpgroup and 16-deep step,
  // A and B by cp.async in 4 stages of (128 + 256) x 64 f16, unpadded, aligned to 1024 bytes (the
  // units' swizzle), past 48 KiB: dynamic shared memory. The batch stays in flight into the next
  // k step (wait_group 1), and the last is waited for after the loop.
  for (Artifact a : {compiled(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90a"),
                     compiled(traceMatmul<bf16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90a")}) {
    const std::string ptx = ptxText(a);
    CHECK(contains(ptx, ".target sm_90a"));
    CHECK((contains(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") ||
           contains(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16")));
    CHECK_FALSE(contains(ptx, "mma.sync"));
    CHECK_FALSE(contains(ptx, "ldmatrix"));
    CHECK(contains(ptx, "fence.proxy.async.shared::cta"));
    CHECK(contains(ptx, "wgmma.wait_group.sync.aligned \t1;"));
    CHECK(contains(ptx, "wgmma.wait_group.sync.aligned \t0;"));
    CHECK(contains(ptx, ".extern .shared .align 1024 .b8 __tessera_dynamic_shared[]"));
    CHECK(a.sharedMemBytes == 4 * (128 + 256) * 64 * 2);
  }
  // Each iteration issues its copies for the iteration ahead after committing its instructions
  // (copies-after-mma), so the wait for the batch before is not right after the commit; with
  // TESSERA_COPIES_AFTER_MMA=0 the copies go first and the wait follows the commit at once.
  auto waitAfterCommit = [&] {
    const std::string ptx = ptxText(compiled(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90a"));
    REQUIRE(contains(ptx, "wgmma.wait_group.sync.aligned \t1;"));
    return contains(ptx, "wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned \t1;");
  };
  CHECK_FALSE(waitAfterCommit());
  ::setenv("TESSERA_COPIES_AFTER_MMA", "0", 1);
  CHECK(waitAfterCommit());
  ::unsetenv("TESSERA_COPIES_AFTER_MMA");
  // TESSERA_WAIT_BEFORE_COPIES=1 (wait-before-copies) keeps the copies after the commit but puts
  // the wait between them: commit, wait, then the branch around the copies.
  ::setenv("TESSERA_WAIT_BEFORE_COPIES", "1", 1);
  CHECK(waitAfterCommit());
  {
    const std::string ptx = ptxText(compiled(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90a"));
    const size_t wait = ptx.find("wgmma.wait_group.sync.aligned \t1;");
    REQUIRE(wait != std::string::npos);
    CHECK(ptx.find("cp.async.cg.shared.global", wait) < ptx.find("cp.async.wait_group", wait));
  }
  ::unsetenv("TESSERA_WAIT_BEFORE_COPIES");
  // 128 x 128 x 64: a fourth stage (128 KiB) would keep a second program off the multiprocessor,
  // so 3 stages, each batch waited for at once.
  Artifact three = compiled(traceMatmul<f16, float>(128, 128, 64, Numerics::Fast, 8), "sm_90a");
  CHECK(three.sharedMemBytes == 3 * (128 + 128) * 64 * 2);
  CHECK(contains(ptxText(three), "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"));
  CHECK_FALSE(contains(ptxText(three), "wgmma.wait_group.sync.aligned \t1;"));
  // B stored N x K (transpose_b) lies K-major like A: no transpose bit for B.
  const std::string nt = ptxText(compiled(traceMatmul<f16, float>(128, 128, 32, Numerics::Fast, 8, true), "sm_90a"));
  CHECK(contains(nt, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"));
  CHECK(contains(nt, "p, 1,  1, 0,  0;"));
  CHECK(contains(ptxText(three), "p, 1,  1, 0,  1;")); // B as it lies (K x N): N-major
  // Not on sm_90 (no wgmma there), nor in portable mode, nor for f32.
  CHECK_FALSE(contains(ptxText(compiled(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90")), "wgmma"));
  CHECK_FALSE(contains(ptxText(compiled(traceMatmul<f16, float>(64, 64, 32, Numerics::Portable), "sm_90a")), "wgmma"));
  CHECK_FALSE(contains(ptxText(compiled(traceMatmul<float, float>(64, 64, 32, Numerics::Fast), "sm_90a")), "wgmma"));
}

TEST_CASE("a pipelined dot's variant for multiples of 16 copies each run once, zero-filled where masked") {
  // The plain code copies a thread's runs in one branch where all are whole, else element by
  // element; the variant for N and K multiples of 16 (arguments 4 and 5) proves every 16-byte run
  // of A (along K) and B (along N) whole or wholly masked off, so each is one cp.async that reads
  // 16 bytes or none (src-size 0: zeros), with no element path (run 84: 255 registers -> 211, the
  // 128 x 256 x 64 matmul +3-5%, 128 x 128 x 64 +13%, docs/bench.md).
  for (const char *chip : {"sm_80", "sm_90a"}) {
    CAPTURE(chip);
    const Package p = require(compile(require(traceMatmul<f16, float>(128, 128, 64, Numerics::Fast, 8), "trace"), nvptxTarget(chip)),
                              "compile");
    REQUIRE(p.kernels[0].artifacts.size() == 2);
    const Artifact &plain = p.kernels[0].artifacts[0], &variant = p.kernels[0].artifacts[1];
    CHECK(plain.divisibleArgs.empty());
    CHECK(variant.divisibleArgs == std::vector<uint32_t>{4, 5});
    const std::string general = ptxText(plain), specialized = ptxText(variant);
    CHECK(contains(general, "ld.global.b16"));
    CHECK_FALSE(contains(general, "], 16, %r"));
    CHECK_FALSE(contains(specialized, "ld.global.b16"));
    CHECK(contains(specialized, "cp.async.cg.shared.global"));
    CHECK(contains(specialized, "], 16, %r")); // the source size operand
  }
}

TEST_CASE("a matrix-unit accumulator stored as f16 goes through shared memory as 16-byte runs where they are whole") {
  // The accumulator's layout gives each thread runs of 2 along a row (4-byte stores of f16). Where
  // the variant proves the store's 16-byte runs whole, the tile goes through shared memory in
  // bands of 64 rows (one row of threads' worth), and each thread stores 16-byte runs: 128 x 256
  // on 8 warps, 16 of them a thread, in the memory the 4 stages leave (a band of 64 x 256 f16,
  // its chunks permuted, not padded); 128 x 128 in what two programs a multiprocessor leave.
  // mma.sync's accumulators (sm_80) too. The plain code and TESSERA_STORE_STAGING=0 store the
  // runs of 2 as they lie.
  struct Case {
    const char *chip;
    int BN;
    int64_t bandRows; // rows of the band in shared memory
  };
  for (Case c : {Case{"sm_90a", 256, 64}, Case{"sm_90a", 128, 64}, Case{"sm_80", 128, 128}}) {
    CAPTURE(c.chip);
    CAPTURE(c.BN);
    auto compiled = [&] {
      Package p = require(compile(require(traceMatmul<f16, float, f16>(128, c.BN, 64, Numerics::Fast, 8), "trace"),
                                  nvptxTarget(c.chip)),
                          "compile");
      REQUIRE(p.kernels[0].artifacts.size() == 2);
      CHECK(p.kernels[0].artifacts[1].divisibleArgs == std::vector<uint32_t>{4, 5});
      return p.kernels[0].artifacts;
    };
    const std::vector<Artifact> artifacts = compiled();
    ::setenv("TESSERA_STORE_STAGING", "0", 1);
    const std::vector<Artifact> unstaged = compiled();
    ::unsetenv("TESSERA_STORE_STAGING");
    const std::string plain = ptxText(artifacts[0]), variant = ptxText(artifacts[1]);
    CHECK(count(variant, "st.global.v4.b32") == size_t(128 * c.BN / 256 / 8));
    CHECK_FALSE(contains(variant, "st.global.b32"));
    CHECK(contains(variant, "ld.shared.v4.b32"));
    CHECK(artifacts[1].sharedMemBytes == unstaged[1].sharedMemBytes + c.bandRows * c.BN * 2);
    CHECK_FALSE(contains(plain, "st.global.v4.b32"));
    CHECK(contains(plain, "st.global.v2.b16"));
    CHECK(artifacts[0].sharedMemBytes == unstaged[0].sharedMemBytes);
    CHECK_FALSE(contains(ptxText(unstaged[1]), "st.global.v4.b32"));
    CHECK(contains(ptxText(unstaged[1]), "st.global.b32"));
  }
  // Where a band of 64 full rows does not fit, narrower blocks: 128 x 256 x 64 on sm_80 (mma.sync,
  // 3 stages of 48 KiB and their padding in 163 KiB) leaves room for 64 x 64, 8 blocks of two
  // barriers each.
  {
    auto variantOf = [](bool staged) {
      if (!staged)
        ::setenv("TESSERA_STORE_STAGING", "0", 1);
      Package p = require(compile(require(traceMatmul<f16, float, f16>(128, 256, 64, Numerics::Fast, 8), "trace"),
                                  nvptxTarget("sm_80")),
                          "compile");
      ::unsetenv("TESSERA_STORE_STAGING");
      return p.kernels[0].artifacts[1];
    };
    const Artifact staged = variantOf(true), unstaged = variantOf(false);
    const std::string ptx = ptxText(staged);
    CHECK(count(ptx, "st.global.v4.b32") == 16);
    CHECK(count(ptx, "bar.sync") == count(ptxText(unstaged), "bar.sync") + 16);
    CHECK(staged.sharedMemBytes == unstaged.sharedMemBytes + 64 * 64 * 2);
  }
  // f32 results stay as they lie (8-byte runs of 2), so far: no GPU run has checked them staged.
  {
    Package p = require(compile(require(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "trace"),
                                nvptxTarget("sm_90a")),
                        "compile");
    CHECK_FALSE(contains(ptxText(p.kernels[0].artifacts[1]), "st.global.v4.b32"));
    CHECK(p.kernels[0].artifacts[1].sharedMemBytes == 4 * (128 + 256) * 64 * 2);
  }
  // The 4 stages of 128 x 256 x 64 leave room for 64 of its rows: 192 + 32 KiB.
  CHECK(require(compile(require(traceMatmul<f16, float, f16>(128, 256, 64, Numerics::Fast, 8), "trace"),
                        nvptxTarget("sm_90a")),
                "compile")
            .kernels[0]
            .artifacts[1]
            .sharedMemBytes == 4 * (128 + 256) * 64 * 2 + 64 * 256 * 2);
}

TEST_CASE("on sm_90a a warpgroup dot whose B reads a matrix window also gets a tensor-copy form (TMA)") {
  auto package = [](Result<TracedKernel> k, const char *chip) {
    return require(compile(require(std::move(k), "trace"), nvptxTarget(chip)), "compile");
  };
  // Attention's keys: slice `head` of a stack of seq x 64 matrices (k + head + keyRows * 64 + dims,
  // head = program_id(1) * seq * 64), rows bounded by seq, columns from 0 unmasked: a map of rank
  // 3 whose copies name the slice as their third coordinate, one box of the 64 keys' rows.
  Package p = package(traceScores(), "sm_90a");
  REQUIRE(p.kernels[0].artifacts.size() == 2);
  const Artifact &plain = p.kernels[0].artifacts[0], &copies = p.kernels[0].artifacts[1];
  CHECK(plain.tensorMaps.empty());
  CHECK(copies.target == plain.target);
  CHECK(copies.tensorMaps == std::vector<TensorMapSpec>{{1, {3, 0}, {-1, 64}, {-1, 64}, 64, 64, 128, 3}});
  const std::string ptx = ptxText(copies);
  // The map is a 128-byte parameter after the arguments, read in place.
  CHECK(contains(ptx, ".param .align 64 .b8 scores_param_4[128]"));
  CHECK(contains(ptx, "cvta.param.u64"));
  CHECK(contains(ptx, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
  CHECK(contains(ptx, "mbarrier.arrive.expect_tx.shared.b64"));
  CHECK(contains(ptx, "mbarrier.try_wait.parity.shared.b64"));
  CHECK(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"));
  // By default a barrier of the program follows each iteration's wait for its stage (runs 35 and
  // 36 measured that faster than the readers releasing each stage through a second mbarrier,
  // docs/bench.md): no arrive that expects no bytes.
  const size_t wait = ptx.find("mbarrier.try_wait.parity");
  REQUIRE(wait != std::string::npos);
  CHECK(contains(ptx.substr(wait), "bar.sync"));
  CHECK_FALSE(contains(ptx, "mbarrier.arrive.shared.b64"));
  CHECK(contains(ptxText(plain), "bar.sync"));
  CHECK_FALSE(contains(ptx, "cp.async.cg"));
  CHECK(contains(ptxText(plain), "cp.async.cg"));
  CHECK_FALSE(contains(ptxText(plain), "cp.async.bulk"));
  // Loads a tensor map cannot stand for keep cp.async, and without a map no second form: a row
  // stride computed in the kernel (the runtime could not build the map), zeros that are -0.0.
  CHECK(package(traceScores(true), "sm_90a").kernels[0].artifacts.size() == 1);
  CHECK(package(traceScores(false, -0.0f), "sm_90a").kernels[0].artifacts.size() == 1);
  // A matmul copies A from its buffer too: in boxes of 8 rows, measured no faster (run 32), so
  // no tensor-copy form by default (the pass's tensor-copies-a makes one: dot-tensor-copies.mlir);
  // its second artifact is the variant for sizes that are multiples of 16.
  const Package matmul = package(traceMatmul<f16, float>(128, 256, 64, Numerics::Fast, 8), "sm_90a");
  REQUIRE(matmul.kernels[0].artifacts.size() == 2);
  for (const Artifact &a : matmul.kernels[0].artifacts)
    CHECK(a.tensorMaps.empty());
  CHECK(!matmul.kernels[0].artifacts[1].divisibleArgs.empty());
  // None without the warpgroup units (sm_90) or in portable mode.
  CHECK(package(traceScores(), "sm_90").kernels[0].artifacts.size() == 1);
}

TEST_CASE("dot of a transposed tile reads it as it lies (transpose_b), on every device, ragged shapes, both modes") {
  // tl::dot(x, tl::trans(y)) becomes one dot with transpose_b: y is staged as it is loaded.
  TracedKernel k = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast, 4, true), "trace");
  CHECK(contains(k.tileIR(), "tile.trans"));
  std::string gpu = require(emit(k, nvptxTarget("sm_90"), Stage::GPU), "emit");
  CHECK_FALSE(contains(gpu, "tile.trans"));
  // On the tensor cores B's fragments come from y's rows without ldmatrix's transposition.
  std::string ptx = ptxText(require(compileArtifact(k, nvptxTarget("sm_90")), "compile"));
  CHECK(contains(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  CHECK(contains(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  CHECK_FALSE(contains(ptx, ".trans.shared"));
  for (Numerics mode : {Numerics::Portable, Numerics::Fast})
    for (Shape s : {Shape{37, 50, 70}, Shape{16, 16, 16}}) {
      checkMatmul<float, float>(mode, s, 32, 32, 16, true);
      checkMatmul<f16, float>(mode, s, 32, 32, 32, true);
      checkMatmul<int8_t, int32_t>(mode, s, 32, 16, 32, true);
    }
}

TEST_CASE("matmul through tl::dot on every device: f32, f16, bf16 and i8, ragged shapes, both modes") {
  for (Numerics mode : {Numerics::Portable, Numerics::Fast}) {
    for (Shape s : {Shape{37, 50, 70}, Shape{16, 16, 16}, Shape{65, 17, 33}}) {
      checkMatmul<float, float>(mode, s, 32, 32, 16);
      checkMatmul<f16, float>(mode, s, 32, 32, 32);
      checkMatmul<bf16, float>(mode, s, 16, 32, 16);
      checkMatmul<int8_t, int32_t>(mode, s, 32, 16, 32);
    }
  }
}

TEST_CASE("an FMA-path dot on a subgroup grid (fma-layout, 32-lane subgroups) is right on every device, both modes") {
  // 64 x 256 on 8 warps: 8 x 8 a thread, subgroups of 4 x 8 lanes on a 2 x 4 grid where lanes
  // are 32 (LayoutTests); lavapipe's 8-lane subgroups run the code compiled for 32 (no subgroup
  // operations in it), so CI checks the grid's indexing too. Ragged shapes, a program's edges.
  for (Numerics mode : {Numerics::Portable, Numerics::Fast})
    for (Shape s : {Shape{100, 300, 40}, Shape{64, 256, 16}, Shape{7, 513, 33}})
      checkMatmul<float, float>(mode, s, 64, 256, 16, false, 8, 32);
}

TEST_CASE("SPIR-V stages an FMA-path dot's transposed A in vectors (fma-vector-a): fewer loads, right on every device") {
  // 64 x 256 x 16 on 8 warps for 32-lane subgroups: each thread's 8 rows of A were 8 loads a k
  // step from a scalar array; in vectors of 4 (each value written into its component) they are 2.
  // The k step of 16 values is one block (fma-unroll), so the module holds 16 x 6 fewer loads.
  // Both forms run on every device (lavapipe runs the code for 32 lanes), portable ones bit for bit.
  auto loads = [] {
    const std::vector<uint32_t> words =
        spirvWords(require(compileArtifact(require(traceMatmul<float, float>(64, 256, 16, Numerics::Fast, 8), "trace"),
                                           spirvTarget(32)),
                           "compile"));
    size_t n = 0;
    for (size_t i = 5; i < words.size(); i += std::max<uint32_t>(1, words[i] >> 16))
      n += (words[i] & 0xffff) == 61; // OpLoad
    return n;
  };
  const size_t vectors = loads();
  ::setenv("TESSERA_FMA_VECTOR_A", "0", 1);
  const size_t scalars = loads();
  CHECK(scalars == vectors + 16 * 6);
  for (const char *vectorA : {"0", "1"}) {
    CAPTURE(vectorA);
    ::setenv("TESSERA_FMA_VECTOR_A", vectorA, 1);
    for (Numerics mode : {Numerics::Portable, Numerics::Fast})
      for (Shape s : {Shape{100, 300, 40}, Shape{7, 513, 33}})
        checkMatmul<float, float>(mode, s, 64, 256, 16, false, 8, 32);
  }
  ::unsetenv("TESSERA_FMA_VECTOR_A");
}

TEST_CASE("an FMA-path dot staged in halves (fma-halves) meets one barrier a k step and is right on every device") {
  // The k loop of 64 x 256 x 16 on 8 warps: on NVPTX (fma-halves=auto) its staging in two halves,
  // iteration t writing half t % 2, with one barrier between its writes and its reads; with
  // TESSERA_FMA_HALVES=0 between two barriers. SPIR-V takes halves only with =1 (slower through
  // NVIDIA's Vulkan driver), which runs them here on lavapipe.
  auto barriersInLoop = [](const std::string &ptx) {
    // The user's k loop: the branch back to the earliest label from past the last multiply-add.
    const size_t lastFma = ptx.rfind("fma.rn.f32");
    REQUIRE(lastFma != std::string::npos);
    size_t header = std::string::npos, back = std::string::npos;
    for (size_t at = ptx.find("bra", lastFma); at != std::string::npos; at = ptx.find("bra", at + 3)) {
      const size_t name = ptx.find("$L__BB", at), end = ptx.find(';', name);
      const size_t label = ptx.find(ptx.substr(name, end - name) + ":");
      if (label < lastFma && label < header)
        header = label, back = at;
    }
    REQUIRE(header != std::string::npos);
    return count(ptx.substr(header, back - header), "bar.sync");
  };
  auto ptxOf = [] {
    return ptxText(require(compileArtifact(require(traceMatmul<float, float>(64, 256, 16, Numerics::Fast, 8), "trace"),
                                           nvptxTarget("sm_90")),
                           "compile"));
  };
  CHECK(barriersInLoop(ptxOf()) == 1);
  ::setenv("TESSERA_FMA_HALVES", "0", 1);
  CHECK(barriersInLoop(ptxOf()) == 2);
  ::setenv("TESSERA_FMA_HALVES", "1", 1);
  // Ragged shapes with odd and even trip counts, both modes, f32 and i8, B as it comes and
  // stored N x K (sizes within lavapipe's 32 KiB for both halves).
  for (Numerics mode : {Numerics::Portable, Numerics::Fast})
    for (Shape s : {Shape{100, 130, 40}, Shape{64, 64, 16}, Shape{33, 70, 200}}) {
      checkMatmul<float, float>(mode, s, 64, 64, 16);
      checkMatmul<float, float>(mode, s, 32, 32, 16, true);
      checkMatmul<int8_t, int32_t>(mode, s, 32, 16, 32);
    }
  ::unsetenv("TESSERA_FMA_HALVES");
}

TEST_CASE("an f32 FMA-path dot takes cp.async copies in stages where a program has 4 warps or 128 accumulators a thread") {
  // fma-async-copies=auto: 64 x 128 on 4 warps and 128 x 256 on 8 (128 accumulators a thread)
  // copy their operands from the buffers in 3 stages (one group left in flight at each wait), A
  // read row-major 4 k steps at a time; 64 x 256 on 8 warps (64 a thread, slower copied: run 95)
  // is staged from registers in halves; portable kernels and sm_75 (no cp.async) never copy.
  auto ptxOf = [](int BM, int BN, uint32_t warps, Numerics mode, const char *chip) {
    return ptxText(require(compileArtifact(require(traceMatmul<float, float>(BM, BN, 16, mode, warps), "trace"),
                                           nvptxTarget(chip)),
                           "compile"));
  };
  auto copies = [](const std::string &ptx) {
    return contains(ptx, "cp.async.cg.shared.global") && contains(ptx, "cp.async.wait_group \t1;");
  };
  const std::string small = ptxOf(64, 128, 4, Numerics::Fast, "sm_90");
  CHECK(copies(small));
  CHECK(contains(small, "ld.shared.v4.b32"));
  CHECK(copies(ptxOf(128, 256, 8, Numerics::Fast, "sm_80")));
  CHECK_FALSE(contains(ptxOf(64, 256, 8, Numerics::Fast, "sm_90"), "cp.async"));
  CHECK_FALSE(contains(ptxOf(64, 128, 4, Numerics::Portable, "sm_90"), "cp.async"));
  CHECK_FALSE(contains(ptxOf(64, 128, 4, Numerics::Fast, "sm_75"), "cp.async"));
  ::setenv("TESSERA_FMA_ASYNC_COPIES", "0", 1);
  CHECK_FALSE(contains(ptxOf(64, 128, 4, Numerics::Fast, "sm_90"), "cp.async"));
  ::setenv("TESSERA_FMA_ASYNC_COPIES", "1", 1);
  CHECK(copies(ptxOf(64, 256, 8, Numerics::Fast, "sm_90")));
  ::unsetenv("TESSERA_FMA_ASYNC_COPIES");
}

TEST_CASE("an FMA-path dot's k steps of fma-unroll values are right on every device, portable ones bit for bit") {
  // TESSERA_FMA_UNROLL: 1 and 2 (a copied A still takes 4), 16 and 32 (the whole K of the
  // blocks); ragged shapes, both modes (portable results must match the interpreter exactly,
  // the order of the sum unchanged), f32 and i8, B as it comes and stored N x K.
  for (const char *unroll : {"1", "2", "16", "32"}) {
    CAPTURE(unroll);
    ::setenv("TESSERA_FMA_UNROLL", unroll, 1);
    for (Numerics mode : {Numerics::Portable, Numerics::Fast})
      for (Shape s : {Shape{100, 130, 40}, Shape{33, 70, 200}}) {
        checkMatmul<float, float>(mode, s, 32, 64, 32);
        checkMatmul<float, float>(mode, s, 32, 32, 16, true);
        checkMatmul<int8_t, int32_t>(mode, s, 32, 16, 32);
      }
  }
  ::unsetenv("TESSERA_FMA_UNROLL");
}

TEST_CASE("the interpreter runs tile.dot with transpose_b: b is N x K") {
  const char *ir = R"(
func.func @k(%a: !tile.ptr<f32> {tile.name = "a"}, %b: !tile.ptr<f32> {tile.name = "b"}, %c: !tile.ptr<f32> {tile.name = "c"})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %i = tile.arange 0, 512 : tensor<512xi32>
  %o = tile.reshape %i : tensor<512xi32> -> tensor<16x32xi32>
  %j = tile.arange 0, 1024 : tensor<1024xi32>
  %ob = tile.reshape %j : tensor<1024xi32> -> tensor<32x32xi32>
  %x = tile.load %a[%o] : (!tile.ptr<f32>, tensor<16x32xi32>) -> tensor<16x32xf32>
  %y = tile.load %b[%ob] : (!tile.ptr<f32>, tensor<32x32xi32>) -> tensor<32x32xf32>
  %z = arith.constant dense<0.5> : tensor<16x32xf32>
  %d = tile.dot %x, %y, %z {transpose_b} : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  tile.store %c[%o], %d : (!tile.ptr<f32>, tensor<16x32xi32>, tensor<16x32xf32>) -> ()
  return
})";
  std::vector<TracedKernel> ks = require(parseTileIR(ir), "parse");
  REQUIRE(ks.size() == 1);
  const uint32_t seed = freshSeed();
  std::mt19937 rng(seed);
  std::vector<float> a(16 * 32), b(32 * 32); // small integers: every product and sum is exact
  for (float &v : a) v = float(std::uniform_int_distribution<int>(-8, 8)(rng));
  for (float &v : b) v = float(std::uniform_int_distribution<int>(-8, 8)(rng));
  HostBuffer ha = HostBuffer::of(a), hb = HostBuffer::of(b), out(DType::F32, 16 * 32);
  REQUIRE(interpret(ks[0], {1}, {ha, hb, out}).ok());
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 32; ++n) {
      float want = 0.5f;
      for (int k = 0; k < 32; ++k) want += a[size_t(m) * 32 + k] * b[size_t(n) * 32 + k]; // b[n][k]
      CHECK_MESSAGE(out.data<float>()[m * 32 + n] == want, "(" << m << ", " << n << ") seed " << seed);
    }
  // The verifier names the shapes it expects.
  std::string bad = ir;
  const std::string dot = "tile.dot %x, %y, %z {transpose_b} : tensor<16x32xf32>, tensor<32x32xf32>";
  bad.replace(bad.find(dot), dot.size(), "tile.dot %x, %x, %z {transpose_b} : tensor<16x32xf32>, tensor<16x32xf32>");
  Result<std::vector<TracedKernel>> refused = parseTileIR(bad);
  REQUIRE_FALSE(refused.ok());
  CHECK_MESSAGE(contains(refused.status().message(), "N x K with transpose_b"), refused.status().toString());
}
