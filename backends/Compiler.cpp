// The compiler driver: validates targets, runs the tile -> gpu -> PTX / SPIR-V pipelines on a
// traced kernel and packages the results.
#include "tessera/compiler.hpp"

#include "KernelImpl.hpp"
#include "CompileVariables.h"
#include "Registration.h"
#include "Tile/IR/TileDialect.h"
#include "common/TileToGPU.h"
#include "nvptx/NVPTXTarget.h"
#include "spirv/SPIRVTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <array>

using namespace mlir;

namespace tessera {

// ---- targets -------------------------------------------------------------------------------

namespace {

/// Oldest PTX ISA each chip accepts in LLVM 22, measured with llc (`-mcpu=<chip>
/// -mattr=+ptx<N>` for every N). LLVM aborts the process on anything older, so this table is
/// consulted before LLVM is called.
struct ChipInfo {
  const char *chip;
  uint32_t minPtx;
};
constexpr ChipInfo kChips[] = {
    {"sm_50", 40},   {"sm_52", 41},   {"sm_53", 42},   {"sm_60", 50},   {"sm_61", 50},
    {"sm_62", 50},   {"sm_70", 60},   {"sm_72", 61},   {"sm_75", 63},   {"sm_80", 70},
    {"sm_86", 71},   {"sm_87", 74},   {"sm_88", 90},   {"sm_89", 78},   {"sm_90", 78},
    {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86}, {"sm_100f", 88}, {"sm_101", 86},
    {"sm_101a", 86}, {"sm_101f", 88}, {"sm_103", 88},  {"sm_103a", 88}, {"sm_103f", 88},
    {"sm_110", 90},  {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},  {"sm_120a", 87},
    {"sm_120f", 88}, {"sm_121", 88},  {"sm_121a", 88}, {"sm_121f", 88},
};
/// PTX ISA versions LLVM 22 can emit.
constexpr uint32_t kPtxVersions[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73,
                                     74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90};

std::string ptxName(uint32_t v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); }

} // namespace

TargetDesc nvptxTarget(std::string chip, uint32_t ptxVersion) {
  return TargetDesc{TargetKind::PTX, std::move(chip), ptxVersion, 32};
}

TargetDesc spirvTarget(uint32_t subgroupSize, bool softDenormals, bool coopMatrix, bool mmaLanes, bool bf16,
                       bool workgroup) {
  std::string chip = coopMatrix ? std::string("vulkan1.3") + kCoopMatrixSuffix + (bf16 ? kCoopBF16Suffix : "") +
                                      (mmaLanes ? kMmaLanesSuffix : "") + (workgroup ? kWorkgroupMatrixSuffix : "")
                                : std::string("vulkan1.1");
  return TargetDesc{TargetKind::SPIRV, chip + (softDenormals ? kSoftDenormalsSuffix : ""), 0, subgroupSize};
}

Result<TargetDesc> validateTarget(const TargetDesc &target) {
  TargetDesc t = target;
  if (t.kind == TargetKind::PTX) {
    const ChipInfo *chip = nullptr;
    for (const ChipInfo &c : kChips)
      if (t.chip == c.chip)
        chip = &c;
    if (!chip) {
      std::string known;
      for (const ChipInfo &c : kChips)
        known += std::string(known.empty() ? "" : ", ") + c.chip;
      return Status(StatusCode::InvalidArgument, "unknown NVPTX chip '" + t.chip + "'; known chips: " + known);
    }
    if (t.ptxVersion == 0)
      t.ptxVersion = chip->minPtx;
    if (std::find(std::begin(kPtxVersions), std::end(kPtxVersions), t.ptxVersion) == std::end(kPtxVersions)) {
      std::string known;
      for (uint32_t v : kPtxVersions)
        known += (known.empty() ? "" : ", ") + ptxName(v);
      return Status(StatusCode::InvalidArgument,
                    "unknown PTX ISA version " + std::to_string(t.ptxVersion) + " (write 80 for 8.0); known: " + known);
    }
    if (t.ptxVersion < chip->minPtx)
      return Status(StatusCode::InvalidArgument, "PTX ISA " + ptxName(t.ptxVersion) + " cannot target " + t.chip +
                                                     "; " + t.chip + " needs PTX ISA " + ptxName(chip->minPtx) +
                                                     " or newer");
    if (t.subgroupSize == 0)
      t.subgroupSize = 32;
    if (t.subgroupSize != 32)
      return Status(StatusCode::InvalidArgument, "NVPTX warps have 32 threads; subgroup size " +
                                                     std::to_string(t.subgroupSize) + " was asked");
    return t;
  }
  if (t.kind == TargetKind::SPIRV) {
    if (t.chip.empty())
      t.chip = "vulkan1.1";
    bool known = false;
    for (bool soft : {false, true})
      for (bool coop : {false, true})
        for (bool lanes : {false, true})
          for (bool bf16 : {false, true})
            for (bool wg : {false, true})
              known = known || (t.chip == spirvTarget(1, soft, coop, lanes, bf16, wg).chip);
    if (!known)
      return Status(StatusCode::InvalidArgument, "unknown SPIR-V environment '" + t.chip + "'; use vulkan1.1 or vulkan1.3" +
                                                     kCoopMatrixSuffix + ", the latter followed by " + kCoopBF16Suffix +
                                                     " or not, then by " + kMmaLanesSuffix + " or not, then by " +
                                                     kWorkgroupMatrixSuffix + " or not; each followed by " +
                                                     kSoftDenormalsSuffix + " or not");
    if (hasMmaLanes(t.chip) && t.subgroupSize != 32)
      return Status(StatusCode::InvalidArgument, std::string("the chip ") + t.chip + " places accumulators in 32 lanes; "
                                                     "subgroup size " + std::to_string(t.subgroupSize) + " was asked");
    if (t.subgroupSize == 0 || t.subgroupSize > 128 || (t.subgroupSize & (t.subgroupSize - 1)))
      return Status(StatusCode::InvalidArgument, "subgroup size " + std::to_string(t.subgroupSize) +
                                                     " must be a power of two from 1 to 128");
    return t;
  }
  return Status(StatusCode::InvalidArgument, "unknown target kind");
}

namespace backend {
std::unique_ptr<TargetInfo> createTargetInfo(const TargetDesc &target) {
  if (target.kind == TargetKind::PTX)
    return createNVPTXTargetInfo(target.chip);
  return createSPIRVTargetInfo(target.subgroupSize, hasCoopMatrix(target.chip), hasMmaLanes(target.chip),
                               hasCoopBF16(target.chip));
}
} // namespace backend

// ---- stages --------------------------------------------------------------------------------

namespace {
constexpr std::pair<Stage, const char *> kStageNames[] = {
    {Stage::Tile, "tile"}, {Stage::TileOpt, "tile-opt"},     {Stage::GPU, "gpu"},     {Stage::NVVM, "nvvm"},
    {Stage::PTX, "ptx"},   {Stage::SPIRVMLIR, "spirv-mlir"}, {Stage::SPIRV, "spirv"},
};
} // namespace

std::optional<Stage> parseStage(std::string_view name) {
  for (auto [s, n] : kStageNames)
    if (name == n)
      return s;
  return std::nullopt;
}

const char *toString(Stage s) {
  for (auto [st, n] : kStageNames)
    if (st == s)
      return n;
  return "?";
}

// ---- the pipeline --------------------------------------------------------------------------

namespace {

/// Collects diagnostics of one compile so failures come back as a Status with locations.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          if (d.getSeverity() == DiagnosticSeverity::Error) {
            llvm::raw_string_ostream os(text);
            os << d.getLocation() << ": error: " << d << "\n";
            for (Diagnostic &note : d.getNotes())
              os << note.getLocation() << ": note: " << note << "\n";
          }
          return success();
        }) {}
  Status failure(const std::string &what, StatusCode code = StatusCode::CompileError) const {
    return Status(code, what + (text.empty() ? "" : ":\n" + text));
  }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

/// Marks integer arguments `args` of the module's kernel as multiples of kSpecializedDivisor.
void assumeDivisible(ModuleOp module, ArrayRef<uint32_t> args) {
  func::FuncOp f = detail::kernelFuncOf(module);
  for (uint32_t i : args)
    f.setArgAttr(i, tile::kArgDivisibilityAttr,
                 IntegerAttr::get(IntegerType::get(module.getContext(), 64), kSpecializedDivisor));
}

/// The i32 scalars the SPIR-V code reads as specialization constants (SpecializeScalars.cpp):
/// the sizes a workgroup-matrix variant divides (the driver stages those matrices well only with
/// their strides known when it compiles the pipeline) and the arguments
/// KernelOptions::specializedArgs names; every i32 scalar with TESSERA_SPECIALIZE_SIZES=1 (a
/// measurement switch, docs/bench.md).
std::vector<uint32_t> specializedScalars(const TracedKernel &kernel, const TargetDesc &target,
                                         const std::vector<std::pair<uint32_t, uint32_t>> &workgroupDivisors) {
  const std::vector<ArgSpec> &sig = kernel.signature();
  const char *everySize = backend::compileVariable("TESSERA_SPECIALIZE_SIZES");
  const bool all = everySize && std::string_view(everySize) == "1";
  std::set<uint32_t> args;
  if (hasWorkgroupMatrices(target.chip))
    for (auto [arg, divisor] : workgroupDivisors) args.insert(arg);
  if (auto named = detail::kernelFuncOf(*kernel.impl_->module)->getAttrOfType<DenseI64ArrayAttr>(tile::kSpecializedArgsAttr))
    args.insert(named.asArrayRef().begin(), named.asArrayRef().end());
  std::vector<uint32_t> out;
  for (uint32_t arg = 0; arg < sig.size(); ++arg)
    if (sig[arg].kind == ArgKind::Scalar && sig[arg].dtype == DType::I32 && (all || args.count(arg)))
      out.push_back(arg);
  return out;
}

/// A pass option that an environment variable may flip from its default (set and not empty): an
/// option on by default goes off for "0", one off by default goes on for "1".
void switchFromEnv(backend::CompileVariableName variable, bool &option) {
  if (const char *v = backend::compileVariable(variable); v && *v)
    option = option ? std::string_view(v) != "0" : std::string_view(v) == "1";
}

/// A pass option that takes auto, on or off, from an environment variable (set and not empty):
/// "1" for on, "0" for off, else as it is (the pass names a wrong value).
void autoOnOffFromEnv(backend::CompileVariableName variable, std::string &option) {
  if (const char *v = backend::compileVariable(variable); v && *v) {
    const std::string_view value = v;
    option = value == "1" ? "on" : value == "0" ? "off" : std::string(value);
  }
}

/// Runs the pipeline on a copy of the kernel's module up to `stop` and prints that stage into
/// `text`; without `stop` it runs to the end and fills `artifact`. `divisible`: the integer
/// arguments the code may assume are multiples of kSpecializedDivisor (a specialized variant).
Status runPipeline(const TracedKernel &kernel, const TargetDesc &target, std::optional<Stage> stop, Artifact *artifact,
                   std::string *text, bool tensorCopies = false, ArrayRef<uint32_t> divisible = {}) {
  MLIRContext *ctx = kernel.impl_->context.get();
  ctx->appendDialectRegistry(backend::compilerRegistry());
  ctx->loadAllAvailableDialects();
  DiagnosticCollector diags(ctx);
  OwningOpRef<ModuleOp> module = kernel.impl_->module->clone();
  assumeDivisible(*module, divisible);
  const std::string what = "compiling kernel '" + kernel.name() + "' for " + toString(target.kind);
  auto done = [&](Stage s) {
    if (stop != s)
      return false;
    *text = print(*module);
    return true;
  };

  if (done(Stage::Tile))
    return Status();
  {
    PassManager pm(ctx);
    // PTX keeps f32 `/` and fma: div.rn and fma.rn are correctly rounded (fast mode's `/` is
    // div.full: lowerGPUToNVVM).
    backend::addTilePasses(pm, kernel.numerics() == Numerics::Portable, target.kind == TargetKind::PTX);
    if (failed(backend::runPasses(pm, *module)))
      return diags.failure(what);
  }
  auto allowContraction = [&] {
    module->walk([ctx](arith::ArithFastMathInterface op) {
      op->setAttr(op.getFastMathAttrName(), arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::contract));
    });
  };
  if (backend::faultInjected("contraction")) // the suite's self-test: let every target fuse a*b+c
    allowContraction();
  if (done(Stage::TileOpt))
    return Status();
  {
    PassManager pm(ctx);
    backend::ConvertTileToGPUOptions options;
    options.target = target.kind == TargetKind::PTX ? "nvptx" : "spirv";
    options.subgroupSize = target.subgroupSize;
    options.chip = target.chip;
    options.tensorCopies = tensorCopies;
    // Experiments: TESSERA_TENSOR_COPIES_A=1 also gives dots whose A is copied from its buffer
    // (the matmul) a tensor-copy form (docs/compiler.md, "Bulk tensor copies").
    const char *copiesA = backend::compileVariable("TESSERA_TENSOR_COPIES_A");
    options.tensorCopiesA = tensorCopies && copiesA && std::string_view(copiesA) == "1";
    // TESSERA_TENSOR_COPY_ISSUE=lanes|one and TESSERA_TENSOR_COPY_RELEASE=mbarrier|barrier pick
    // the tensor-copy loop's scheme (the pass options of the same names).
    if (const char *issue = backend::compileVariable("TESSERA_TENSOR_COPY_ISSUE"); issue && *issue)
      options.tensorCopyIssue = issue;
    if (const char *release = backend::compileVariable("TESSERA_TENSOR_COPY_RELEASE"); release && *release)
      options.tensorCopyRelease = release;
    // TESSERA_PINGPONG=1: the pass's warpgroup-pingpong (with tensor copies), which needs the
    // readers' release barriers: TESSERA_TENSOR_COPY_RELEASE defaults to mbarrier then.
    const char *pingpong = backend::compileVariable("TESSERA_PINGPONG");
    options.warpgroupPingpong = tensorCopies && pingpong && std::string_view(pingpong) == "1";
    if (options.warpgroupPingpong && !backend::compileVariable("TESSERA_TENSOR_COPY_RELEASE"))
      options.tensorCopyRelease = "mbarrier";
    // TESSERA_PRODUCER_WARP=1|0 (or on|off|auto): the pass's producer-warp (with tensor copies;
    // unset: auto).
    autoOnOffFromEnv("TESSERA_PRODUCER_WARP", options.producerWarp);
    // TESSERA_STAGING_BARRIER=1: the pass's staging-barrier (a measurement switch, docs/bench.md).
    if (const char *barrier = backend::compileVariable("TESSERA_STAGING_BARRIER"))
      options.stagingBarrier = std::string_view(barrier) == "1";
    // Measurement switches (docs/bench.md): TESSERA_ASYNC_COPY_FENCE=0, TESSERA_COPIES_AFTER_MMA=0
    // TESSERA_STORE_STAGING=0, TESSERA_FMA_LAYOUT=0, TESSERA_FMA_VECTOR_A=0 and
    // TESSERA_COOP_HOIST_A=0 turn the pass's options of those names off,
    // TESSERA_WAIT_BEFORE_COPIES=1 turns wait-before-copies on.
    switchFromEnv("TESSERA_ASYNC_COPY_FENCE", options.asyncCopyFence);
    switchFromEnv("TESSERA_COPIES_AFTER_MMA", options.copiesAfterMma);
    switchFromEnv("TESSERA_WAIT_BEFORE_COPIES", options.waitBeforeCopies);
    switchFromEnv("TESSERA_STORE_STAGING", options.storeStaging);
    switchFromEnv("TESSERA_FMA_LAYOUT", options.fmaLayout);
    switchFromEnv("TESSERA_FMA_VECTOR_A", options.fmaVectorA);
    switchFromEnv("TESSERA_COOP_HOIST_A", options.coopHoistA);
    switchFromEnv("TESSERA_COOP_A_LANES", options.coopALanes); // off by default until measured: "1" turns it on
    // TESSERA_FMA_ASYNC_COPIES and TESSERA_FMA_HALVES=1|0 (or on|off|auto): the pass's
    // fma-async-copies and fma-halves (unset: auto).
    autoOnOffFromEnv("TESSERA_FMA_ASYNC_COPIES", options.fmaAsyncCopies);
    autoOnOffFromEnv("TESSERA_FMA_HALVES", options.fmaHalves);
    // TESSERA_FMA_UNROLL=N: the pass's fma-unroll (a measurement switch; the pass refuses values
    // that are not powers of two from 1 to 64, naming them).
    if (const char *unroll = backend::compileVariable("TESSERA_FMA_UNROLL"); unroll && *unroll)
      options.fmaUnroll = std::strtoll(unroll, nullptr, 10);
    pm.addPass(backend::createConvertTileToGPU(options));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (hasMmaLanes(target.chip)) // cooperative matrices in mma.sync's lanes: accumulators stay matrices in loops
      pm.addPass(backend::createCarryMmaMatrices({target.subgroupSize}));
    if (failed(backend::runPasses(pm, *module)))
      return diags.failure(what);
  }
  // Fast mode lets a*b+c fuse (the contract; NVIDIA's Vulkan driver may fuse on its own): PTX says
  // so with `contract` on every float op, the lowering's reductions included; without it LLVM
  // writes mul.rn/add.rn, which ptxas keeps apart.
  if (kernel.numerics() == Numerics::Fast && target.kind == TargetKind::PTX)
    allowContraction();
  uint32_t sharedBytes = 0, producerThreads = 0;
  std::vector<TensorMapSpec> tensorMaps;
  std::vector<std::pair<uint32_t, uint32_t>> workgroupDivisors; // (argument, divisor)
  module->walk([&](Operation *op) {
    if (auto d = op->getAttrOfType<DenseI64ArrayAttr>(backend::kWorkgroupDivisorsAttr))
      for (size_t i = 0; i + 1 < d.asArrayRef().size(); i += 2)
        workgroupDivisors.emplace_back(uint32_t(d[i]), uint32_t(d[i + 1]));
    if (auto a = op->getAttrOfType<IntegerAttr>(backend::kSharedBytesAttr))
      sharedBytes = std::max<uint32_t>(sharedBytes, uint32_t(a.getInt()));
    if (auto a = op->getAttrOfType<IntegerAttr>(backend::kProducerThreadsAttr))
      producerThreads = uint32_t(a.getInt());
    if (auto maps = op->getAttrOfType<ArrayAttr>(backend::kTensorMapsAttr))
      for (Attribute m : maps) {
        auto d = cast<DictionaryAttr>(m);
        auto scalar = [&](const char *name) {
          ArrayRef<int64_t> v = cast<DenseI64ArrayAttr>(d.get(name)).asArrayRef();
          return HostScalar{int32_t(v[0]), v[1]};
        };
        ArrayRef<int64_t> box = cast<DenseI64ArrayAttr>(d.get("box")).asArrayRef();
        tensorMaps.push_back({uint32_t(cast<IntegerAttr>(d.get("buffer")).getInt()), scalar("rows"), scalar("cols"),
                              scalar("stride"), uint32_t(box[0]), uint32_t(box[1]),
                              uint32_t(cast<IntegerAttr>(d.get("swizzle")).getInt()),
                              uint32_t(cast<IntegerAttr>(d.get("rank")).getInt())});
      }
  });
  if (done(Stage::GPU))
    return Status();

  std::vector<uint8_t> code;
  if (target.kind == TargetKind::PTX) {
    if (stop == Stage::SPIRVMLIR || stop == Stage::SPIRV)
      return Status(StatusCode::InvalidArgument, std::string("stage '") + toString(*stop) + "' is for SPIR-V targets");
    if (failed(backend::lowerGPUToNVVM(*module, target.chip, target.ptxVersion,
                                       /*fastDivision=*/kernel.numerics() == Numerics::Fast)))
      return diags.failure(what, StatusCode::Internal);
    if (done(Stage::NVVM))
      return Status();
    std::string ptx, error;
    if (failed(backend::translateToPTX(*module, ptx, error)))
      return diags.failure(what + ": " + error, StatusCode::Internal);
    if (size_t at = ptx.find(".extern .func"); at != std::string::npos) {
      std::string fn = ptx.substr(at, ptx.find('(', at) - at);
      return Status(StatusCode::Unavailable, what + ": the PTX calls " + fn.substr(fn.rfind(' ') + 1) +
                                                 ", a libdevice math function, but no CUDA toolkit with "
                                                 "nvvm/libdevice was found; set CUDA_HOME to the toolkit");
    }
    if (stop == Stage::PTX) {
      *text = std::move(ptx);
      return Status();
    }
    code.assign(ptx.begin(), ptx.end());
  } else {
    if (stop == Stage::NVVM || stop == Stage::PTX)
      return Status(StatusCode::InvalidArgument, std::string("stage '") + toString(*stop) + "' is for PTX targets");
    bool portable = kernel.numerics() == Numerics::Portable;
    if (failed(backend::lowerGPUToSPIRV(*module, portable, portable && !backend::faultInjected("contraction"),
                                        hasSoftDenormals(target.chip))))
      return diags.failure(what, StatusCode::Internal);
    if (std::string error; failed(backend::checkBufferABI(*module, kernel.signature(), error)))
      return Status(StatusCode::Unsupported, what + ": " + error);
    if (std::vector<uint32_t> sizes = specializedScalars(kernel, target, workgroupDivisors); !sizes.empty())
      if (std::string error; failed(backend::specializeScalars(*module, kernel.signature(), sizes, error)))
        return diags.failure(what + ": " + error, StatusCode::Internal);
    if (done(Stage::SPIRVMLIR))
      return Status();
    std::vector<uint32_t> words;
    std::string error;
    if (failed(backend::serializeSPIRV(*module, words, error)))
      return diags.failure(what + ": " + error, StatusCode::Internal);
    if (Status s = validateSpirv(words); !s)
      return Status(StatusCode::Internal, what + ": " + s.message());
    if (stop == Stage::SPIRV) {
      *text = backend::disassembleSPIRV(words);
      return Status();
    }
    code.resize(words.size() * 4);
    for (size_t i = 0; i < words.size(); ++i)
      for (int k = 0; k < 4; ++k)
        code[i * 4 + k] = uint8_t(words[i] >> (8 * k)); // little endian, whatever the host
  }

  artifact->target = target;
  artifact->entryPoint = kernel.name();
  artifact->blockSize = {kernel.numWarps() * target.subgroupSize + producerThreads, 1, 1};
  artifact->sharedMemBytes = sharedBytes;
  artifact->pushConstantBytes = 0;
  if (target.kind == TargetKind::SPIRV)
    for (const ArgSpec &a : kernel.signature())
      if (a.kind == ArgKind::Scalar)
        artifact->pushConstantBytes = std::max<uint32_t>(artifact->pushConstantBytes, a.abiSlot + uint32_t(sizeOf(a.dtype)));
  artifact->code = std::move(code);
  artifact->tensorMaps = std::move(tensorMaps);
  artifact->divisibleArgs.assign(divisible.begin(), divisible.end());
  if (hasWorkgroupMatrices(target.chip)) { // a variant for sizes that are multiples of the blocks
    artifact->divisibleArgs.clear();
    for (auto [arg, divisor] : workgroupDivisors) {
      artifact->divisibleArgs.push_back(arg);
      artifact->divisors.push_back(divisor);
    }
  }
  return Status();
}

/// The integer arguments a variant specialized for multiples of kSpecializedDivisor assumes so:
/// the fewest without which some masked load would lose runs that the assumption proves uniform
/// (uniformRunLengths), up to 16 elements: on PTX a dot operand's copies into shared memory too
/// (copyToShared: one copy a run, no element-by-element path). Empty where the assumption proves
/// nothing more: no variant then.
std::vector<uint32_t> specializedArgs(const TracedKernel &kernel) {
  OwningOpRef<ModuleOp> module = kernel.impl_->module->clone();
  func::FuncOp f = detail::kernelFuncOf(*module);
  std::vector<uint32_t> args;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (Type t = f.getArgument(i).getType(); t.isSignlessInteger(32) || t.isSignlessInteger(64))
      args.push_back(i);
  auto runs = [&] {
    std::vector<int64_t> out;
    for (auto [op, run] : backend::uniformRunLengths(f)) // (ordered by operation address: same each call)
      if (auto load = dyn_cast<tile::LoadOp>(op);
          load && load.getMask())
        out.push_back(std::min<int64_t>(run, kSpecializedDivisor));
    return out;
  };
  const std::vector<int64_t> plain = runs();
  auto mark = [&](ArrayRef<uint32_t> marked) {
    for (uint32_t i : args)
      f.removeArgAttr(i, tile::kArgDivisibilityAttr);
    assumeDivisible(*module, marked);
  };
  mark(args);
  const std::vector<int64_t> all = runs();
  if (all == plain)
    return {};
  // Drop each argument whose assumption the runs do not need.
  for (size_t i = 0; i < args.size();) {
    std::vector<uint32_t> fewer = args;
    fewer.erase(fewer.begin() + i);
    mark(fewer);
    if (runs() == all)
      args = std::move(fewer);
    else
      ++i;
  }
  return args;
}

} // namespace

namespace backend {

bool faultInjected(const char *fault) {
  const char *env = backend::compileVariable("TESSERA_FAULT");
  return env && std::string_view(env) == fault;
}

void addTilePasses(OpPassManager &pm, bool portable, bool nativeDivFma) {
  pm.addPass(tile::createTilePipelineLoads()); // kernels with tile.num_stages = 2
  if (portable) {
    tile::TileExpandPortableMathOptions options;
    options.correctlyRoundedBasics = true;
    options.nativeDivFma = nativeDivFma;
    pm.addPass(tile::createTileExpandPortableMath(options));
  }
  pm.addPass(tile::createTileScalarizeUniform()); // (the expansions' work on uniform operands)
  pm.addPass(createCanonicalizerPass());
}

} // namespace backend

Result<Artifact> compileArtifact(const TracedKernel &kernel, const TargetDesc &target) {
  if (!kernel.impl_)
    return Status(StatusCode::InvalidArgument, "compile of an empty TracedKernel (trace failed?)");
  Result<TargetDesc> valid = validateTarget(target);
  if (!valid)
    return valid.status();
  Artifact a;
  if (Status s = runPipeline(kernel, *valid, std::nullopt, &a, nullptr); !s)
    return s;
  return a;
}

Result<Package> compile(std::span<const TracedKernel> kernels, std::span<const TargetDesc> targets) {
  Package pkg;
  for (const TracedKernel &k : kernels) {
    if (!k.impl_)
      return Status(StatusCode::InvalidArgument, "compile of an empty TracedKernel (trace failed?)");
    KernelEntry e;
    e.name = k.name();
    e.args = k.signature();
    e.numWarps = k.numWarps();
    e.tileIR = k.tileIR();
    // Worked out for the first target that needs it (each analysis clones the kernel and proves
    // its runs a few times over).
    std::optional<std::vector<uint32_t>> divisibleFor;
    for (const TargetDesc &t : targets) {
      Result<TargetDesc> valid = validateTarget(t);
      if (!valid)
        return valid.status();
      // Workgroup-scope matrices: a variant of the same chip without the suffix, for sizes that
      // are multiples of the blocks; none where no loop took that form.
      if (hasWorkgroupMatrices(valid->chip)) {
        Artifact w;
        if (Status s = runPipeline(k, *valid, std::nullopt, &w, nullptr); !s)
          return s;
        if (!w.divisibleArgs.empty())
          e.artifacts.push_back(std::move(w));
        continue;
      }
      if (!divisibleFor)
        divisibleFor = specializedArgs(k);
      const std::vector<uint32_t> &divisible = *divisibleFor;
      // PTX is compiled with bulk tensor copies allowed. Where the kernel then takes tensor maps,
      // that is a second form of the code (the runtime picks it per launch) and the first is
      // compiled without them; otherwise it is the only form (nothing was planned differently).
      Artifact a;
      if (Status s = runPipeline(k, *valid, std::nullopt, &a, nullptr, /*tensorCopies=*/valid->kind == TargetKind::PTX); !s)
        return s;
      if (!a.tensorMaps.empty()) {
        Artifact plain;
        if (Status s = runPipeline(k, *valid, std::nullopt, &plain, nullptr); !s)
          return s;
        e.artifacts.push_back(std::move(plain));
      }
      // A variant for launches whose `divisible` arguments are multiples of 16, where that proves
      // more of the masked loads' runs uniform (Argument specialization, docs/compiler.md). Not
      // beside a tensor-copy form, which runs wherever its maps can be built.
      const bool copies = !a.tensorMaps.empty();
      e.artifacts.push_back(std::move(a));
      if (!divisible.empty() && !copies) {
        Artifact v;
        if (Status s = runPipeline(k, *valid, std::nullopt, &v, nullptr, false, divisible); !s)
          return s;
        e.artifacts.push_back(std::move(v));
      }
    }
    pkg.kernels.push_back(std::move(e));
  }
  return pkg;
}

Result<Package> compile(const TracedKernel &kernel, const TargetDesc &target) {
  return compile(std::span<const TracedKernel>(&kernel, 1), std::span<const TargetDesc>(&target, 1));
}

Result<std::string> emit(const TracedKernel &kernel, const TargetDesc &target, Stage stage) {
  if (!kernel.impl_)
    return Status(StatusCode::InvalidArgument, "emit of an empty TracedKernel (trace failed?)");
  Result<TargetDesc> valid = validateTarget(target);
  if (!valid)
    return valid.status();
  std::string text;
  Artifact unused;
  if (Status s = runPipeline(kernel, *valid, stage, &unused, &text); !s)
    return s;
  return text;
}

} // namespace tessera
