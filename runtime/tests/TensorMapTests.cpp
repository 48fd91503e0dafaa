// The tensor maps of a bulk-tensor-copy artifact for one launch (drivers/cuda/TensorMaps.hpp):
// what cuTensorMapEncodeTiled gets, and each launch that must run the other artifact instead.
// No GPU needed: the fields come from the spec and the launch's arguments alone.
#include "TestSupport.hpp"

#include "cuda/TensorMaps.hpp"

using namespace tessera;
using namespace tessera::cuda;
using namespace tessera::test;

namespace {

/// matmul-like arguments: a (f16 buffer), m, n, k (i32 scalars).
struct Launch {
  std::vector<ArgSpec> specs = {{"a", ArgKind::Buffer, DType::F16, 0},
                                {"m", ArgKind::Scalar, DType::I32, 0},
                                {"n", ArgKind::Scalar, DType::I32, 4},
                                {"k", ArgKind::Scalar, DType::I32, 8}};
  int32_t m = 1000, n = 512, k = 264;
  std::vector<uint64_t> addresses = {0x7f0000100000ull, 0, 0, 0};
  std::vector<detail::LaunchArg> args() const {
    return {{&specs[0], nullptr, nullptr}, {&specs[1], nullptr, &m}, {&specs[2], nullptr, &n}, {&specs[3], nullptr, &k}};
  }
  std::optional<TensorMapRequest> request(const TensorMapSpec &spec, std::string *why) const {
    std::vector<detail::LaunchArg> a = args();
    return tensorMapRequest(spec, a, addresses, why);
  }
};

// A's map: m x k elements, rows k apart, boxes of 8 x 64 in 128-byte rows.
const TensorMapSpec kMapA{0, {1, 0}, {3, 0}, {3, 0}, 8, 64, 128};

} // namespace

TEST_CASE("tensor_map.fields_from_the_arguments") {
  Launch l;
  std::string why;
  std::optional<TensorMapRequest> r = l.request(kMapA, &why);
  REQUIRE_MESSAGE(r, why);
  CHECK(r->address == l.addresses[0]);
  CHECK(r->rows == 1000);
  CHECK(r->cols == 264);
  CHECK(r->strideBytes == 528);
  CHECK(r->boxRows == 8);
  CHECK(r->boxCols == 64);
  CHECK(r->swizzleBytes == 128);
  // Constants instead of arguments.
  TensorMapSpec constant{0, {-1, 64}, {2, 0}, {-1, 4096}, 64, 64, 128};
  r = l.request(constant, &why);
  REQUIRE_MESSAGE(r, why);
  CHECK(r->rows == 64);
  CHECK(r->cols == 512);
  CHECK(r->strideBytes == 8192);
}

TEST_CASE("tensor_map.a_stack_of_matrices") {
  // Attention's heads: slices of m x 128 elements, as many as 32-bit offsets reach.
  Launch l;
  std::string why;
  std::optional<TensorMapRequest> r = l.request(TensorMapSpec{0, {1, 0}, {-1, 128}, {-1, 128}, 32, 64, 128, 3}, &why);
  REQUIRE_MESSAGE(r, why);
  CHECK(r->rank == 3);
  CHECK(r->rows == 1000);
  CHECK(r->cols == 128);
  CHECK(r->strideBytes == 256);
  CHECK(r->sliceBytes == 1000 * 256);
  CHECK(r->slices == uint64_t(INT32_MAX / (1000 * 128)));
  CHECK_FALSE(l.request(TensorMapSpec{0, {1, 0}, {-1, 128}, {-1, 128}, 32, 64, 128, 4}, &why));
  CHECK(contains(why, "rank 4"));
}

TEST_CASE("tensor_map.launches_it_cannot_describe") {
  auto refused = [](Launch l, const TensorMapSpec &spec = kMapA) {
    std::string why;
    CHECK_FALSE(l.request(spec, &why));
    return why;
  };
  Launch odd;
  odd.k = 263; // rows of 526 bytes
  CHECK(contains(refused(odd), "row stride of 263 elements is not a multiple of 16 bytes"));
  Launch unaligned;
  unaligned.addresses[0] += 8;
  CHECK(contains(refused(unaligned), "not 16-byte aligned"));
  Launch empty;
  empty.m = 0;
  CHECK(contains(refused(empty), "no elements (0 x 264)"));
  Launch negative;
  negative.k = -8;
  CHECK(contains(refused(negative), "no elements"));
  // A row longer than the stride: rows would overlap.
  CHECK(contains(refused(Launch{}, TensorMapSpec{0, {1, 0}, {2, 0}, {3, 0}, 8, 64, 128}),
                 "is not a multiple of 16 bytes at least a row (512 elements) long"));
  // Past the kernel's 32-bit offsets.
  Launch huge;
  huge.m = 1 << 22;
  huge.k = 1024;
  CHECK(contains(refused(huge), "32-bit element offsets"));
  // The buffer is a scalar, or a scalar is not i32.
  CHECK(contains(refused(Launch{}, TensorMapSpec{1, {1, 0}, {3, 0}, {3, 0}, 8, 64, 128}), "not a buffer of 16-bit"));
  Launch wide;
  wide.specs[3].dtype = DType::I64;
  CHECK(contains(refused(wide), "argument 3 is not an i32 scalar"));
}
