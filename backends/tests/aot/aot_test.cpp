// The AOT path end to end: aot_test_kernels.cpp and aot_test_float_kernels.cpp compiled by the
// build tree's `tessera compile` (through tessera_add_kernels) into aot_test_kernels.hpp, whose
// typed launch functions this program calls on the default device with fresh random inputs and
// poisoned outputs, comparing every element exactly with the host. It links only the runtime.
// Then the errors a caller gets: a package whose kernels take other arguments, a buffer of the
// wrong element type.
#include "aot_test_block.hpp"
#include "aot_test_kernels.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

bool ok(const tessera::Status &s, const char *what) {
  if (!s)
    std::fprintf(stderr, "FAIL: %s: %s\n", what, s.toString().c_str());
  failures += !s;
  return bool(s);
}

template <class T> tessera::Buffer upload(tessera::Device &dev, const std::vector<T> &host) {
  tessera::Result<tessera::Buffer> b = dev.allocate(tessera::DTypeOf<T>::value, host.size());
  if (!b || !b->upload(std::span<const T>(host)))
    std::fprintf(stderr, "FAIL: allocating or uploading %zu elements\n", host.size()), ++failures;
  return b ? *b : tessera::Buffer();
}

// A buffer of n elements that all read 0xAB bytes: anything not written by the kernel shows.
template <class T> tessera::Buffer poisoned(tessera::Device &dev, size_t n) {
  std::vector<T> host(n);
  std::memset(host.data(), 0xAB, host.size() * sizeof(T));
  return upload(dev, host);
}

template <class T> std::vector<T> download(const tessera::Buffer &b, size_t n) {
  std::vector<T> host(n);
  ok(b.download(std::span<T>(host)), "download");
  return host;
}

template <class T> void expectEqual(const std::vector<T> &got, const std::vector<T> &want, const std::string &what) {
  size_t differ = 0;
  for (size_t i = 0; i < want.size(); ++i)
    differ += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
  check(differ == 0, what + ": " + std::to_string(differ) + " of " + std::to_string(want.size()) + " elements differ");
}

tessera::Grid gridFor(size_t n) { return {uint32_t((n + kAotTestBlock - 1) / kAotTestBlock), 1, 1}; }

void runKernels(tessera::Device &dev, const aot_test_kernels::Kernels &k, size_t n, std::mt19937 &rng) {
  const std::string at = " (n = " + std::to_string(n) + ")";
  const int32_t count = int32_t(n);
  std::uniform_int_distribution<int32_t> i32(-1000000, 1000000);
  std::uniform_int_distribution<uint32_t> u32;
  std::uniform_real_distribution<float> f32(-1000.0f, 1000.0f);

  std::vector<int32_t> xi(n);
  for (int32_t &v : xi) v = i32(rng);
  const int32_t a = i32(rng) % 1000;
  const int64_t b = int64_t(i32(rng)) * 1000003;
  std::vector<int64_t> wantI64(n);
  for (size_t i = 0; i < n; ++i) wantI64[i] = int64_t(int32_t(uint32_t(xi[i]) * uint32_t(a))) + b;
  tessera::Buffer x = upload(dev, xi), out = poisoned<int64_t>(dev, n);
  ok(k.affine_i64(gridFor(n), x, out, a, b, count), "affine_i64");
  expectEqual(download<int64_t>(out, n), wantI64, "affine_i64" + at);

  std::vector<uint32_t> xu(n);
  for (uint32_t &v : xu) v = u32(rng);
  const uint32_t m = u32(rng);
  std::vector<uint8_t> wantU8(n);
  for (size_t i = 0; i < n; ++i) wantU8[i] = uint8_t((xu[i] ^ m) & 255u);
  tessera::Buffer xb = upload(dev, xu), lo = poisoned<uint8_t>(dev, n);
  ok(k.low_byte(gridFor(n), xb, lo, m, count), "low_byte");
  expectEqual(download<uint8_t>(lo, n), wantU8, "low_byte" + at);

  std::vector<uint32_t> wantIota(n);
  for (size_t i = 0; i < n; ++i) wantIota[i] = uint32_t(i) + m;
  tessera::Buffer iota = poisoned<uint32_t>(dev, n);
  ok(k.iota_u32(gridFor(n), iota, m, count), "iota_u32");
  expectEqual(download<uint32_t>(iota, n), wantIota, "iota_u32" + at);

  std::vector<float> xf(n), wantF32(n);
  for (float &v : xf) v = f32(rng);
  const float s = std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
  for (size_t i = 0; i < n; ++i) wantF32[i] = xf[i] * s;
  tessera::Buffer xs = upload(dev, xf), scaled = poisoned<float>(dev, n);
  ok(k.scale(gridFor(n), xs, scaled, s, count), "scale");
  expectEqual(download<float>(scaled, n), wantF32, "scale" + at);
  // The same through the overload on a stream: scaled twice, read back asynchronously.
  tessera::Result<tessera::Stream> stream = dev.createStream();
  if (!ok(stream.status(), "createStream")) return;
  tessera::Buffer twice = poisoned<float>(dev, n);
  ok(k.scale(gridFor(n), scaled, twice, s, count, *stream), "scale on a stream");
  std::vector<float> gotTwice(n), wantTwice(n);
  for (size_t i = 0; i < n; ++i) wantTwice[i] = wantF32[i] * s;
  ok(twice.downloadAsync(gotTwice.data(), n * sizeof(float), 0, *stream), "downloadAsync");
  ok(stream->synchronize(), "stream synchronize");
  expectEqual(gotTwice, wantTwice, "scale on a stream" + at);

  std::vector<tessera::f16> xh(n);
  for (tessera::f16 &v : xh) v = tessera::f16::fromBits(uint16_t(u32(rng) % 0x7c00u) | uint16_t(u32(rng) & 0x8000u));
  for (size_t i = 0; i < n; ++i) wantF32[i] = xh[i].toFloat() * s; // finite f16s, denormals included
  tessera::Buffer xhb = upload(dev, xh), widened = poisoned<float>(dev, n);
  ok(k.widen_f16(gridFor(n), xhb, widened, s, count), "widen_f16");
  expectEqual(download<float>(widened, n), wantF32, "widen_f16 (portable)" + at);
}

// What a caller gets wrong: a package built from other kernel files, a buffer of another dtype.
void runErrors(tessera::Device &dev, const aot_test_kernels::Kernels &k) {
  tessera::Result<tessera::Package> pkg = tessera::parsePackage(aot_test_kernels::kPackage);
  if (!pkg)
    return (void)ok(pkg.status(), "parsing the embedded package");
  for (tessera::KernelEntry &e : pkg->kernels)
    if (e.name == "low_byte") e.args[2].dtype = tessera::DType::I32; // m: u32 -> i32
  tessera::Result<aot_test_kernels::Kernels> other = aot_test_kernels::Kernels::load(dev, *pkg);
  const std::string expected = "kernel 'low_byte' of this package takes other arguments";
  check(!other && other.status().code() == tessera::StatusCode::InvalidArgument &&
            other.status().message().find(expected) != std::string::npos,
        "loading a package whose low_byte takes other arguments: " + other.status().toString());

  tessera::Buffer f = poisoned<float>(dev, 4), i = poisoned<int64_t>(dev, 4);
  tessera::Status wrong = k.affine_i64({1, 1, 1}, f, i, 1, int64_t(2), 4);
  check(!wrong && wrong.message().find("argument 0 'x'") != std::string::npos,
        "a buffer of f32 where i32 is declared: " + wrong.toString());
  check(k.find("scale") && k.find("scale")->entry().args.size() == 4 && !k.find("nonesuch"), "Kernels::find");
}

} // namespace

int main() {
  auto runtime = tessera::Runtime::create();
  if (!runtime)
    return std::fprintf(stderr, "FAIL: %s\n", runtime.status().toString().c_str()), 1;
  auto device = (*runtime)->openDefault();
  if (!device)
    return std::fprintf(stderr, "FAIL: %s\n", device.status().toString().c_str()), 1;
  auto kernels = aot_test_kernels::Kernels::load(**device);
  if (!kernels)
    return std::fprintf(stderr, "FAIL: load: %s\n", kernels.status().toString().c_str()), 1;
  const uint32_t seed = std::random_device{}();
  std::printf("aot_test on %s, seed %u\n", (*device)->describe().c_str(), seed);
  std::mt19937 rng(seed);
  for (size_t n : {size_t(1), size_t(127), size_t(128), size_t(1000), size_t(4099)})
    runKernels(**device, *kernels, n, rng);
  runErrors(**device, *kernels);
  if (failures)
    return std::fprintf(stderr, "%d failures (seed %u)\n", failures, seed), 1;
  std::printf("aot_test: PASS\n");
  return 0;
}
