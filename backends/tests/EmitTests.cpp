// Every pipeline stage can be printed, and a stage of the wrong target is an error, not a crash.
#include "TestSupport.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string emitted(const TracedKernel &k, const TargetDesc &t, Stage s) {
  Result<std::string> r = emit(k, t, s);
  REQUIRE_MESSAGE(r.ok(), "emit " << toString(s) << ": " << r.status().toString());
  CHECK_FALSE(r->empty());
  return *r;
}

} // namespace

TEST_CASE("emit.stage_names_round_trip") {
  for (Stage s : {Stage::Tile, Stage::TileOpt, Stage::GPU, Stage::NVVM, Stage::PTX, Stage::SPIRVMLIR, Stage::SPIRV}) {
    std::optional<Stage> parsed = parseStage(toString(s));
    REQUIRE_MESSAGE(parsed.has_value(), toString(s));
    CHECK(std::string(toString(*parsed)) == toString(s));
    CHECK(int(*parsed) == int(s));
  }
  CHECK(std::string(toString(Stage::TileOpt)) == "tile-opt");
  CHECK(std::string(toString(Stage::SPIRVMLIR)) == "spirv-mlir");
  CHECK_FALSE(parseStage("llvm-ir").has_value());
  CHECK_FALSE(parseStage("").has_value());
}

TEST_CASE("emit.common_stages") {
  TracedKernel k = require(traceVectorAdd(1024, 4), "trace vector_add");
  for (const TargetDesc &t : {nvptxTarget("sm_90"), spirvTarget(32)}) {
    CAPTURE(toString(t.kind));
    std::string tile = emitted(k, t, Stage::Tile);
    CHECK(tile == k.tileIR());
    CHECK(contains(tile, "tile.arange 0, 1024"));

    std::string opt = emitted(k, t, Stage::TileOpt);
    INFO("tile-opt:\n", opt);
    CHECK(contains(opt, "tile.kernel"));
    CHECK(contains(opt, "tile.load"));
    CHECK(contains(opt, "tile.store"));

    std::string gpu = emitted(k, t, Stage::GPU);
    INFO("gpu:\n", gpu);
    CHECK(contains(gpu, "gpu.func"));
    CHECK(contains(gpu, "kernel"));
    CHECK_FALSE(contains(gpu, "tile.load")); // the tile ops are gone
  }
}

TEST_CASE("emit.nvptx_stages") {
  TracedKernel k = require(traceMaskedScale(), "trace masked_scale");
  std::string nvvm = emitted(k, nvptxTarget("sm_90"), Stage::NVVM);
  INFO("nvvm:\n", nvvm);
  CHECK((contains(nvvm, "llvm.") || contains(nvvm, "nvvm.")));
  CHECK_FALSE(contains(nvvm, "gpu.func"));

  std::string ptx = emitted(k, nvptxTarget("sm_90"), Stage::PTX);
  CHECK(contains(ptx, ".entry masked_scale"));
  CHECK(contains(ptx, ".version 7.8"));
  // The PTX stage prints exactly what the artifact carries.
  Artifact a = require(compileArtifact(k, nvptxTarget("sm_90")), "compile for PTX");
  CHECK(ptx == ptxText(a));
}

TEST_CASE("emit.spirv_stages") {
  TracedKernel k = require(traceIntMix(), "trace int_mix");
  std::string mlir = emitted(k, spirvTarget(8), Stage::SPIRVMLIR);
  INFO("spirv-mlir:\n", mlir);
  CHECK(contains(mlir, "spirv.module"));

  std::string disassembly = emitted(k, spirvTarget(8), Stage::SPIRV);
  INFO("spirv:\n", disassembly);
  CHECK(contains(disassembly, "OpEntryPoint GLCompute"));
  CHECK(contains(disassembly, "\"int_mix\""));
}

TEST_CASE("emit.stage_of_the_other_target") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace vector_add");
  for (Stage s : {Stage::NVVM, Stage::PTX}) {
    Result<std::string> r = emit(k, spirvTarget(32), s);
    REQUIRE_FALSE(r.ok());
    INFO("message: ", r.status().message());
    CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
    CHECK(contains(r.status().message(), "PTX targets"));
  }
  for (Stage s : {Stage::SPIRVMLIR, Stage::SPIRV}) {
    Result<std::string> r = emit(k, nvptxTarget("sm_90"), s);
    REQUIRE_FALSE(r.ok());
    INFO("message: ", r.status().message());
    CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
    CHECK(contains(r.status().message(), "SPIR-V targets"));
  }
}

TEST_CASE("emit.does_not_change_the_kernel") {
  // emit works on a copy: the kernel's own tile IR and later compiles are unaffected.
  TracedKernel k = require(traceSmallTile(), "trace small_tile");
  std::string before = k.tileIR();
  (void)emitted(k, spirvTarget(32), Stage::SPIRV);
  (void)emitted(k, nvptxTarget("sm_90"), Stage::PTX);
  CHECK(k.tileIR() == before);
  Artifact a = require(compileArtifact(k, spirvTarget(32)), "compile after emit");
  CHECK(validateSpirv(spirvWords(a)).ok());
}

TEST_CASE("emit.a*b+c fuses in fast mode and never in portable mode (PTX)") {
  // The contract lets fast mode contract a*b+c, the reductions' too (sum of squares); portable
  // mode rounds every product and sum (mul.rn/add.rn, which ptxas keeps apart).
  for (Numerics mode : {Numerics::Fast, Numerics::Portable}) {
    auto affine = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<float> b, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::arange(0, 128);
      tl::Tile mask = offs < n;
      tl::Tile v = tl::load(x + offs, mask);
      tl::store(out + offs, v * tl::load(y + offs, mask) + b + tl::sum(v * v), mask);
    };
    TracedKernel k = require(trace("affine", affine, {.numWarps = 1, .numerics = mode}), "trace");
    std::string ptx = emitted(k, nvptxTarget("sm_90"), Stage::PTX);
    INFO(toString(mode), " PTX:\n", ptx);
    const bool fast = mode == Numerics::Fast;
    CHECK(contains(ptx, "fma.rn.f32") == fast);
    CHECK(contains(ptx, "mul.rn.f32") == !fast);
    CHECK(contains(ptx, "add.rn.f32") == !fast);
  }
}

TEST_CASE("emit.f32 division is div.full in fast mode and div.rn in portable mode (PTX)") {
  // out = x / y: fast mode's budget for `/` is 3 ULP (docs/numerics.md), so the PTX divides with
  // div.full.f32 (2 ULP over the whole range, as Triton does); portable mode rounds correctly.
  for (Numerics mode : {Numerics::Fast, Numerics::Portable}) {
    auto divide = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::program_id(0) * 128 + tl::arange(0, 128);
      tl::Tile mask = offs < n;
      tl::store(out + offs, tl::load(x + offs, mask) / tl::load(y + offs, mask), mask);
    };
    TracedKernel k = require(trace("divide", divide, {.numWarps = 1, .numerics = mode}), "trace");
    std::string ptx = emitted(k, nvptxTarget("sm_90"), Stage::PTX);
    INFO(toString(mode), " PTX:\n", ptx);
    const bool fast = mode == Numerics::Fast;
    CHECK(contains(ptx, "div.full.f32") == fast);
    CHECK(contains(ptx, "div.rn.f32") == !fast);
  }
}
