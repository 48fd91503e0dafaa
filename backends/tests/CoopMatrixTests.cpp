// Vulkan cooperative matrices (chip vulkan1.3+coopmat): what the compiler emits for fast f16 dots,
// the runtime's self-test shader read back through MLIR's SPIR-V deserializer, and how the runtime
// chooses between code with and without them on every Vulkan device present (lavapipe has none:
// there the plain code runs and cooperative-only code is refused with the reason).
#include "TestSupport.hpp"

#include "vulkan/CoopMatrixProbeSpirv.hpp"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/SPIRV/Deserialization.h"

#include <cmath>
#include <cstdlib>

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr uint32_t kCapCoopMatrix = 6022, kOpCapability = 17, kOpMulAdd = 4459, kOpCompositeExtract = 81,
                   kOpCompositeInsert = 82;

/// How often `opcode` occurs (with `operand` as its first operand, when given).
size_t countOps(const std::vector<uint32_t> &words, uint32_t opcode, std::optional<uint32_t> operand = {}) {
  size_t n = 0;
  for (size_t i = 5; i < words.size() && (words[i] >> 16);) {
    if ((words[i] & 0xffff) == opcode && (!operand || words[i + 1] == *operand)) ++n;
    i += words[i] >> 16;
  }
  return n;
}

} // namespace

TEST_CASE("fast f16 dots on the chip vulkan1.3+coopmat run on cooperative matrices in SPIR-V 1.6") {
  TracedKernel fast = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "trace");
  Artifact coop = require(compileArtifact(fast, spirvTarget(32, false, true)), "compile");
  Artifact plain = require(compileArtifact(fast, spirvTarget(32)), "compile");
  CHECK(coop.target.chip == "vulkan1.3+coopmat");
  std::vector<uint32_t> words = spirvWords(coop);
  REQUIRE(words.size() > 5);
  CHECK(words[1] == 0x00010600u); // SPIR-V 1.6
  CHECK(countOps(words, kOpCapability, kCapCoopMatrix) == 1);
  CHECK(countOps(words, kOpMulAdd) == 32 / 16); // one per 16-deep step of the block loop
  // A and B staged as f16 and the accumulator as f32 (64x32 + 32x64 halves, 64x64 floats),
  // where the FMA path stages A transposed in rows of 64 + 4 floats and B as f32; the rest of
  // the kernel's shared memory is the same.
  CHECK(int64_t(coop.sharedMemBytes) - int64_t(plain.sharedMemBytes) ==
        (64 * 32 + 32 * 64) * 2 + 64 * 64 * 4 - (32 * (64 + 4) + 32 * 64) * 4);
  CHECK(countOps(spirvWords(plain), kOpCapability, kCapCoopMatrix) == 0);
  CHECK(spirvWords(plain)[1] < 0x00010400u);

  // With the accumulator lanes as mma.sync's (chip ...+mma-lanes): the accumulator stays in
  // registers, only A and B are staged. The k loop carries its 4 blocks as matrices
  // (carry-mma-matrices): made once from zero, with no element put in, and 8 values taken out
  // of each after the loop.
  Artifact lanes = require(compileArtifact(fast, spirvTarget(32, false, true, true)), "compile");
  CHECK(lanes.target.chip == "vulkan1.3+coopmat+mma-lanes");
  std::vector<uint32_t> laneWords = spirvWords(lanes);
  // 64 x 64 over 4 subgroups: each holds one 16-row pair of 4 blocks of 16 columns, 2 k steps.
  CHECK(countOps(laneWords, kOpMulAdd) == 4 * 2);
  CHECK(countOps(laneWords, kOpCompositeInsert) == 0);
  CHECK(countOps(laneWords, kOpCompositeExtract) >= 4 * 8);
  CHECK(lanes.sharedMemBytes < coop.sharedMemBytes);

  // Portable dots keep their order, f32 and i8 have no cooperative shape here: no matrices.
  for (const TracedKernel &k : {require(traceMatmul<f16, float>(64, 64, 32, Numerics::Portable), "trace"),
                                require(traceMatmul<float, float>(32, 32, 16, Numerics::Fast), "trace"),
                                require(traceMatmul<int8_t, int32_t>(32, 32, 32, Numerics::Fast), "trace")}) {
    std::vector<uint32_t> w = spirvWords(require(compileArtifact(k, spirvTarget(32, false, true)), "compile"));
    CHECK(countOps(w, kOpCapability, kCapCoopMatrix) == 0);
    CHECK(validateSpirv(w).ok()); // SPIR-V 1.6 without the extension: SPIRV-Tools checks it (vulkan1.3)
  }
  // A kernel without dot on the chip: SPIR-V 1.6 too (its entry point lists every global).
  Artifact add = require(compileArtifact(require(traceVectorAdd(1024, 4), "trace"), spirvTarget(32, false, true)), "compile");
  CHECK(spirvWords(add)[1] == 0x00010600u);
  CHECK(validateSpirv(spirvWords(add)).ok());
}

TEST_CASE("the chips with cooperative matrices are known targets, others are refused with the list") {
  for (bool soft : {false, true})
    for (bool coop : {false, true})
      CHECK(validateTarget(spirvTarget(16, soft, coop)).ok());
  CHECK(hasMmaLanes(spirvTarget(32, false, true, true).chip));
  CHECK_FALSE(hasMmaLanes(spirvTarget(32, false, true).chip));
  CHECK(spirvTarget(32, true, true).chip == "vulkan1.3+coopmat+soft-denormals");
  CHECK(hasCoopMatrix(spirvTarget(32, true, true).chip));
  CHECK(hasSoftDenormals(spirvTarget(32, true, true).chip));
  CHECK_FALSE(hasCoopMatrix(spirvTarget(32, true, false).chip));
  CHECK(validateTarget(spirvTarget(32, true, true, true)).ok());
  CHECK(spirvTarget(32, true, true, true).chip == "vulkan1.3+coopmat+mma-lanes+soft-denormals");
  Result<TargetDesc> lanes16 = validateTarget(spirvTarget(16, false, true, true));
  REQUIRE_FALSE(lanes16.ok());
  CHECK(contains(lanes16.status().message(), "32 lanes"));
  CHECK(spirvTarget(32, true, true, true, true).chip == "vulkan1.3+coopmat+bf16+mma-lanes+soft-denormals");
  CHECK(validateTarget(spirvTarget(32, true, true, true, true)).ok());
  CHECK(hasCoopBF16(spirvTarget(32, false, true, false, true).chip));
  CHECK_FALSE(hasCoopBF16(spirvTarget(32, false, true, true).chip));
  CHECK_FALSE(validateTarget(TargetDesc{TargetKind::SPIRV, "vulkan1.3+bf16", 0, 32}).ok()); // bf16 needs +coopmat
  Result<TargetDesc> bad = validateTarget(TargetDesc{TargetKind::SPIRV, "vulkan1.1+coopmat", 0, 32});
  REQUIRE_FALSE(bad.ok());
  CHECK(contains(bad.status().message(), "vulkan1.3+coopmat"));
}

TEST_CASE("fast bf16 dots on the chip vulkan1.3+coopmat+bf16 run on bf16 cooperative matrices") {
  TracedKernel fast = require(traceMatmul<bf16, float>(64, 64, 32, Numerics::Fast), "trace");
  constexpr uint32_t kCapBF16Type = 5116, kCapBF16Matrix = 5118, kOpTypeFloat = 22;
  for (bool lanes : {false, true}) {
    CAPTURE(lanes);
    Artifact coop = require(compileArtifact(fast, spirvTarget(32, false, true, lanes, true)), "compile");
    CHECK(coop.target.chip == (lanes ? "vulkan1.3+coopmat+bf16+mma-lanes" : "vulkan1.3+coopmat+bf16"));
    std::vector<uint32_t> words = spirvWords(coop);
    CHECK(countOps(words, kOpCapability, kCapBF16Type) == 1);
    CHECK(countOps(words, kOpCapability, kCapBF16Matrix) == 1);
    CHECK(countOps(words, kOpMulAdd) == (lanes ? 4 * 2 : 32 / 16));
    // Read back: A and B are bf16 matrices (OpTypeFloat 16 with the BFloat16KHR encoding), loaded
    // from the staged arrays of 16-bit elements; the accumulator stays f32.
    mlir::MLIRContext ctx;
    ctx.loadDialect<mlir::spirv::SPIRVDialect>();
    mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::spirv::deserialize(words, &ctx);
    REQUIRE(module);
    CHECK(mlir::succeeded(mlir::verify(module->getOperation())));
    size_t bf16Loads = 0, products = 0;
    module->walk([&](mlir::Operation *op) {
      if (auto load = mlir::dyn_cast<mlir::spirv::KHRCooperativeMatrixLoadOp>(op))
        bf16Loads += mlir::cast<mlir::spirv::CooperativeMatrixType>(load.getType()).getElementType().isBF16();
      if (auto p = mlir::dyn_cast<mlir::spirv::KHRCooperativeMatrixMulAddOp>(op))
        products += mlir::cast<mlir::spirv::CooperativeMatrixType>(p.getA().getType()).getElementType().isBF16() &&
                    mlir::cast<mlir::spirv::CooperativeMatrixType>(p.getB().getType()).getElementType().isBF16();
    });
    CHECK(products == countOps(words, kOpMulAdd));
    CHECK(bf16Loads >= 2);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    CHECK_FALSE(contains(text, "coopmatrix<16x16xf16")); // no f16 matrix is left
    CHECK(countOps(words, kOpTypeFloat) >= 3);            // f16 (the staged arrays), bf16, f32
  }
  // Without the chip's +bf16 a bf16 dot runs the FMA path: no matrices, no bf16 capability.
  std::vector<uint32_t> plain = spirvWords(require(compileArtifact(fast, spirvTarget(32, false, true, true)), "compile"));
  CHECK(countOps(plain, kOpMulAdd) == 0);
  CHECK(countOps(plain, kOpCapability, kCapBF16Type) == 0);
  // An f16 dot on the +bf16 chip is unchanged: f16 matrices, no bf16 capability.
  TracedKernel half = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "trace");
  std::vector<uint32_t> f16Words =
      spirvWords(require(compileArtifact(half, spirvTarget(32, false, true, true, true)), "compile"));
  CHECK(countOps(f16Words, kOpMulAdd) == 4 * 2);
  CHECK(countOps(f16Words, kOpCapability, kCapBF16Matrix) == 0);
  CHECK(spirvWords(require(compileArtifact(half, spirvTarget(32, false, true, true)), "compile")) == f16Words);
}

TEST_CASE("the runtime's cooperative-matrix self-test shader is well-formed SPIR-V 1.6 (MLIR reads it back)") {
  for (bool bf16 : {false, true})
  for (uint32_t subgroup : {8u, 32u, 64u}) {
    std::vector<uint32_t> words = vulkan::coopMatrixProbeSpirv(subgroup, bf16);
    mlir::MLIRContext ctx;
    ctx.loadDialect<mlir::spirv::SPIRVDialect>();
    mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::spirv::deserialize(words, &ctx);
    REQUIRE_MESSAGE(module, "subgroup " << subgroup << (bf16 ? ", bf16" : ""));
    CHECK(mlir::succeeded(mlir::verify(module->getOperation())));
    size_t loads = 0, mulAdds = 0, stores = 0, lengths = 0, extracts = 0;
    module->walk([&](mlir::Operation *op) {
      loads += mlir::isa<mlir::spirv::KHRCooperativeMatrixLoadOp>(op);
      mulAdds += mlir::isa<mlir::spirv::KHRCooperativeMatrixMulAddOp>(op);
      stores += mlir::isa<mlir::spirv::KHRCooperativeMatrixStoreOp>(op);
      lengths += mlir::isa<mlir::spirv::KHRCooperativeMatrixLengthOp>(op);
      if (auto e = mlir::dyn_cast<mlir::spirv::CompositeExtractOp>(op))
        extracts += mlir::isa<mlir::spirv::CooperativeMatrixType>(e.getComposite().getType());
    });
    CHECK(loads == 4); // A, B, C and the index matrix X
    CHECK(mulAdds == 1);
    CHECK(stores == 1);
    CHECK(lengths == 1);
    CHECK(extracts == 256 / subgroup); // every element of one invocation's share of X
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    CHECK(contains(text, "spirv.ExecutionMode @" + std::string(vulkan::kCoopMatrixProbeEntry) + " \"LocalSize\", " +
                             std::to_string(subgroup) + ", 1, 1"));
    const std::string in = bf16 ? "bf16" : "f16";
    CHECK(contains(text, "!spirv.coopmatrix<16x16x" + in + ", Subgroup, MatrixA>"));
    CHECK(contains(text, "!spirv.coopmatrix<16x16x" + in + ", Subgroup, MatrixB>"));
    CHECK(contains(text, "!spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>"));
    CHECK(contains(text, "BFloat16CooperativeMatrixKHR") == bf16);
    CHECK(contains(text, "SPV_KHR_bfloat16") == bf16);
  }
}

TEST_CASE("the runtime's operand-lanes probe shader is well-formed SPIR-V 1.6 (MLIR reads it back)") {
  for (uint32_t subgroup : {8u, 32u, 64u}) {
    std::vector<uint32_t> words = vulkan::operandLanesProbeSpirv(subgroup);
    mlir::MLIRContext ctx;
    ctx.loadDialect<mlir::spirv::SPIRVDialect>();
    mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::spirv::deserialize(words, &ctx);
    REQUIRE_MESSAGE(module, "subgroup " << subgroup);
    CHECK(mlir::succeeded(mlir::verify(module->getOperation())));
    size_t loads = 0, lengths = 0, extracts = 0, converts = 0;
    module->walk([&](mlir::Operation *op) {
      loads += mlir::isa<mlir::spirv::KHRCooperativeMatrixLoadOp>(op);
      lengths += mlir::isa<mlir::spirv::KHRCooperativeMatrixLengthOp>(op);
      converts += mlir::isa<mlir::spirv::FConvertOp>(op);
      if (auto e = mlir::dyn_cast<mlir::spirv::CompositeExtractOp>(op))
        extracts += mlir::isa<mlir::spirv::CooperativeMatrixType>(e.getComposite().getType());
    });
    CHECK(loads == 2); // X as an A matrix and as a B matrix
    CHECK(lengths == 2);
    CHECK(extracts == 2 * 256 / subgroup); // every element of one invocation's share of each
    CHECK(converts == 2 * 256 / subgroup);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    CHECK(contains(text, "spirv.ExecutionMode @" + std::string(vulkan::kOperandLanesProbeEntry) + " \"LocalSize\", " +
                             std::to_string(subgroup) + ", 1, 1"));
    CHECK(contains(text, "!spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>"));
    CHECK(contains(text, "!spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>"));
    CHECK(!contains(text, "MatrixAcc"));
  }
}

TEST_CASE("the runtime's workgroup-scope self-test shader is well-formed SPIR-V 1.6 (MLIR reads it back)") {
  for (bool bf16 : {false, true}) {
    std::vector<uint32_t> words = vulkan::workgroupMatrixProbeSpirv(bf16);
    mlir::MLIRContext ctx;
    ctx.loadDialect<mlir::spirv::SPIRVDialect>();
    mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::spirv::deserialize(words, &ctx);
    REQUIRE_MESSAGE(module, (bf16 ? "bf16" : "f16"));
    CHECK(mlir::succeeded(mlir::verify(module->getOperation())));
    size_t loads = 0, mulAdds = 0, stores = 0;
    module->walk([&](mlir::Operation *op) {
      loads += mlir::isa<mlir::spirv::KHRCooperativeMatrixLoadOp>(op);
      mulAdds += mlir::isa<mlir::spirv::KHRCooperativeMatrixMulAddOp>(op);
      stores += mlir::isa<mlir::spirv::KHRCooperativeMatrixStoreOp>(op);
    });
    CHECK(loads == 3); // A, B and C
    CHECK(mulAdds == 1);
    CHECK(stores == 1);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    CHECK(contains(text, "spirv.ExecutionMode @" + std::string(vulkan::kWorkgroupMatrixProbeEntry) + " \"LocalSize\", " +
                             std::to_string(vulkan::kWorkgroupProbeInvocations) + ", 1, 1"));
    const std::string in = bf16 ? "bf16" : "f16";
    CHECK(contains(text, "!spirv.coopmatrix<64x32x" + in + ", Workgroup, MatrixA>"));
    CHECK(contains(text, "!spirv.coopmatrix<32x64x" + in + ", Workgroup, MatrixB>"));
    CHECK(contains(text, "!spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc>"));
    CHECK(contains(text, "BFloat16CooperativeMatrixKHR") == bf16);
  }
}

TEST_CASE("on a +wgmat chip a block-matmul loop is a variant on workgroup-scope matrices for multiples of the blocks") {
  const TargetDesc wg = spirvTarget(32, false, true, true, false, true);
  CHECK(wg.chip == "vulkan1.3+coopmat+mma-lanes+wgmat");
  TracedKernel fast = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "trace");
  Package pkg = require(compile(std::span(&fast, 1), std::span(&wg, 1)), "compile");
  REQUIRE(pkg.kernels.size() == 1);
  REQUIRE(pkg.kernels[0].artifacts.size() == 1); // the variant alone: no multiples-of-16 one beside it
  const Artifact &a = pkg.kernels[0].artifacts[0];
  CHECK(a.target.chip == wg.chip);
  // (a, b, c, M, N, K): M, N and K multiples of the blocks 64, 64 and 32 (the strides, N and K,
  // multiples of 8 with them).
  CHECK(a.divisibleArgs == std::vector<uint32_t>{3, 4, 5});
  CHECK(a.divisors == std::vector<uint32_t>{64, 64, 32});
  CHECK(a.sharedMemBytes == 0); // the driver stages the matrices
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::spirv::SPIRVDialect>();
  mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::spirv::deserialize(spirvWords(a), &ctx);
  REQUIRE(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  CHECK(contains(text, "!spirv.coopmatrix<64x32xf16, Workgroup, MatrixA>"));
  CHECK(contains(text, "!spirv.coopmatrix<32x64xf16, Workgroup, MatrixB>"));
  CHECK(contains(text, "!spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc>"));
  CHECK_FALSE(contains(text, "Subgroup, MatrixA"));
  CHECK(countOps(spirvWords(a), kOpMulAdd) == 1); // one product a k step, in the loop
  // M, N and K are specialization constants (SpecId = argument index), not push constants: the
  // driver stages the matrices well only with the strides known (run 76b).
  CHECK(contains(text, "spirv.SpecConstant @tessera_arg3 spec_id(3)"));
  CHECK(contains(text, "spirv.SpecConstant @tessera_arg4 spec_id(4)"));
  CHECK(contains(text, "spirv.SpecConstant @tessera_arg5 spec_id(5)"));
  CHECK_FALSE(contains(text, "spirv.Load \"PushConstant\""));

  // No such loop, no variant: B transposed, or more than 256 invocations.
  TracedKernel transposed = require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast, 4, true), "trace");
  CHECK(require(compile(std::span(&transposed, 1), std::span(&wg, 1)), "compile").kernels[0].artifacts.empty());
  TracedKernel wide = require(traceMatmul<f16, float>(128, 128, 32, Numerics::Fast, 16), "trace");
  CHECK(require(compile(std::span(&wide, 1), std::span(&wg, 1)), "compile").kernels[0].artifacts.empty());
}

TEST_CASE("TESSERA_COOPMAT=0 turns cooperative matrices off on every Vulkan device") {
  ::setenv("TESSERA_COOPMAT", "0", 1);
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE(rt.ok());
  bool any = false;
  for (const DeviceInfo &d : (*rt)->devices())
    for (const BackendInfo &bi : d.backends)
      if (bi.backend == Backend::Vulkan) {
        std::shared_ptr<Device> dev = require((*rt)->open(d.index, bi.backend), "open");
        CHECK(dev->matrixUnits() == "none: turned off by TESSERA_COOPMAT=0");
        CHECK_FALSE(hasCoopMatrix(dev->target().chip));
        any = true;
      }
  ::unsetenv("TESSERA_COOPMAT");
  if (!any)
    skipTest("no Vulkan device present");
}

TEST_CASE("each Vulkan device runs cooperative-matrix code only where its self-test passed") {
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE(rt.ok());
  TracedKernel fast = require(traceMatmul<f16, float>(32, 32, 32, Numerics::Fast), "trace");
  bool any = false;
  for (const DeviceInfo &d : (*rt)->devices())
    for (const BackendInfo &bi : d.backends) {
      if (bi.backend != Backend::Vulkan) continue;
      std::shared_ptr<Device> dev = require((*rt)->open(d.index, bi.backend), "open");
      const uint32_t subgroup = dev->backendInfo().subgroupSize;
      const std::string units = dev->matrixUnits();
      const bool usable = contains(units, "self-test passed");
      MESSAGE(dev->describe() << ": " << units);
      CHECK((usable || units.rfind("none: ", 0) == 0));
      CHECK(hasCoopMatrix(dev->target().chip) == usable);
      // Workgroup-scope matrices run where their part of the self-test passed, up to the device's
      // workgroup limit for them (at least the self-test's 128 invocations).
      const bool workgroup = contains(units, "workgroup scope too");
      CHECK((dev->workgroupMatrixInvocations() >= 128) == workgroup);
      CHECK((dev->workgroupMatrixInvocations() == 0) == !workgroup);
      if (!contains(units, "bf16 too")) CHECK(dev->workgroupMatrixInvocations(true) == 0);
      std::vector<TargetDesc> targets{spirvTarget(subgroup), spirvTarget(subgroup, false, true)};
      if (subgroup == 32) targets.push_back(spirvTarget(32, false, true, true));
      Result<Package> both = compile(std::span<const TracedKernel>(&fast, 1), targets);
      Result<Package> coopOnly = compile(fast, spirvTarget(subgroup, false, true));
      REQUIRE(both.ok());
      REQUIRE(coopOnly.ok());
      Result<Module> loadedOnly = dev->load(*coopOnly);
      CHECK(loadedOnly.ok() == usable);
      if (!usable) {
        CHECK((loadedOnly.status().code() == StatusCode::Unsupported));
        CHECK(contains(loadedOnly.status().message(), "without cooperative matrices"));
        CHECK(contains(loadedOnly.status().message(), units));
      }
      // With both in the package, the product is right whichever code the device picked.
      const int M = 45, N = 37, K = 70;
      const uint32_t seed = freshSeed();
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> value(-2.f, 2.f);
      std::vector<f16> a(size_t(M) * K), b(size_t(K) * N);
      for (f16 &v : a) v = f16::fromFloat(value(rng));
      for (f16 &v : b) v = f16::fromFloat(value(rng));
      Module loaded = require(dev->load(*both), "load");
      Kernel k = require(loaded.kernel("matmul"), "kernel");
      Buffer da = require(dev->allocate(DType::F16, a.size()), "allocate");
      Buffer db = require(dev->allocate(DType::F16, b.size()), "allocate");
      Buffer dc = require(dev->allocate(DType::F32, size_t(M) * N), "allocate");
      REQUIRE(da.upload(std::span<const f16>(a)).ok());
      REQUIRE(db.upload(std::span<const f16>(b)).ok());
      std::vector<float> got(size_t(M) * N, std::nanf(""));
      REQUIRE(dc.upload(std::span<const float>(got)).ok());
      REQUIRE(k.launch(Grid{uint32_t((M + 31) / 32), uint32_t((N + 31) / 32)}, {da, db, dc, M, N, K}).ok());
      REQUIRE(dc.download(std::span<float>(got)).ok());
      size_t bad = 0;
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          double exact = 0, magnitude = 0;
          for (int i = 0; i < K; ++i) {
            double p = double(a[size_t(m) * K + i].toFloat()) * double(b[size_t(i) * N + n].toFloat());
            exact += p, magnitude += std::fabs(p);
          }
          bad += !(std::fabs(double(got[size_t(m) * N + n]) - exact) <= K * 0x1p-23 * magnitude);
        }
      CHECK_MESSAGE(bad == 0, dev->describe() << ": " << bad << " wrong (seed " << seed << ")");
      any = true;
    }
  if (!any)
    skipTest("no Vulkan device present");
}
