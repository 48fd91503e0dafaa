// Buffers, module loading and launches on every device × backend present (lavapipe on the build machine).
#include "TestSupport.hpp"

#include <cmath>

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr uint32_t kBlock = 64; // add_scalar's workgroup size

struct Loaded {
  std::shared_ptr<Device> device;
  Module module;
  Kernel kernel;
};

Loaded loadAddScalar(Runtime &rt, const TargetRef &t) {
  Loaded l;
  l.device = openTarget(rt, t);
  auto m = l.device->load(packageFor(*l.device));
  REQUIRE_MESSAGE(m.ok(), m.status().toString());
  l.module = *m;
  auto k = l.module.kernel("add_scalar");
  REQUIRE_MESSAGE(k.ok(), k.status().toString());
  l.kernel = *k;
  return l;
}

Buffer allocate(Device &d, DType t, size_t n) {
  auto b = d.allocate(t, n);
  REQUIRE_MESSAGE(b.ok(), b.status().toString());
  return *b;
}

// Expects an InvalidArgument whose message names the kernel and every fragment given.
void expectInvalid(const Status &s, std::initializer_list<const char *> fragments) {
  REQUIRE_FALSE(s.ok());
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(s.message(), "'add_scalar'"));
  for (const char *f : fragments) CHECK_MESSAGE(contains(s.message(), f), s.message() << "  (missing: " << f << ")");
}

} // namespace

TEST_CASE("launch.add_scalar_computes_the_right_values") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    Loaded l = loadAddScalar(*rt, t);
    const uint32_t seed = freshSeed();
    CAPTURE(seed);
    // n is not a multiple of the block, and the buffers are longer than n: both edges are checked.
    const int32_t n = 1000;
    const size_t count = 1024;
    std::vector<float> a = randomFloats(count, seed);
    Buffer in = allocate(*l.device, DType::F32, count);
    Buffer out = allocate(*l.device, DType::F32, count);
    REQUIRE(in.upload(std::span<const float>(a)).ok());
    for (float s : {randomFloats(1, seed + 1)[0], 0.5f}) {
      REQUIRE(poison(out).ok());
      const Grid grid{(n + kBlock - 1) / kBlock, 1, 1};
      Status launched = l.kernel.launch(grid, {in, out, s, n});
      REQUIRE_MESSAGE(launched.ok(), launched.toString());
      std::vector<float> got(count);
      Status downloaded = out.download(std::span<float>(got));
      REQUIRE_MESSAGE(downloaded.ok(), downloaded.toString());
      size_t wrong = 0, unwritten = 0;
      for (int32_t i = 0; i < n; ++i) {
        if (bitsOf(got[i]) == kPoisonBits) ++unwritten;
        else if (got[i] != a[i] + s) ++wrong;
      }
      CHECK(unwritten == 0);
      CHECK(wrong == 0);
      for (size_t i = n; i < count; ++i) CHECK_MESSAGE(bitsOf(got[i]) == kPoisonBits, "wrote past n at " << i);
    }
    CHECK(l.device->synchronize().ok());
  }
}

TEST_CASE("kernel.statistics_describe_the_machine_code") {
  CHECK(Kernel().statistics().empty());
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    Loaded l = loadAddScalar(*rt, t);
    std::vector<KernelStatistic> stats = l.kernel.statistics();
    auto find = [&](std::string_view name) -> const KernelStatistic * {
      for (const KernelStatistic &s : stats)
        if (s.name == name) return &s;
      return nullptr;
    };
    for (const KernelStatistic &s : stats) {
      CHECK_FALSE(s.name.empty());
      CHECK(std::isfinite(s.value));
    }
    if (t.backend == Backend::CUDA) {
      const KernelStatistic *regs = find("registers per thread"), *local = find("local memory per thread"),
                            *threads = find("max threads per program"), *dynamic = find("dynamic shared memory");
      REQUIRE(regs);
      REQUIRE(local);
      REQUIRE(threads);
      REQUIRE(dynamic);
      CHECK(dynamic->value == 0); // add_scalar uses no shared memory
      CHECK(regs->value >= 1);
      CHECK(regs->value <= 255);
      CHECK(local->value == 0); // add_scalar spills nothing
      CHECK(threads->value >= kBlock);
    } else if (l.device->info().isCpu && contains(l.device->info().vendor, "lavapipe")) {
      // lavapipe (Mesa 22.3) does not offer VK_KHR_pipeline_executable_properties: no figures.
      CHECK(stats.empty());
    } else if (contains(l.device->info().vendor, "NVIDIA")) {
      // NVIDIA's Vulkan driver offers them.
      CHECK_FALSE(stats.empty());
    }
  }
}

TEST_CASE("launch.rejects_bad_arguments") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    Loaded l = loadAddScalar(*rt, t);
    Buffer in = allocate(*l.device, DType::F32, 256);
    Buffer out = allocate(*l.device, DType::F32, 256);
    Buffer ints = allocate(*l.device, DType::I32, 256);
    const Grid grid{4, 1, 1};
    REQUIRE(poison(out).ok());

    expectInvalid(l.kernel.launch(grid, {in, out, 1.0f}), {"expects 4 arguments", "got 3", "scalar i32 n"});
    expectInvalid(l.kernel.launch(grid, {in, out, 1.0f, 256, 7}), {"expects 4 arguments", "got 5"});
    expectInvalid(l.kernel.launch(grid, {in, out, out, 256}), {"argument 2 's'", "scalar", "buffer was passed"});
    expectInvalid(l.kernel.launch(grid, {in, 1.0f, 1.0f, 256}), {"argument 1 'out'", "is a buffer", "scalar was passed"});
    expectInvalid(l.kernel.launch(grid, {in, out, 2, 256}), {"argument 2 's'", "f32 scalar", "i32 scalar was passed"});
    expectInvalid(l.kernel.launch(grid, {in, out, 1.0f, 256.0f}), {"argument 3 'n'", "i32 scalar", "f32"});
    expectInvalid(l.kernel.launch(grid, {ints, out, 1.0f, 256}), {"argument 0 'a'", "buffer of f32", "buffer of i32"});
    expectInvalid(l.kernel.launch(grid, {in, static_cast<const Buffer *>(nullptr), 1.0f, 256}),
                  {"argument 1 'out'", "null buffer"});
    Buffer unallocated;
    expectInvalid(l.kernel.launch(grid, {unallocated, out, 1.0f, 256}), {"argument 0 'a'", "null buffer"});
    expectInvalid(l.kernel.launch({0, 1, 1}, {in, out, 1.0f, 256}), {"empty grid", "(0, 1, 1)"});
    expectInvalid(l.kernel.launch({4, 1, 0}, {in, out, 1.0f, 256}), {"empty grid"});
    const auto &limit = l.device->backendInfo().maxGroupCount;
    expectInvalid(l.kernel.launch({limit[0] + 1, 1, 1}, {in, out, 1.0f, 256}),
                  {"grid x", std::to_string(limit[0]).c_str()});
    if (limit[1] < UINT32_MAX)
      expectInvalid(l.kernel.launch({1, limit[1] + 1, 1}, {in, out, 1.0f, 256}), {"grid y"});

    // None of the refused launches ran.
    std::vector<uint32_t> bits(256);
    REQUIRE(out.download(bits.data(), bits.size() * 4).ok());
    CHECK(std::all_of(bits.begin(), bits.end(), [](uint32_t b) { return b == kPoisonBits; }));
  }
}

TEST_CASE("launch.rejects_a_buffer_of_another_device") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    Loaded first = loadAddScalar(*rt, t);
    auto second = openTarget(*rt, t); // same physical device, a second Device object
    Buffer in = allocate(*first.device, DType::F32, 64);
    Buffer foreign = allocate(*second, DType::F32, 64);
    CHECK(in.device() == first.device.get());
    CHECK(foreign.device() == second.get());
    expectInvalid(first.kernel.launch({1, 1, 1}, {in, foreign, 1.0f, 64}), {"argument 1 'out'", "another Device"});
  }
}

TEST_CASE("load.needs_an_artifact_for_the_device") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const uint32_t subgroup = dev->backendInfo().subgroupSize;
    Package wrongKind, wrongSubgroup;
    if (t.backend == Backend::Vulkan) {
      wrongKind.kernels.push_back(addScalarKernel({ptxArtifact()}));
      wrongSubgroup.kernels.push_back(addScalarKernel({spirvArtifact(subgroup * 2)}));
    } else {
      wrongKind.kernels.push_back(addScalarKernel({spirvArtifact(subgroup)}));
      wrongSubgroup.kernels.push_back(addScalarKernel({ptxArtifact("sm_200")})); // newer than any GPU
    }
    for (const Package *p : {&wrongKind, &wrongSubgroup}) {
      auto m = dev->load(*p);
      REQUIRE_FALSE(m.ok());
      MESSAGE(m.status().message());
      CHECK(codeOf(m.status()) == codeName(StatusCode::Unsupported));
      CHECK(contains(m.status().message(), "kernel 'add_scalar'"));
      CHECK(contains(m.status().message(), t.backend == Backend::Vulkan ? "needs spirv" : "needs ptx"));
      CHECK(contains(m.status().message(), "the package has"));
    }
    Package none;
    none.kernels.push_back(addScalarKernel({}));
    CHECK(contains(dev->load(none).status().message(), "no artifacts"));
  }
}

TEST_CASE("load.refuses_broken_spirv") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    if (t.backend != Backend::Vulkan) continue;
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const uint32_t subgroup = dev->backendInfo().subgroupSize;
    auto loadWith = [&](auto edit) {
      Artifact a = spirvArtifact(subgroup);
      edit(a);
      Package p;
      p.kernels.push_back(addScalarKernel({a}));
      return dev->load(p).status();
    };
    Status odd = loadWith([](Artifact &a) { a.code.resize(a.code.size() - 2); });
    CHECK(codeOf(odd) == codeName(StatusCode::Corrupt));
    CHECK(contains(odd.message(), "not a whole number of 32-bit words"));
    Status magic = loadWith([](Artifact &a) { a.code[0] ^= 0xff; });
    CHECK(codeOf(magic) == codeName(StatusCode::Corrupt));
    Status entry = loadWith([](Artifact &a) { a.entryPoint = "main"; });
    CHECK(codeOf(entry) == codeName(StatusCode::Corrupt));
    CHECK(contains(entry.message(), "'add_scalar'"));
    Status push = loadWith([](Artifact &a) { a.pushConstantBytes = 4; }); // n at offset 4 no longer fits
    CHECK(codeOf(push) == codeName(StatusCode::Corrupt));
    CHECK(contains(push.message(), "'n'"));
  }
}

TEST_CASE("buffer.bounds_and_sizes") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    Buffer b = allocate(*dev, DType::I32, 100);
    CHECK(b.count() == 100);
    CHECK(b.bytes() == 400);
    CHECK(std::string(toString(b.dtype())) == "i32");
    std::vector<int32_t> host(100);
    for (int i = 0; i < 100; ++i) host[i] = i * 3 - 50;
    REQUIRE(b.upload(std::span<const int32_t>(host)).ok());
    // A partial write at an offset lands where it should.
    int32_t patch[2] = {7777, -7777};
    REQUIRE(b.upload(patch, sizeof patch, 40).ok());
    std::vector<int32_t> back(100);
    REQUIRE(b.download(std::span<int32_t>(back)).ok());
    host[10] = 7777, host[11] = -7777;
    CHECK(back == host);

    Status over = b.upload(host.data(), 400, 4);
    CHECK(codeOf(over) == codeName(StatusCode::InvalidArgument));
    CHECK(contains(over.message(), "does not fit in a buffer of 400 bytes"));
    CHECK(codeOf(b.download(back.data(), 401)) == codeName(StatusCode::InvalidArgument));
    CHECK(codeOf(b.download(back.data(), 4, SIZE_MAX - 2)) == codeName(StatusCode::InvalidArgument)); // no overflow wrap

    Buffer empty = allocate(*dev, DType::F32, 0);
    CHECK(empty.bytes() == 0);
    CHECK(empty.upload(host.data(), 0).ok());
    CHECK(codeOf(empty.download(back.data(), 1)) == codeName(StatusCode::InvalidArgument));

    Buffer none;
    CHECK(none.device() == nullptr);
    CHECK_FALSE(none.upload(host.data(), 4).ok());
    CHECK(codeOf(dev->allocate(DType::Bool, 4).status()) == codeName(StatusCode::InvalidArgument));
  }
}

TEST_CASE("buffer.large_round_trip") {
  // Bigger than the Vulkan staging buffer (64 MiB), so staged copies go in several pieces.
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const size_t n = (72u << 20) / 4;
    if (dev->backendInfo().maxBufferBytes < n * 4) continue;
    std::vector<uint32_t> host(n);
    const uint32_t seed = freshSeed();
    CAPTURE(seed);
    std::mt19937 gen(seed);
    for (uint32_t &x : host) x = gen();
    Buffer b = allocate(*dev, DType::I32, n);
    REQUIRE(b.upload(host.data(), n * 4).ok());
    std::vector<uint32_t> back(n, 0);
    REQUIRE(b.download(back.data(), n * 4).ok());
    CHECK(back == host);
  }
}

TEST_CASE("load.reports_the_ptx_jit_log") {
  // Only where CUDA is present: broken PTX must come back as a DriverError carrying the JIT's log.
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    if (t.backend != Backend::CUDA) continue;
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    Artifact a = ptxArtifact();
    const std::string broken = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry add_scalar() { bogus.op; }\n";
    a.code.assign(broken.begin(), broken.end());
    Package p;
    p.kernels.push_back(addScalarKernel({a}));
    Status s = dev->load(p).status();
    MESSAGE(s.toString());
    CHECK(codeOf(s) == codeName(StatusCode::DriverError));
    CHECK(s.nativeCode().has_value());
    CHECK(contains(s.message(), "cuModuleLoadDataEx failed"));
    CHECK(contains(s.message(), "JIT log"));
  }
}
