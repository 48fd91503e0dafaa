// Mistakes in a kernel come back from trace() as CompileError naming this file and the offending line.
#include "TestSupport.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

/// `r` failed with a CompileError at `file:line:` (this file) whose message has `phrase`; then
/// a correct kernel traced on the same thread must still work (the tracer recovered).
void expectUserError(const Result<TracedKernel> &r, int line, const std::string &phrase) {
  REQUIRE_FALSE(r.ok());
  std::string message = r.status().message(); // status() returns a copy
  INFO("message: ", message);
  CHECK(codeOf(r.status()) == codeName(StatusCode::CompileError));
  CHECK(line > 0); // the lambda ran up to the offending line
  CHECK(contains(message, std::string(__FILE__) + ":" + std::to_string(line) + ":"));
  CHECK(contains(message, "error: "));
  CHECK(contains(message, phrase));

  Result<TracedKernel> after = traceVectorAdd(128, 4);
  CHECK_MESSAGE(after.ok(), "tracing after the error failed: " << after.status().toString());
}

} // namespace

TEST_CASE("trace_error.shape_mismatch") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    tl::Tile a = tl::arange(0, 128), b = tl::arange(0, 64);
    line = __LINE__; (void)(a + b);
  });
  expectUserError(r, line, "shape mismatch in '+'");
}

TEST_CASE("trace_error.type_mismatch") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile values = tl::load(x + offs);
    line = __LINE__; (void)(values + offs);
  });
  expectUserError(r, line, "type mismatch in '+': f32 and i32");
}

TEST_CASE("trace_error.arange_not_power_of_two") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    line = __LINE__; (void)tl::arange(0, 100);
  });
  expectUserError(r, line, "arange(0, 100) has 100 elements; tile lengths must be powers of two");
}

TEST_CASE("trace_error.arange_empty") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    line = __LINE__; (void)tl::arange(5, 5);
  });
  expectUserError(r, line, "arange(5, 5) is empty");
}

TEST_CASE("trace_error.program_id_axis_out_of_range") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    line = __LINE__; (void)tl::program_id(3);
  });
  expectUserError(r, line, "program_id axis 3 is out of range");
}

TEST_CASE("trace_error.float_constant_with_i32_tile") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    tl::Tile offs = tl::arange(0, 32);
    line = __LINE__; (void)(offs * 1.5);
  });
  expectUserError(r, line, "floating-point constant 1.5");
}

TEST_CASE("trace_error.and_on_non_masks") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    tl::Tile f = tl::full({32}, 1.0f, DType::F32);
    line = __LINE__; (void)(f & f);
  });
  expectUserError(r, line, "'&' needs integers or masks, got f32");
}

TEST_CASE("trace_error.not_on_non_mask") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    tl::Tile f = tl::full({32}, 1.0f, DType::F32);
    line = __LINE__; (void)!f;
  });
  expectUserError(r, line, "'!' needs a mask (bool tile) or integers");
}

TEST_CASE("trace_error.load_mask_not_a_mask") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 32);
    line = __LINE__; (void)tl::load(x + offs, offs);
  });
  expectUserError(r, line, "load mask must be a mask (bool tile)");
}

TEST_CASE("trace_error.store_i32_into_float_buffer") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float> out) {
    tl::Tile offs = tl::arange(0, 32);
    line = __LINE__; tl::store(out + offs, offs);
  });
  expectUserError(r, line, "store of i32 values into a buffer of f32");
}

TEST_CASE("trace_error.float_pointer_offsets") {
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float> x) {
    tl::Tile values = tl::load(x + tl::arange(0, 32));
    line = __LINE__; (void)tl::load(x + values);
  });
  expectUserError(r, line, "pointer offsets must be an i32 tile");
}

TEST_CASE("trace_error.num_warps_not_power_of_two") {
  auto kernel = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 32), tl::load(x + tl::arange(0, 32))); };
  int line = __LINE__; auto r = trace("bad", kernel, {.numWarps = 3});
  expectUserError(r, line, "numWarps = 3 must be a power of two from 1 to 32");
}

TEST_CASE("trace_error.num_warps_too_large") {
  auto kernel = [](tl::Ptr<float> x) { tl::store(x + tl::arange(0, 32), tl::load(x + tl::arange(0, 32))); };
  int line = __LINE__; auto r = trace("bad", kernel, {.numWarps = 64});
  expectUserError(r, line, "numWarps = 64 must be a power of two from 1 to 32");
}

TEST_CASE("trace_error.arg_names_count_mismatch") {
  auto kernel = [](tl::Ptr<float>, tl::Ptr<float>, tl::Scalar<int32_t>) {};
  int line = __LINE__; auto r = trace("bad", kernel, {.argNames = {"x", "y"}});
  expectUserError(r, line, "argNames has 2 names but the kernel has 3 parameters");
}

TEST_CASE("trace_error.arg_name_not_identifier") {
  auto kernel = [](tl::Ptr<float>, tl::Scalar<int32_t>) {};
  int line = __LINE__; auto r = trace("bad", kernel, {.argNames = {"x", "2n"}});
  expectUserError(r, line, "argument name '2n' is not an identifier");
}

TEST_CASE("trace_error.kernel_name_not_identifier") {
  auto kernel = [](tl::Ptr<float>) {};
  int line = __LINE__; auto r = trace("my kernel", kernel);
  expectUserError(r, line, "kernel name 'my kernel' is not an identifier");
}

TEST_CASE("trace_error.first_error_wins") {
  // Tracing stops at the first mistake: the later one is never reported.
  int line = 0;
  auto r = trace("bad", [&](tl::Ptr<float>) {
    line = __LINE__; (void)tl::arange(0, 3);
    (void)tl::program_id(7);
  });
  expectUserError(r, line, "arange(0, 3)");
  CHECK_FALSE(contains(r.status().message(), "axis 7"));
}
