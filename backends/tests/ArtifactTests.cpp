// Every artifact the compiler makes is well formed: SPIR-V validates, PTX assembles with ptxas.
#include "TestSupport.hpp"

#include "cuda/Occupancy.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace tessera;
using namespace tessera::test;

namespace {

uint32_t scalarCount(const TracedKernel &k) {
  uint32_t n = 0;
  for (const ArgSpec &a : k.signature()) n += a.kind == ArgKind::Scalar;
  return n;
}

/// Writes `text` to a fresh temporary file and returns its path.
std::string writeTemp(const std::string &text, const char *suffix) {
  std::string pattern = (std::filesystem::temp_directory_path() / "tessera-test-XXXXXX").string() + suffix;
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  int fd = mkstemps(buf.data(), int(std::strlen(suffix)));
  REQUIRE_MESSAGE(fd >= 0, "mkstemps failed for " << pattern);
  ::close(fd);
  std::ofstream(buf.data(), std::ios::binary) << text;
  return buf.data();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs ptxas on `ptx`; returns its exit status and fills `log` with what it printed.
int assemble(const std::string &ptxas, const std::string &ptx, const std::string &arch, std::string *log,
             const std::string &flags = "") {
  std::string file = writeTemp(ptx, ".ptx"), logFile = file + ".log";
  std::string cmd = "'" + ptxas + "' -arch=" + arch + (flags.empty() ? "" : " " + flags) + " '" + file + "' -o /dev/null > '" +
                    logFile + "' 2>&1";
  int rc = std::system(cmd.c_str());
  *log = readFile(logFile);
  std::filesystem::remove(file);
  std::filesystem::remove(logFile);
  return rc;
}

/// Occurrences of `needle` in `text`.
size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

/// Instructions behind a predicate that start with `what`: `@%p<k> ld.global.v4.b32`.
size_t predicated(const std::string &ptx, const std::string &what) {
  size_t n = 0;
  for (size_t at = ptx.find("@%p"); at != std::string::npos; at = ptx.find("@%p", at + 3)) {
    size_t end = ptx.find(' ', at);
    if (end != std::string::npos && ptx.compare(end + 1, what.size(), what) == 0) ++n;
  }
  return n;
}

/// What ptxas -v reports for `ptx` on sm_90 (with `flags` too): registers a thread and bytes of
/// spill stores.
struct PtxasUse {
  int registers = 0, spillBytes = 0;
};
PtxasUse ptxasUse(const std::string &ptxas, const std::string &ptx, const std::string &flags = "") {
  std::string log;
  REQUIRE_MESSAGE(assemble(ptxas, ptx, "sm_90", &log, "-v" + (flags.empty() ? "" : " " + flags)) == 0,
                  "ptxas failed:\n" << log);
  const size_t used = log.find("Used "), spills = log.find(" bytes spill stores");
  REQUIRE_MESSAGE((used != std::string::npos && spills != std::string::npos), log);
  return {std::stoi(log.substr(used + 5)), std::stoi(log.substr(log.rfind(',', spills) + 1))};
}

/// Layernorm over rows of 4096 f16 on 8 warps, written as a user would, compiled for sm_90: the
/// plain code and its variant for n a multiple of 16.
Package layernorm4096() {
  constexpr int kBlock = 4096;
  auto layernorm = [](tl::Ptr<f16> x, tl::Ptr<f16> y, tl::Ptr<f16> w, tl::Ptr<f16> b, tl::Scalar<int32_t> n) {
    tl::Tile row = tl::program_id(0) * n, cols = tl::arange(0, kBlock), mask = cols < n;
    tl::Tile v = tl::cast(tl::load(x + row + cols, mask, 0), DType::F32);
    tl::Tile nf = tl::cast(n, DType::F32);
    tl::Tile centered = tl::where(mask, v - tl::sum(v) / nf, 0.0f);
    tl::Tile r = tl::rsqrt(tl::sum(centered * centered) / nf + 1e-5f);
    tl::Tile scale = tl::cast(tl::load(w + cols, mask), DType::F32);
    tl::Tile shift = tl::cast(tl::load(b + cols, mask), DType::F32);
    tl::store(y + row + cols, tl::cast(centered * r * scale + shift, DType::F16), mask);
  };
  TracedKernel k = require(trace("layernorm", layernorm, {.numWarps = 8}), "trace");
  Package p = require(compile(k, nvptxTarget("sm_90")), "compile");
  REQUIRE(p.kernels[0].artifacts.size() == 2);
  return p;
}

} // namespace

TEST_CASE("artifact.spirv_validates") {
  for (const NamedKernel &nk : artifactKernels()) {
    for (uint32_t subgroup : {8u, 32u, 64u}) {
      CAPTURE(nk.label);
      CAPTURE(subgroup);
      Artifact a = require(compileArtifact(nk.kernel, spirvTarget(subgroup)), "compile for SPIR-V");
      REQUIRE(a.code.size() % 4 == 0);
      REQUIRE(a.code.size() >= 20);
      std::vector<uint32_t> words = spirvWords(a);
      CHECK(words[0] == kSpirvMagic);
      Status valid = validateSpirv(words);
      CHECK_MESSAGE(valid.ok(), valid.toString());

      CHECK(a.target == *validateTarget(spirvTarget(subgroup)));
      CHECK(a.entryPoint == nk.kernel.name());
      CHECK(a.blockSize[0] == nk.kernel.numWarps() * subgroup);
      CHECK(a.blockSize[1] == 1);
      CHECK(a.blockSize[2] == 1);
      // Every scalar argument of these kernels is 32 bits wide.
      CHECK(a.pushConstantBytes == 4 * scalarCount(nk.kernel));
    }
  }
}

TEST_CASE("artifact.validate_spirv_rejects_garbage") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace vector_add");
  std::vector<uint32_t> words = spirvWords(require(compileArtifact(k, spirvTarget(32)), "compile"));
  REQUIRE(validateSpirv(words).ok());

  std::vector<uint32_t> badMagic = words;
  badMagic[0] = 0xdeadbeef;
  CHECK_FALSE(validateSpirv(badMagic).ok());

  std::vector<uint32_t> truncated(words.begin(), words.begin() + long(words.size() / 2));
  Status s = validateSpirv(truncated);
  CHECK_FALSE(s.ok());
  CHECK_FALSE(s.message().empty()); // the validator's own message
  CHECK(s.message().find("generated SPIR-V does not validate") != std::string::npos);
  CHECK(s.message().find("word ") != std::string::npos); // where, from the second (named) validation

  // Well-formed words that break a rule: the entry point names an id that is not a function.
  std::vector<uint32_t> badEntry = words;
  bool changed = false;
  for (size_t at = 5; at < badEntry.size() && !changed;) {
    const uint32_t count = badEntry[at] >> 16, opcode = badEntry[at] & 0xffff;
    if (count == 0) break;
    if (opcode == 15 /* OpEntryPoint */ && count > 2) {
      badEntry[at + 2] = badEntry[3] - 1; // the largest id: not the kernel's function
      changed = true;
    }
    at += count;
  }
  REQUIRE(changed);
  s = validateSpirv(badEntry);
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("is not a function") != std::string::npos);
  CHECK(s.message().find("OpEntryPoint GLCompute %") != std::string::npos); // the instruction, disassembled

  CHECK_FALSE(validateSpirv({}).ok());
}

TEST_CASE("artifact.ptx_text") {
  for (const NamedKernel &nk : artifactKernels()) {
    CAPTURE(nk.label);
    Artifact a = require(compileArtifact(nk.kernel, nvptxTarget("sm_90")), "compile for PTX");
    std::string ptx = ptxText(a);
    INFO("PTX:\n", ptx);
    CHECK(ptx.find('\0') == std::string::npos);
    CHECK(contains(ptx, ".version 7.8"));
    CHECK(contains(ptx, ".target sm_90"));
    CHECK(contains(ptx, ".entry " + nk.kernel.name()));
    CHECK(a.entryPoint == nk.kernel.name());
    CHECK(a.target.ptxVersion == 78);
    CHECK(a.blockSize[0] == nk.kernel.numWarps() * 32);
    CHECK(a.pushConstantBytes == 0);
  }
  TracedKernel k = require(traceMaskedScale(), "trace masked_scale");
  Artifact newer = require(compileArtifact(k, nvptxTarget("sm_90", 88)), "compile for PTX 8.8");
  CHECK(contains(ptxText(newer), ".version 8.8"));
  CHECK(contains(ptxText(newer), ".target sm_90"));
  Artifact arch = require(compileArtifact(k, nvptxTarget("sm_90a")), "compile for sm_90a");
  CHECK(contains(ptxText(arch), ".version 8.0"));
  CHECK(contains(ptxText(arch), ".target sm_90a"));
}

TEST_CASE("artifact.ptx_assembles") {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: PTX assembly not checked (set TESSERA_PTXAS or install the CUDA toolkit)");
    return;
  }
  MESSAGE("assembling with " << ptxas);
  struct PtxTarget {
    const char *arch;
    TargetDesc target;
  };
  std::vector<PtxTarget> targets{{"sm_90", nvptxTarget("sm_90")},
                                 {"sm_90", nvptxTarget("sm_90", 88)},
                                 {"sm_90a", nvptxTarget("sm_90a")},
                                 {"sm_80", nvptxTarget("sm_80")}};
  for (const NamedKernel &nk : artifactKernels()) {
    for (const auto &[arch, target] : targets) {
      CAPTURE(nk.label);
      CAPTURE(arch);
      CAPTURE(target.ptxVersion);
      Artifact a = require(compileArtifact(nk.kernel, target), "compile for PTX");
      std::string ptx = ptxText(a), log;
      int rc = assemble(ptxas, ptx, arch, &log);
      CHECK_MESSAGE(rc == 0, "ptxas failed:\n" << log << "\nPTX:\n" << ptx);
    }
  }
}

TEST_CASE("artifact.tensor_copy_form_assembles") {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: PTX assembly not checked (set TESSERA_PTXAS or install the CUDA toolkit)");
    return;
  }
  // Both forms of attention's first dot (cp.async, and bulk tensor copies of the keys).
  Package p = require(compile(require(traceScores(), "trace"), nvptxTarget("sm_90a")), "compile");
  REQUIRE(p.kernels[0].artifacts.size() == 2);
  for (const Artifact &a : p.kernels[0].artifacts) {
    CAPTURE(a.tensorMaps.size());
    std::string ptx = ptxText(a), log;
    CHECK_MESSAGE(assemble(ptxas, ptx, "sm_90a", &log) == 0, "ptxas failed:\n" << log);
  }
}

TEST_CASE("artifact.rotated_attention_overlaps_the_softmax") {
  // Each warpgroup dot waits where its result is first used: the scores until the values' batch
  // alone is in flight, and ptxas keeps that (no wait of its own for the units, C7517, no spills).
  Package p = require(compile(require(traceRotatedAttention(), "trace"), nvptxTarget("sm_90a")), "compile");
  REQUIRE(p.kernels[0].artifacts.size() == 2);
  const Artifact &copies = p.kernels[0].artifacts[1];
  REQUIRE(copies.tensorMaps.size() == 2); // the keys' and the values' (rows from start - 64, >= 0)
  const std::string ptx = ptxText(copies);
  CHECK(contains(ptx, "wgmma.wait_group.sync.aligned \t1;"));
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: its register allocation not checked (set TESSERA_PTXAS or install the CUDA toolkit)");
    return;
  }
  std::string log;
  REQUIRE_MESSAGE(assemble(ptxas, ptx, "sm_90a", &log, "-v") == 0, "ptxas failed:\n" << log);
  CHECK_MESSAGE(!contains(log, "C7517"), log);
  CHECK_MESSAGE(contains(log, " 0 bytes spill stores"), log);
}

TEST_CASE("artifact.producer_warpgroup_form") {
  // TESSERA_PRODUCER_WARP=1 (compiling): the tensor-copy form gets a warpgroup more, which
  // issues the copies and exits; the cp.async form keeps the kernel's warps.
  ::setenv("TESSERA_PRODUCER_WARP", "1", 1);
  Result<Package> compiled = compile(require(traceScores(), "trace"), nvptxTarget("sm_90a"));
  ::unsetenv("TESSERA_PRODUCER_WARP");
  Package p = require(std::move(compiled), "compile");
  REQUIRE(p.kernels[0].artifacts.size() == 2);
  const Artifact &plain = p.kernels[0].artifacts[0], &copies = p.kernels[0].artifacts[1];
  CHECK(plain.blockSize[0] == p.kernels[0].numWarps * 32);
  CHECK(copies.blockSize[0] == plain.blockSize[0] + 128);
  const std::string ptx = ptxText(copies);
  CHECK(contains(ptx, ".maxntid " + std::to_string(copies.blockSize[0]) + ", 1, 1"));
  CHECK(contains(ptx, "setmaxnreg.dec.sync.aligned.u32 \t40;"));
  CHECK(contains(ptx, "setmaxnreg.inc.sync.aligned.u32"));
  CHECK(contains(ptx, "exit;"));
  CHECK_FALSE(contains(ptxText(plain), "setmaxnreg"));
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: the producer form's PTX not assembled");
    return;
  }
  std::string log;
  CHECK_MESSAGE(assemble(ptxas, ptx, "sm_90a", &log) == 0, "ptxas failed:\n" << log);
}

TEST_CASE("artifact.producer_warpgroup_by_default_on_two_warpgroups") {
  // Unset (auto): a program of two warpgroups whose loop copies no dot's A (attention's) and whose
  // accumulators take 96 values a thread or more gets the producer (runs 40 and 44: 7-9% faster);
  // one warpgroup does not, nor smaller accumulators (run 44: the producer cost a second program
  // a multiprocessor), nor TESSERA_PRODUCER_WARP=0.
  auto blockOf = [](uint32_t warps, int keys) {
    Package p = require(compile(require(traceScores(false, 0.0f, warps, 128, keys), "trace"), nvptxTarget("sm_90a")),
                        "compile");
    REQUIRE(p.kernels[0].artifacts.size() == 2);
    CHECK(p.kernels[0].artifacts[0].blockSize[0] == warps * 32);
    return p.kernels[0].artifacts[1].blockSize[0];
  };
  ::unsetenv("TESSERA_PRODUCER_WARP");
  CHECK(blockOf(8, 256) == 8 * 32 + 128); // 128 accumulator values a thread
  CHECK(blockOf(8, 64) == 8 * 32);        // 32
  CHECK(blockOf(4, 256) == 4 * 32);
  // Nor where two stages of the keys do not fit shared memory (the producer needs them): rows of
  // 256 elements, 128 x 256 keys a stage. The kernel still compiles, without it.
  {
    Package p = require(compile(require(traceScores(false, 0.0f, 8, 128, 256, 256), "trace"), nvptxTarget("sm_90a")),
                        "compile");
    for (const Artifact &a : p.kernels[0].artifacts)
      CHECK(a.blockSize[0] == 8 * 32);
  }
  ::setenv("TESSERA_PRODUCER_WARP", "0", 1);
  const uint32_t off = blockOf(8, 256);
  ::setenv("TESSERA_PRODUCER_WARP", "1", 1);
  const uint32_t on = blockOf(8, 64);
  ::setenv("TESSERA_PRODUCER_WARP", "sometimes", 1);
  Result<Package> bad = compile(require(traceScores(false, 0.0f, 8, 128, 256), "trace"), nvptxTarget("sm_90a"));
  ::unsetenv("TESSERA_PRODUCER_WARP");
  CHECK(off == 8 * 32);
  CHECK(on == 8 * 32 + 128);
  REQUIRE_FALSE(bad);
  CHECK(contains(bad.status().message(), "producer-warp='sometimes': use auto, on or off"));
}

TEST_CASE("artifact.specialized_layernorm_needs_no_element_paths") {
  // Layernorm over rows of 4096 f16 on 8 warps, written as a user would: its variant for n a
  // multiple of 16 reads and writes each thread's runs whole or not at all, each one predicated
  // `ld.global.v4.b32` or `st.global.v4.b32` with no branch, so the registers the
  // element-by-element paths and the branches held are free (ptxas 13: 78 for the plain code,
  // 40 for the variant, Triton's count), and a multiprocessor takes 6 programs instead of 3.
  Package p = layernorm4096();
  const Artifact &plain = p.kernels[0].artifacts[0], &variant = p.kernels[0].artifacts[1];
  CHECK(plain.divisibleArgs.empty());
  CHECK(variant.divisibleArgs == std::vector<uint32_t>{4});
  // The plain code's element path reads single f16 elements; the variant reads none.
  CHECK(contains(ptxText(plain), "ld.global.b16"));
  CHECK_FALSE(contains(ptxText(variant), "ld.global.b16"));
  // x, w and b: two runs of 8 a thread each, every one predicated, and so are y's two.
  CHECK(predicated(ptxText(variant), "ld.global.v4.b32") == 6);
  CHECK(countOf(ptxText(variant), "ld.global.v4.b32") == 6);
  CHECK(predicated(ptxText(variant), "st.global.v4.b32") == 2);
  CHECK(countOf(ptxText(variant), "st.global.v4.b32") == 2);
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: register counts not checked (set TESSERA_PTXAS or install the CUDA toolkit)");
    return;
  }
  const int plainRegisters = ptxasUse(ptxas, ptxText(plain)).registers;
  const int variantRegisters = ptxasUse(ptxas, ptxText(variant)).registers;
  MESSAGE("registers: plain " << plainRegisters << ", variant " << variantRegisters);
  CHECK(variantRegisters + 32 <= plainRegisters);
}

TEST_CASE("artifact.register_cap_directive_binds_a_row_kernel") {
  // The CUDA runtime's occupancy retry (drivers/cuda/Occupancy.hpp) compiles code a few registers
  // past a step again with a `.maxnreg` directive (withRegisterCap): the JIT's register bound
  // (CU_JIT_MAX_REGISTERS, ptxas's -maxrregcount) does not bind an entry that declares `.maxntid`,
  // as every kernel here does, and run 54 found the retry changing nothing for that reason. The
  // directive does bind: layernorm over rows of 4096 f16 on 8 warps, the plain code (no
  // specialization, element paths; ptxas 13: 80 registers), takes 72 with it and spills nothing.
  Package p = layernorm4096();
  const std::string ptx = ptxText(p.kernels[0].artifacts[0]);
  REQUIRE(contains(ptx, ".maxntid"));
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    skipTest("ptxas not found: register counts not checked (set TESSERA_PTXAS or install the CUDA toolkit)");
    return;
  }
  const int registers = ptxasUse(ptxas, ptx).registers;
  constexpr int kCap = 72;
  REQUIRE_MESSAGE(registers > kCap, "the plain code now fits " << kCap << " registers (" << registers << ")");
  const int underFlag = ptxasUse(ptxas, ptx, "-maxrregcount=" + std::to_string(kCap)).registers;
  std::optional<std::string> bounded = tessera::cuda::withRegisterCap(ptx, kCap);
  REQUIRE(bounded);
  const PtxasUse underDirective = ptxasUse(ptxas, *bounded);
  MESSAGE("registers: " << registers << "; -maxrregcount=" << kCap << ": " << underFlag << "; .maxnreg " << kCap
                        << ": " << underDirective.registers);
  CHECK(underDirective.registers <= kCap);
  CHECK(underDirective.spillBytes == 0);
}

TEST_CASE("artifact.predicated_runs_of_every_width") {
  // A masked copy of rows n elements apart whose `other` is not zero, for each element width:
  // the variant for n a multiple of 16 loads each thread's 16-byte runs as predicated
  // `ld.global.v4.b32` into words that hold `other`'s bits where the row has ended (4 f32, 8
  // f16 or bf16, 16 i8 a word quadruple), stores them as predicated `st.global.v4.b32`, and
  // ptxas takes the code. The element values are
  // checked by the kernels' GPU runs (docs/gpu-runs.md); SPIR-V's form (no predication: a
  // masked-off run reads the buffer's first 16 bytes, `other` chosen a word at a time) by
  // launch.masked_off_runs_read_other_in_every_width.
  auto check = [](const char *what, auto kernel, uint32_t otherBits, int words, Numerics numerics = Numerics::Fast) {
    CAPTURE(what);
    TracedKernel k = require(trace("copy", kernel, {.numWarps = 2, .numerics = numerics}), "trace");
    Package p = require(compile(k, nvptxTarget("sm_90")), "compile");
    REQUIRE(p.kernels[0].artifacts.size() == 2);
    const std::string ptx = ptxText(p.kernels[0].artifacts[1]);
    CHECK(p.kernels[0].artifacts[1].divisibleArgs == std::vector<uint32_t>{2});
    CHECK(predicated(ptx, "ld.global.v4.b32") == size_t(words));
    CHECK(countOf(ptx, "ld.global.v4.b32") == size_t(words));
    // Portable kernels keep a branch around each stored run (LoadStoreOpToGPU.cpp).
    CHECK(predicated(ptx, "st.global.v4.b32") == (numerics == Numerics::Fast ? size_t(words) : 0));
    CHECK(countOf(ptx, "st.global.v4.b32") == size_t(words));
    // `other` reaches the words as their starting value (ptxas folds it into a move).
    char bits[16];
    std::snprintf(bits, sizeof bits, "%u", otherBits);
    CHECK_MESSAGE((contains(ptx, bits) || contains(ptx, "0f" + [&] {
                     char h[16];
                     std::snprintf(h, sizeof h, "%08X", otherBits);
                     return std::string(h);
                   }())),
                  ptx);
    if (std::string ptxas = findPtxas(); !ptxas.empty()) {
      std::string log;
      CHECK_MESSAGE(assemble(ptxas, ptx, "sm_90", &log) == 0, "ptxas failed:\n" << log);
    }
  };
  constexpr int kBlock = 1024; // 16 elements a thread on 2 warps
  auto copy = [](auto element, auto other) {
    using T = decltype(element);
    return [other](tl::Ptr<T> x, tl::Ptr<T> y, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::program_id(0) * n + tl::arange(0, kBlock), mask = tl::arange(0, kBlock) < n;
      tl::store(y + offs, tl::load(x + offs, mask, other), mask);
    };
  };
  check("f32", copy(float{}, 2.5f), 0x40200000u, 4);
  check("f16", copy(f16{}, 2.5f), 0x41004100u, 2);
  check("bf16", copy(bf16{}, 2.5f), 0x40204020u, 2);
  check("i8", copy(int8_t{}, 3), 0x03030303u, 1);
  check("f32, portable", copy(float{}, 2.5f), 0x40200000u, 4, Numerics::Portable);
}
