// Element types without a device: names, sizes, f16/bf16 host conversions, KernelArg's scalar
// types (including what must not compile) and packages that carry every dtype.
#include "TestSupport.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

using namespace tessera;
using namespace tessera::test;

namespace {

struct DTypeFacts {
  DType type;
  const char *name;
  size_t bytes;
};

constexpr DTypeFacts kAll[] = {
    {DType::F32, "f32", 4}, {DType::I32, "i32", 4}, {DType::Bool, "bool", 1}, {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2}, {DType::I8, "i8", 1},  {DType::I16, "i16", 2},   {DType::I64, "i64", 8},
    {DType::U8, "u8", 1},     {DType::U32, "u32", 4},
};

uint16_t f16Bits(float f) { return f16::fromFloat(f).bits; }
uint16_t bf16Bits(float f) { return bf16::fromFloat(f).bits; }

// Only the scalar types KernelArg names may become scalars implicitly; everything else must be cast.
static_assert(std::is_constructible_v<KernelArg, int32_t>);
static_assert(std::is_constructible_v<KernelArg, int64_t>);
static_assert(std::is_constructible_v<KernelArg, uint32_t>);
static_assert(std::is_constructible_v<KernelArg, float>);
static_assert(std::is_constructible_v<KernelArg, f16>);
static_assert(std::is_constructible_v<KernelArg, bf16>);
static_assert(!std::is_constructible_v<KernelArg, size_t>);
static_assert(!std::is_constructible_v<KernelArg, unsigned long long>);
static_assert(std::is_same_v<int64_t, long long> || !std::is_constructible_v<KernelArg, long long>);
static_assert(std::is_same_v<int64_t, long> || !std::is_constructible_v<KernelArg, long>);
static_assert(!std::is_constructible_v<KernelArg, short>);
static_assert(!std::is_constructible_v<KernelArg, unsigned short>);
static_assert(!std::is_constructible_v<KernelArg, int8_t>);
static_assert(!std::is_constructible_v<KernelArg, uint8_t>);
static_assert(!std::is_constructible_v<KernelArg, char>);
static_assert(!std::is_constructible_v<KernelArg, bool>);
static_assert(!std::is_constructible_v<KernelArg, double>);

template <class T> T scalarValue(const KernelArg &a) {
  T v;
  std::memcpy(&v, a.scalarBytes(), sizeof v);
  return v;
}

} // namespace

TEST_CASE("dtype.names_round_trip") {
  for (const DTypeFacts &d : kAll) {
    CAPTURE(d.name);
    CHECK(std::string(toString(d.type)) == d.name);
    REQUIRE(parseDType(d.name).has_value());
    CHECK(nameOf(*parseDType(d.name)) == nameOf(d.type));
  }
  CHECK_FALSE(parseDType("F32").has_value()); // names are lowercase, exactly
  CHECK_FALSE(parseDType("float").has_value());
  CHECK_FALSE(parseDType("").has_value());
  CHECK(std::string(toString(static_cast<DType>(0))) == "unknown-dtype");
  CHECK(std::string(toString(static_cast<DType>(11))) == "unknown-dtype");
}

TEST_CASE("dtype.sizes_and_classes") {
  for (const DTypeFacts &d : kAll) {
    CAPTURE(d.name);
    CHECK(sizeOf(d.type) == d.bytes);
  }
  CHECK(sizeOf(static_cast<DType>(0)) == 0);
  CHECK(sizeOf(static_cast<DType>(200)) == 0);
  CHECK(isFloat(DType::F16));
  CHECK(isFloat(DType::BF16));
  CHECK_FALSE(isFloat(DType::I64));
  CHECK(isUnsigned(DType::U8));
  CHECK(isUnsigned(DType::U32));
  CHECK_FALSE(isUnsigned(DType::I8));
  CHECK(isInteger(DType::I64));
  CHECK_FALSE(isInteger(DType::Bool));
  CHECK(nameOf(DTypeOf<int64_t>::value) == nameOf(DType::I64));
  CHECK(nameOf(DTypeOf<f16>::value) == nameOf(DType::F16));
  CHECK(nameOf(DTypeOf<uint8_t>::value) == nameOf(DType::U8));
}

TEST_CASE("dtype.f16_conversion_spot_checks") {
  CHECK(f16Bits(1.0f) == 0x3c00);
  CHECK(f16Bits(-2.0f) == 0xc000);
  CHECK(f16Bits(65504.0f) == 0x7bff);                  // largest finite
  CHECK(f16Bits(65519.0f) == 0x7bff);                  // below the midpoint to 65536
  CHECK(f16Bits(65520.0f) == 0x7c00);                  // the midpoint rounds (to even) to infinity
  CHECK(f16Bits(std::ldexp(1.0f, -24)) == 0x0001);     // smallest subnormal
  CHECK(f16Bits(std::ldexp(1.0f, -25)) == 0x0000);     // half of it: tie, to even = 0
  CHECK(f16Bits(std::ldexp(3.0f, -25)) == 0x0002);     // 1.5 units: tie, to even = 2
  CHECK(f16Bits(std::ldexp(1.0f, -14)) == 0x0400);     // smallest normal
  CHECK(f16Bits(-0.0f) == 0x8000);
  CHECK(f16Bits(1.0f + std::ldexp(1.0f, -11)) == 0x3c00); // tie between 1 and 1+2^-10: even
  CHECK(f16Bits(std::numeric_limits<float>::infinity()) == 0x7c00);
  uint16_t nan = f16Bits(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x03ff) != 0);
  CHECK(std::isnan(f16::fromBits(0x7e00).toFloat()));
  CHECK(f16::fromBits(0x0001).toFloat() == std::ldexp(1.0f, -24));
  CHECK(f16::fromBits(0x7bff).toFloat() == 65504.0f);
  // Every non-NaN half survives half -> float -> half exactly.
  size_t mismatches = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    f16 h = f16::fromBits(uint16_t(b));
    if (std::isnan(h.toFloat())) continue;
    if (f16::fromFloat(h.toFloat()).bits != h.bits) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("dtype.bf16_conversion_spot_checks") {
  CHECK(bf16Bits(1.0f) == 0x3f80);
  CHECK(bf16Bits(1.00390625f) == 0x3f80); // 1 + 2^-8: tie between 0x3f80 and 0x3f81, to even
  CHECK(bf16Bits(1.01171875f) == 0x3f82); // 1 + 3 * 2^-8: tie between 0x3f81 and 0x3f82, to even
  CHECK(bf16Bits(1.0078125f) == 0x3f81);  // exact
  CHECK(bf16Bits(-0.0f) == 0x8000);
  CHECK(bf16Bits(std::numeric_limits<float>::infinity()) == 0x7f80);
  uint16_t nan = bf16Bits(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7f80) == 0x7f80);
  CHECK((nan & 0x007f) != 0);
  CHECK(std::isnan(bf16::fromBits(nan).toFloat()));
  size_t mismatches = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    bf16 h = bf16::fromBits(uint16_t(b));
    if (std::isnan(h.toFloat())) continue;
    if (bf16::fromFloat(h.toFloat()).bits != h.bits) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("kernel_arg.scalar_types") {
  std::initializer_list<KernelArg> literals = {5, 5u, 2.0f, int64_t(-5)};
  std::vector<std::string> types;
  for (const KernelArg &a : literals) types.push_back(nameOf(a.dtype()));
  CHECK(types == std::vector<std::string>{"i32", "u32", "f32", "i64"}); // a plain literal is i32
  CHECK(scalarValue<int64_t>(KernelArg(int64_t(-0x123456789ab))) == -0x123456789ab);
  CHECK(scalarValue<uint32_t>(KernelArg(0xdeadbeefu)) == 0xdeadbeefu);
  KernelArg half(f16::fromFloat(1.5f));
  CHECK(nameOf(half.dtype()) == nameOf(DType::F16));
  CHECK(scalarValue<uint16_t>(half) == 0x3e00);
  KernelArg brain(bf16::fromFloat(1.5f));
  CHECK(nameOf(brain.dtype()) == nameOf(DType::BF16));
  CHECK(scalarValue<uint16_t>(brain) == 0x3fc0);
  KernelArg small = KernelArg::scalar<int16_t>(-3);
  CHECK(nameOf(small.dtype()) == nameOf(DType::I16));
  CHECK(scalarValue<int16_t>(small) == -3);
  CHECK(nameOf(KernelArg::scalar<uint8_t>(200).dtype()) == nameOf(DType::U8));
  CHECK(scalarValue<uint8_t>(KernelArg::scalar<uint8_t>(200)) == 200);
  CHECK(nameOf(KernelArg::scalar<int8_t>(-1).dtype()) == nameOf(DType::I8));
  CHECK(nameOf(KernelArg::scalar<int32_t>(7).dtype()) == nameOf(DType::I32));
  CHECK(half.kind() == ArgKind::Scalar);
}

TEST_CASE("package.every_dtype_round_trip") {
  KernelEntry k;
  k.name = "every_dtype";
  uint32_t binding = 0, offset = 0;
  for (const DTypeFacts &d : kAll) {
    k.args.push_back({std::string("b_") + d.name, ArgKind::Buffer, d.type, binding++});
    offset = (offset + uint32_t(d.bytes) - 1) / uint32_t(d.bytes) * uint32_t(d.bytes); // natural alignment
    k.args.push_back({std::string("s_") + d.name, ArgKind::Scalar, d.type, offset});
    offset += uint32_t(d.bytes);
  }
  k.artifacts.push_back(spirvArtifact(0));
  k.artifacts.back().pushConstantBytes = (offset + 3) / 4 * 4;
  Package p;
  p.kernels.push_back(k);
  std::vector<uint8_t> bytes = serializePackage(p);
  auto back = parsePackage(bytes);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == p);
  REQUIRE(back->kernels[0].args.size() == 2 * std::size(kAll));
  for (size_t i = 0; i < std::size(kAll); ++i) CHECK(nameOf(back->kernels[0].args[2 * i].dtype) == kAll[i].name);

  // The dtype byte of the first argument: header 32 + count 4 + name (8 + 11) + argCount 4 + arg name (8 + 5) + kind.
  size_t dtypeAt = 32 + 4 + 8 + 11 + 4 + 8 + 5 + 1;
  REQUIRE(bytes[dtypeAt] == uint8_t(DType::F32));
  for (uint8_t bad : {uint8_t(0), uint8_t(11), uint8_t(255)}) {
    CAPTURE(int(bad));
    std::vector<uint8_t> b = bytes;
    b[dtypeAt] = bad;
    resealPackage(b);
    auto r = parsePackage(b);
    CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
    CHECK(contains(r.status().message(), "unknown argument dtype " + std::to_string(bad)));
  }
  for (uint8_t good = 1; good <= 10; ++good) {
    std::vector<uint8_t> b = bytes;
    b[dtypeAt] = good;
    resealPackage(b);
    CHECK(parsePackage(b).ok());
  }
}
