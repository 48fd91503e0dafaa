// A correct kernel traces to the right signature and tile IR, and tile IR text parses back.
#include "TestSupport.hpp"

#include <filesystem>

using namespace tessera;
using namespace tessera::test;

namespace {

/// Buffers and scalars interleaved, so ABI slots of the two kinds are counted separately.
Result<TracedKernel> traceMixedSignature() {
  auto mixed = [](tl::Ptr<float> a, tl::Scalar<float> s, tl::Ptr<int32_t> b, tl::Scalar<int32_t> n,
                  tl::Ptr<float> c) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile mask = offs < n;
    tl::store(c + offs, tl::load(a + offs, mask) * s, mask);
    tl::store(b + offs, offs, mask);
  };
  return trace("mixed", mixed, {.numWarps = 8, .argNames = {"a", "s", "b", "n", "c"}});
}

std::string signatureText(const std::vector<ArgSpec> &sig) {
  std::string s;
  for (const ArgSpec &a : sig)
    s += a.name + ":" + (a.kind == ArgKind::Buffer ? "buffer" : "scalar") + ":" + std::string(toString(a.dtype)) + "@" +
         std::to_string(a.abiSlot) + " ";
  return s;
}

} // namespace

TEST_CASE("trace.signature_and_abi_slots") {
  TracedKernel k = require(traceMixedSignature(), "trace mixed");
  CHECK(k.name() == "mixed");
  CHECK(k.numWarps() == 8);
  std::vector<ArgSpec> expected{{"a", ArgKind::Buffer, DType::F32, 0},
                                {"s", ArgKind::Scalar, DType::F32, 0},
                                {"b", ArgKind::Buffer, DType::I32, 1},
                                {"n", ArgKind::Scalar, DType::I32, 4},
                                {"c", ArgKind::Buffer, DType::F32, 2}};
  CHECK(signatureText(k.signature()) == signatureText(expected));
  CHECK(k.signature() == expected);
}

TEST_CASE("trace.default_arg_names_and_num_warps") {
  auto kernel = [](tl::Ptr<float> x, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, 32);
    tl::store(x + offs, tl::load(x + offs, offs < n), offs < n);
  };
  TracedKernel k = require(trace("defaults", kernel), "trace defaults");
  REQUIRE(k.signature().size() == 2);
  CHECK(k.signature()[0].name == "arg0");
  CHECK(k.signature()[1].name == "arg1");
  CHECK(k.numWarps() == KernelOptions{}.numWarps);
}

TEST_CASE("trace.tile_ir_text") {
  TracedKernel k = require(traceVectorAdd(1024, 4), "trace vector_add");
  CHECK(k.name() == "vector_add");
  CHECK(k.numWarps() == 4);
  std::string ir = k.tileIR();
  INFO("tile IR:\n", ir);
  CHECK(contains(ir, "tile.kernel"));
  CHECK(contains(ir, "tile.load"));
  CHECK(contains(ir, "tile.store"));
  CHECK(contains(ir, "tile.arange 0, 1024"));
  CHECK(contains(ir, "tile.program_id"));
  CHECK_FALSE(contains(ir, "loc"));

  // vector_add is traced in TestSupport.hpp, so that is the file its locations must name.
  std::string withLocs = k.tileIR(true);
  CHECK(contains(withLocs, "#loc"));
  CHECK(contains(withLocs, "TestSupport.hpp\":")); // loc("path/TestSupport.hpp":line:col)
}

TEST_CASE("trace.locations_name_this_file") {
  auto kernel = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 32), tl::load(x + tl::arange(0, 32))); };
  TracedKernel k = require(trace("here", kernel), "trace here");
  std::string base = std::filesystem::path(__FILE__).filename().string();
  CHECK(contains(k.tileIR(true), base));
  CHECK_FALSE(contains(k.tileIR(), base));
}

TEST_CASE("trace.kernels_are_independent") {
  // Two traces share nothing: a second kernel does not see the first one's values or options.
  TracedKernel a = require(traceVectorAdd(128, 1), "trace a");
  TracedKernel b = require(traceSmallTile(), "trace b");
  CHECK(a.numWarps() == 1);
  CHECK(b.numWarps() == 4);
  CHECK(contains(a.tileIR(), "tile.arange 0, 128"));
  CHECK_FALSE(contains(a.tileIR(), "tile.arange 0, 16 "));
  CHECK(contains(b.tileIR(), "tile.arange 0, 16"));
}

// ---- parseTileIR -------------------------------------------------------------------------------

namespace {

void checkRoundTrip(bool withLocations) {
  TracedKernel original = require(traceMixedSignature(), "trace mixed");
  std::string text = original.tileIR(withLocations);
  INFO("tile IR:\n", text);
  auto parsed = parseTileIR(text, "mixed.tile");
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().toString());
  REQUIRE(parsed->size() == 1);
  const TracedKernel &k = (*parsed)[0];
  CHECK(k.name() == original.name());
  CHECK(k.numWarps() == original.numWarps());
  CHECK(signatureText(k.signature()) == signatureText(original.signature()));
  CHECK(k.tileIR() == original.tileIR());

  Artifact spirv = require(compileArtifact(k, spirvTarget(32)), "compile parsed kernel for SPIR-V");
  CHECK(validateSpirv(spirvWords(spirv)).ok());
  Artifact ptx = require(compileArtifact(k, nvptxTarget("sm_90")), "compile parsed kernel for PTX");
  CHECK(contains(ptxText(ptx), ".entry mixed"));
}

} // namespace

TEST_CASE("parse_tile_ir.round_trip") { checkRoundTrip(false); }

// `tessera compile` reads tile IR files, so the located form a kernel prints must parse too.
TEST_CASE("parse_tile_ir.round_trip_with_locations") { checkRoundTrip(true); }

TEST_CASE("parse_tile_ir.malformed_text") {
  auto r = parseTileIR("func.func @k(%x: !tile.ptr<f32>) attributes {tile.kernel} {\n  return\n", "broken.tile");
  REQUIRE_FALSE(r.ok());
  INFO("message: ", r.status().message());
  CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(r.status().message(), "cannot parse tile IR"));
  // The parser's own diagnostic, with its location in the buffer.
  CHECK(contains(r.status().message(), "\"broken.tile\":2:"));
  CHECK(contains(r.status().message(), "expected"));
}

TEST_CASE("parse_tile_ir.no_kernel_function") {
  auto r = parseTileIR("module {\n  func.func @helper() {\n    return\n  }\n}\n", "plain.tile");
  REQUIRE_FALSE(r.ok());
  INFO("message: ", r.status().message());
  CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(r.status().message(), "no function marked 'tile.kernel' in plain.tile"));
}

TEST_CASE("parse_tile_ir.unsupported_argument_type") {
  auto r = parseTileIR("func.func @k(%x: f64) attributes {tile.kernel} {\n  return\n}\n", "f64.tile");
  REQUIRE_FALSE(r.ok());
  INFO("message: ", r.status().message());
  CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(r.status().message(), "argument #0 has type f64"));
}

TEST_CASE("parse_tile_ir.several_kernels") {
  TracedKernel a = require(traceVectorAdd(128, 1), "trace vector_add");
  TracedKernel b = require(traceIntMix(), "trace int_mix");
  // Two kernel functions in one module: each comes back as its own kernel.
  std::string text = a.tileIR();
  std::string second = b.tileIR();
  size_t open = text.rfind('}');
  size_t from = second.find('{') + 1, to = second.rfind('}');
  REQUIRE(open != std::string::npos);
  text = text.substr(0, open) + second.substr(from, to - from) + "}\n";
  auto parsed = parseTileIR(text);
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().toString() << "\n" << text);
  REQUIRE(parsed->size() == 2);
  CHECK((*parsed)[0].name() == "vector_add");
  CHECK((*parsed)[1].name() == "int_mix");
  CHECK((*parsed)[1].signature() == b.signature());
}
