// Kernel package v3: round trip, exact header layout, and every way a damaged file must be refused.
#include "TestSupport.hpp"

#include <cstdio>
#include <unistd.h>

using namespace tessera;
using namespace tessera::test;

namespace {

Package samplePackage() {
  Package p;
  p.kernels.push_back(addScalarKernel({ptxArtifact("sm_90"), spirvArtifact(8), spirvArtifact(32)}));
  KernelEntry k;
  k.name = "softmax";
  k.args = {{"x", ArgKind::Buffer, DType::F32, 0}, {"rows", ArgKind::Scalar, DType::I32, 0}};
  k.numWarps = 8;
  k.tileIR = "tile.func @softmax(...) { }";
  Artifact a;
  a.target = {TargetKind::PTX, "sm_80", 78, 32};
  a.entryPoint = "softmax_kernel";
  a.blockSize = {256, 1, 1};
  a.sharedMemBytes = 1024;
  for (int i = 0; i < 300; ++i) a.code.push_back(static_cast<uint8_t>(i * 7)); // every byte value, incl. 0
  k.artifacts.push_back(a);
  // The bulk-tensor-copy form of an sm_90a artifact: tensor maps of argument x.
  Artifact t = a;
  t.target.chip = "sm_90a";
  t.tensorMaps.push_back({0, {1, 0}, {-1, 4096}, {-1, 4104}, 8, 64, 128});
  t.tensorMaps.push_back({0, {-1, 7}, {1, 0}, {1, 0}, 64, 32, 64});
  k.artifacts.push_back(t);
  // A variant specialized for launches whose `rows` is a multiple of 16.
  Artifact v = a;
  v.divisibleArgs = {1};
  k.artifacts.push_back(v);
  p.kernels.push_back(k);
  return p;
}

uint64_t readU64(const std::vector<uint8_t> &b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}

void writeU64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

} // namespace

TEST_CASE("package.round_trip") {
  Package p = samplePackage();
  std::vector<uint8_t> bytes = serializePackage(p);
  auto back = parsePackage(bytes);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == p);
  CHECK(serializePackage(*back) == bytes);
}

TEST_CASE("package.zero_kernels") {
  auto back = parsePackage(serializePackage(Package{}));
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(back->kernels.empty());
}

TEST_CASE("package.header_layout") {
  std::vector<uint8_t> b = serializePackage(samplePackage());
  REQUIRE(b.size() > 32);
  const uint8_t magic[8] = {'T', 'S', 'P', 'K', 'G', 0, 0, 0};
  CHECK(std::memcmp(b.data(), magic, 8) == 0);
  CHECK(b[8] == kPackageFormatVersion);
  CHECK(b[9] == 0);
  CHECK(b[12] == 0); // flags
  CHECK(readU64(b, 16) == b.size() - 32);
  CHECK(readU64(b, 24) == fnv1a64(b.data() + 32, b.size() - 32));
  CHECK(b[32] == 2); // kernel count, little endian
  CHECK(readU64(b, 36) == std::strlen("add_scalar"));
}

TEST_CASE("package.file_round_trip") {
  char dir[] = "/tmp/tessera-pkg-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/k.tspkg";
  Package p = samplePackage();
  Status w = writePackageFile(path, p);
  REQUIRE_MESSAGE(w.ok(), w.toString());
  auto back = readPackageFile(path);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == p);
  std::remove(path.c_str());
  rmdir(dir);

  auto missing = readPackageFile(std::string(dir) + "/absent.tspkg");
  CHECK(codeOf(missing.status()) == codeName(StatusCode::NotFound));
  CHECK(contains(missing.status().message(), "absent.tspkg"));
}

TEST_CASE("package.every_truncation_is_corrupt") {
  Package p;
  p.kernels.push_back(addScalarKernel({spirvArtifact(8)}));
  std::vector<uint8_t> b = serializePackage(p);
  for (size_t n = 0; n < b.size(); ++n) {
    auto r = parsePackage(std::span<const uint8_t>(b.data(), n));
    CAPTURE(n);
    REQUIRE_FALSE(r.ok());
    CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
  }
  // Messages say what was expected and what is there.
  auto r = parsePackage(std::span<const uint8_t>(b.data(), b.size() - 10));
  CHECK(contains(r.status().message(), "truncated"));
  CHECK(contains(r.status().message(), std::to_string(b.size() - 32)));
  CHECK(contains(r.status().message(), std::to_string(b.size() - 42)));
}

TEST_CASE("package.trailing_bytes") {
  std::vector<uint8_t> b = serializePackage(samplePackage());
  b.push_back(0);
  auto r = parsePackage(b);
  CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(r.status().message(), "trailing"));
}

TEST_CASE("package.flipped_byte_fails_checksum") {
  std::vector<uint8_t> good = serializePackage(samplePackage());
  for (size_t i = 32; i < good.size(); ++i) {
    std::vector<uint8_t> b = good;
    b[i] ^= 0x40;
    auto r = parsePackage(b);
    CAPTURE(i);
    REQUIRE_FALSE(r.ok());
    CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
    CHECK(contains(r.status().message(), "checksum mismatch"));
  }
}

TEST_CASE("package.bad_magic") {
  std::vector<uint8_t> b = serializePackage(samplePackage());
  b[0] = 'X';
  auto r = parsePackage(b);
  CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(r.status().message(), "not a Tessera kernel package"));
  const char *text = "#!/bin/sh\necho this is a script, not a package\n";
  auto s = parsePackage(std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text), std::strlen(text)));
  CHECK(contains(s.status().message(), "not a Tessera kernel package"));
}

TEST_CASE("package.newer_version_is_unsupported") {
  std::vector<uint8_t> b = serializePackage(samplePackage());
  b[8] = 5;
  auto r = parsePackage(b);
  CHECK(codeOf(r.status()) == codeName(StatusCode::Unsupported));
  CHECK(r.status().message() ==
        "package format version 5 is newer than this runtime reads (4); rebuild the package with this Tessera or "
        "update the runtime");
}

/// An older format's bytes of a one-artifact package: the same package written in the current
/// format, less the last `dropped` bytes (the counts that format adds, all 0). The same bytes
/// read as `version + 1` must be refused for `missing`, its first such count.
void checkOlderVersion(uint8_t version, size_t dropped, const char *missing) {
  CAPTURE(int(version));
  Package p;
  p.kernels.push_back(addScalarKernel({ptxArtifact("sm_90")}));
  std::vector<uint8_t> b = serializePackage(p);
  REQUIRE(b[8] == kPackageFormatVersion);
  for (size_t i = b.size() - dropped; i < b.size(); ++i) REQUIRE(b[i] == 0);
  b.resize(b.size() - dropped);
  b[8] = version;
  writeU64(b, 16, b.size() - 32); // the payload's length
  resealPackage(b);
  auto back = parsePackage(b);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == p);
  b[8] = uint8_t(version + 1);
  resealPackage(b);
  auto newer = parsePackage(b);
  CHECK(codeOf(newer.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(newer.status().message(), std::string("truncated ") + missing));
}

TEST_CASE("package.version_2_still_reads") {
  // Version 2 is version 3 without each artifact's divisible-argument count.
  checkOlderVersion(2, 4, "divisible argument count");
}

TEST_CASE("package.divisible_arguments_are_checked") {
  Package p;
  Artifact a = ptxArtifact("sm_90");
  a.divisibleArgs = {3};
  p.kernels.push_back(addScalarKernel({a}));
  auto ok = parsePackage(serializePackage(p));
  REQUIRE_MESSAGE(ok.ok(), ok.status().toString());
  CHECK(ok->kernels[0].artifacts[0].divisibleArgs == std::vector<uint32_t>{3});
  p.kernels[0].artifacts[0].divisibleArgs = {4};
  auto bad = parsePackage(serializePackage(p));
  CHECK(codeOf(bad.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(bad.status().message(), "divisible argument 4 of a kernel with 4 arguments"));
}

TEST_CASE("package.divisors_round_trip_and_are_checked") {
  // A workgroup-matrix variant: M, N and K multiples of 128, 256 and 64.
  Package p;
  Artifact a = ptxArtifact("sm_90");
  a.divisibleArgs = {1, 2, 3};
  a.divisors = {128, 256, 64};
  p.kernels.push_back(addScalarKernel({a}));
  auto ok = parsePackage(serializePackage(p));
  REQUIRE_MESSAGE(ok.ok(), ok.status().toString());
  CHECK(*ok == p);
  CHECK(ok->kernels[0].artifacts[0].divisorOf(1) == 256);
  // Every divisor 16 reads back as no list (the one form of that).
  p.kernels[0].artifacts[0].divisors = {16, 16, 16};
  auto sixteen = parsePackage(serializePackage(p));
  REQUIRE(sixteen.ok());
  CHECK(sixteen->kernels[0].artifacts[0].divisors.empty());
  CHECK(sixteen->kernels[0].artifacts[0].divisorOf(2) == kSpecializedDivisor);
  p.kernels[0].artifacts[0].divisors = {128, 1, 64};
  auto bad = parsePackage(serializePackage(p));
  CHECK(codeOf(bad.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(bad.status().message(), "argument divisor 1 (at least 2)"));
}

TEST_CASE("package.version_3_reads_every_divisor_as_16") {
  // Version 3 is version 4 without the divisor after each divisible argument.
  Package p;
  Artifact a = ptxArtifact("sm_90");
  a.divisibleArgs = {3};
  p.kernels.push_back(addScalarKernel({a}));
  std::vector<uint8_t> b = serializePackage(p);
  REQUIRE(b.size() > 36);
  CHECK(b[b.size() - 4] == kSpecializedDivisor); // the last field: the divisor of argument 3
  b.resize(b.size() - 4);
  b[8] = 3;
  writeU64(b, 16, b.size() - 32);
  resealPackage(b);
  auto back = parsePackage(b);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == p);
  CHECK(back->kernels[0].artifacts[0].divisorOf(0) == kSpecializedDivisor);
}

TEST_CASE("package.version_1_still_reads") {
  // Version 1 is version 3 without each artifact's tensor-map and divisible-argument counts.
  checkOlderVersion(1, 8, "tensor map count");
}

TEST_CASE("package.tensor_map_fields_are_checked") {
  auto damaged = [](auto change) {
    Package p;
    Artifact a = ptxArtifact("sm_90a");
    a.tensorMaps.push_back({0, {3, 0}, {-1, 64}, {3, 0}, 8, 64, 128});
    p.kernels.push_back(addScalarKernel({a}));
    change(p.kernels[0].artifacts[0].tensorMaps[0]);
    return parsePackage(serializePackage(p));
  };
  CHECK(damaged([](TensorMapSpec &) {}).ok());
  auto buffer = damaged([](TensorMapSpec &m) { m.buffer = 9; });
  CHECK(codeOf(buffer.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(buffer.status().message(), "tensor map buffer argument 9 of a kernel with 4 arguments"));
  auto scalar = damaged([](TensorMapSpec &m) { m.rowStride.arg = 4; });
  CHECK(contains(scalar.status().message(), "tensor map scalar argument 4 of a kernel with 4 arguments"));
  auto swizzle = damaged([](TensorMapSpec &m) { m.swizzleBytes = 96; });
  CHECK(contains(swizzle.status().message(), "tensor map swizzle of 96 bytes"));
}

TEST_CASE("package.length_past_end") {
  std::vector<uint8_t> b = serializePackage(samplePackage());
  // The first kernel's name length sits right after the u32 kernel count, at byte 36.
  writeU64(b, 36, 1ull << 40);
  resealPackage(b); // so the field check, not the checksum, is what must catch it
  auto r = parsePackage(b);
  REQUIRE_FALSE(r.ok());
  CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
  CHECK(contains(r.status().message(), "byte offset 36"));
  CHECK(contains(r.status().message(), "kernel name length"));
}

TEST_CASE("package.absurd_count_and_unknown_enums") {
  SUBCASE("kernel count larger than the file") {
    std::vector<uint8_t> b = serializePackage(samplePackage());
    b[32] = 0xff, b[33] = 0xff, b[34] = 0xff, b[35] = 0x7f;
    resealPackage(b);
    auto r = parsePackage(b);
    CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
    CHECK(contains(r.status().message(), "byte offset 32"));
  }
  SUBCASE("unknown argument kind") {
    Package p;
    p.kernels.push_back(addScalarKernel({}));
    std::vector<uint8_t> b = serializePackage(p);
    // header 32 + count 4 + name (8 + 10) + argCount 4 + arg name (8 + 1) = kind byte at 67.
    size_t kindAt = 32 + 4 + 8 + 10 + 4 + 8 + 1;
    REQUIRE(b[kindAt] == uint8_t(ArgKind::Buffer));
    b[kindAt] = 9;
    resealPackage(b);
    auto r = parsePackage(b);
    CHECK(codeOf(r.status()) == codeName(StatusCode::Corrupt));
    CHECK(contains(r.status().message(), "unknown argument kind 9"));
    CHECK(contains(r.status().message(), "byte offset " + std::to_string(kindAt)));
    b[kindAt] = uint8_t(ArgKind::Buffer);
    b[kindAt + 1] = 77; // dtype
    resealPackage(b);
    CHECK(contains(parsePackage(b).status().message(), "unknown argument dtype 77"));
  }
}

TEST_CASE("package.kernel_entry_find") {
  KernelEntry k = addScalarKernel({spirvArtifact(0), spirvArtifact(32), ptxArtifact()});
  REQUIRE(k.find(TargetKind::SPIRV, 32) != nullptr);
  CHECK(k.find(TargetKind::SPIRV, 32)->target.subgroupSize == 32);
  CHECK(k.find(TargetKind::SPIRV, 8)->target.subgroupSize == 0); // unspecialized code runs anywhere
  CHECK(k.find(TargetKind::PTX, 32) != nullptr);
  KernelEntry only32 = addScalarKernel({spirvArtifact(32)});
  CHECK(only32.find(TargetKind::SPIRV, 8) == nullptr);
  Package p = samplePackage();
  CHECK(p.find("softmax") == &p.kernels[1]);
  CHECK(p.find("nope") == nullptr);
}
