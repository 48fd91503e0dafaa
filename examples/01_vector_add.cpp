// 01_vector_add: the smallest complete Tessera program.
//
// You will learn how a kernel is written (program ids, aranges, masks, loads and stores), how
// it is traced and compiled for the device at hand, launched over a grid and checked against
// the CPU. Run: 01_vector_add [n] [--block=B]. Exit code 0 means bit-exact.
//
// Built with TESSERA_EXAMPLE_AOT the program has no compiler: it loads the package that the
// normal build writes with --write-package=DIR (for machines that carry only the runtime).
#include "tessera/runtime/Runtime.hpp"
#ifndef TESSERA_EXAMPLE_AOT
#include "tessera/tessera.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifndef TESSERA_EXAMPLE_AOT
namespace tl = tessera::tl;

// One program adds BLOCK elements; the mask keeps the last programs inside the arrays. The
// grid may be 2-D: some devices launch at most 65535 programs along an axis.
tessera::Result<tessera::TracedKernel> traceVectorAdd(int BLOCK) {
  auto add = [BLOCK](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile pid = tl::program_id(0) + tl::program_id(1) * tl::num_programs(0);
    tl::Tile offs = pid * BLOCK + tl::arange(0, BLOCK);
    tl::Tile mask = offs < n;
    tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
  };
  return tessera::trace("vector_add", add, {.numWarps = 4, .argNames = {"x", "y", "out", "n"}});
}
#endif

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "01_vector_add: %s: %s\n", what, s.toString().c_str());
  return 1;
}

int main(int argc, char **argv) {
  long n = 98432;
  int block = 1024;
  std::string packageDir = ".", writeDir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--block=", 8)) block = std::atoi(argv[i] + 8);
    else if (!std::strncmp(argv[i], "--package-dir=", 14)) packageDir = argv[i] + 14;
    else if (!std::strncmp(argv[i], "--write-package=", 16)) writeDir = argv[i] + 16;
    else n = std::atol(argv[i]);
  }
  std::string packagePath = "/vector_add_b" + std::to_string(block) + ".tspkg";

#ifndef TESSERA_EXAMPLE_AOT
  auto kernel = traceVectorAdd(block);
  if (!kernel) return fail("trace", kernel.status());
  if (!writeDir.empty()) { // every target the GPU test machine and lavapipe need
    std::vector<tessera::TargetDesc> targets{tessera::nvptxTarget("sm_90"), tessera::spirvTarget(8),
                                             tessera::spirvTarget(32)};
    auto pkg = tessera::compile(std::span(&*kernel, 1), targets);
    if (!pkg) return fail("compile", pkg.status());
    if (auto s = tessera::writePackageFile(writeDir + packagePath, *pkg); !s) return fail("write", s);
    std::printf("wrote %s%s\n", writeDir.c_str(), packagePath.c_str());
  }
#endif

  auto rt = tessera::Runtime::create();
  if (!rt) return fail("runtime", rt.status());
  auto device = (*rt)->openDefault();
  if (!device) return fail("device", device.status());
  tessera::Device &dev = **device;

#ifndef TESSERA_EXAMPLE_AOT
  auto pkg = tessera::compile(*kernel, dev.target());
#else
  auto pkg = tessera::readPackageFile(packageDir + packagePath);
#endif
  if (!pkg) return fail("compile", pkg.status());
  auto module = dev.load(*pkg);
  if (!module) return fail("load", module.status());
  auto add = module->kernel("vector_add");
  if (!add) return fail("kernel", add.status());

  // Fresh random inputs; the output starts as NaN so unwritten elements show.
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
  std::vector<float> x(n), y(n), out(n, std::nanf("")), expect(n);
  for (long i = 0; i < n; ++i) { x[i] = dist(rng); y[i] = dist(rng); expect[i] = x[i] + y[i]; }

  auto bx = dev.allocate(tessera::DType::F32, n), by = dev.allocate(tessera::DType::F32, n),
       bo = dev.allocate(tessera::DType::F32, n);
  if (!bx || !by || !bo) return fail("allocate", !bx ? bx.status() : !by ? by.status() : bo.status());
  for (auto [buf, host] : {std::pair{&*bx, &x}, {&*by, &y}, {&*bo, &out}})
    if (auto s = buf->upload(std::span<const float>(*host)); !s) return fail("upload", s);

  uint32_t programs = uint32_t((n + block - 1) / block);
  uint32_t gx = std::min(programs, dev.backendInfo().maxGroupCount[0]), gy = gx ? (programs + gx - 1) / gx : 0;
  if (programs > 0) // an empty grid is an error; with n = 0 there is nothing to do
    if (auto s = add->launch({gx, gy}, {*bx, *by, *bo, int32_t(n)}); !s) return fail("launch", s);
  if (auto s = bo->download(std::span<float>(out)); !s) return fail("download", s);

  long bad = 0;
  for (long i = 0; i < n; ++i)
    if (std::memcmp(&out[i], &expect[i], sizeof(float)) != 0 && bad++ < 5)
      std::fprintf(stderr, "  out[%ld] = %.9g, expected %.9g\n", i, out[i], expect[i]);
  std::printf("vector_add n=%ld BLOCK=%d on %s, %u programs of %u threads: %s\n", n, block,
              dev.describe().c_str(), programs, add->artifact().blockSize[0],
              bad ? "MISMATCH" : "bit-exact");
  return bad ? 1 : 0;
}
