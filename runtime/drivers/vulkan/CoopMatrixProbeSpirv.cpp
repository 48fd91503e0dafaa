// The cooperative-matrix probe shader, written instruction by instruction (CoopMatrixProbeSpirv.hpp).
#include "vulkan/CoopMatrixProbeSpirv.hpp"

#include <cstring>
#include <initializer_list>
#include <string_view>

namespace tessera::vulkan {

namespace {

// Opcodes and enumerants of the SPIR-V 1.6 specification and SPV_KHR_cooperative_matrix.
enum Op : uint32_t {
  OpExtension = 10, OpMemoryModel = 14, OpEntryPoint = 15, OpExecutionMode = 16, OpCapability = 17,
  OpTypeVoid = 19, OpTypeInt = 21, OpTypeFloat = 22, OpTypeRuntimeArray = 29, OpTypeStruct = 30,
  OpTypePointer = 32, OpTypeFunction = 33, OpConstant = 43, OpFunction = 54, OpFunctionEnd = 56,
  OpVariable = 59, OpLoad = 61, OpStore = 62, OpAccessChain = 65, OpDecorate = 71, OpMemberDecorate = 72,
  OpCompositeExtract = 81, OpConvertUToF = 112, OpFConvert = 115, OpIAdd = 128, OpIMul = 132, OpLabel = 248, OpReturn = 253,
  OpTypeCooperativeMatrixKHR = 4456, OpCooperativeMatrixLoadKHR = 4457, OpCooperativeMatrixStoreKHR = 4458,
  OpCooperativeMatrixMulAddKHR = 4459, OpCooperativeMatrixLengthKHR = 4460,
};
constexpr uint32_t kCapShader = 1, kCapFloat16 = 9, kCapStorageBuffer16BitAccess = 4433, kCapCoopMatrix = 6022;
// SPV_KHR_bfloat16: the capabilities, and OpTypeFloat's encoding operand for bf16.
constexpr uint32_t kCapBFloat16Type = 5116, kCapBFloat16CoopMatrix = 5118, kEncodingBFloat16 = 0;
constexpr uint32_t kDecBlock = 2, kDecArrayStride = 6, kDecBuiltIn = 11, kDecBinding = 33, kDecDescriptorSet = 34,
                   kDecOffset = 35;
constexpr uint32_t kStorageBuffer = 12, kInput = 1, kGLCompute = 5, kLocalSize = 17, kLocalInvocationIndex = 29;
constexpr uint32_t kRowMajor = 0, kUseA = 0, kUseB = 1, kUseAcc = 2, kScopeWorkgroup = 2, kScopeSubgroup = 3;

class Writer {
public:
  void op(uint32_t opcode, std::initializer_list<uint32_t> operands, std::string_view text = {}, 
          std::initializer_list<uint32_t> after = {}) {
    size_t textWords = text.data() ? text.size() / 4 + 1 : 0; // NUL-terminated, padded to words
    words_.push_back(uint32_t(1 + operands.size() + textWords + after.size()) << 16 | opcode);
    words_.insert(words_.end(), operands);
    if (textWords) {
      std::vector<uint32_t> packed(textWords, 0);
      std::memcpy(packed.data(), text.data(), text.size());
      words_.insert(words_.end(), packed.begin(), packed.end());
    }
    words_.insert(words_.end(), after);
  }
  uint32_t id() { return next_++; }
  std::vector<uint32_t> finish() {
    std::vector<uint32_t> out{0x07230203u, 0x00010600u, 0, next_, 0}; // magic, SPIR-V 1.6, generator, bound
    out.insert(out.end(), words_.begin(), words_.end());
    return out;
  }

private:
  std::vector<uint32_t> words_;
  uint32_t next_ = 1;
};

/// The capabilities, extensions and memory model every probe shader declares (with `bf16`,
/// SPV_KHR_bfloat16's too).
void header(Writer &w, bool bf16) {
  for (uint32_t cap : {kCapShader, kCapFloat16, kCapStorageBuffer16BitAccess, kCapCoopMatrix})
    w.op(OpCapability, {cap});
  if (bf16)
    for (uint32_t cap : {kCapBFloat16Type, kCapBFloat16CoopMatrix}) w.op(OpCapability, {cap});
  w.op(OpExtension, {}, "SPV_KHR_cooperative_matrix");
  if (bf16) w.op(OpExtension, {}, "SPV_KHR_bfloat16");
  w.op(OpMemoryModel, {0 /*Logical*/, 1 /*GLSL450*/});
}

/// The types of the probe shaders' storage buffers (runtime arrays of f16 and of f32 in Block
/// structs) and what they need around them, their ids taken first, in this order; `tPIn` (a
/// pointer to an input u32, for LocalInvocationIndex) only `withInput`.
struct BufferTypes {
  uint32_t tVoid, tFn, tU32, tF16, tF32, tArr16, tArr32, tS16, tS32, tPS16, tPS32, tP16, tP32, tPIn = 0;
  BufferTypes(Writer &w, bool withInput)
      : tVoid(w.id()), tFn(w.id()), tU32(w.id()), tF16(w.id()), tF32(w.id()), tArr16(w.id()), tArr32(w.id()),
        tS16(w.id()), tS32(w.id()), tPS16(w.id()), tPS32(w.id()), tP16(w.id()), tP32(w.id()),
        tPIn(withInput ? w.id() : 0) {}
  /// The arrays' strides and the structs' layout.
  void decorate(Writer &w) const {
    w.op(OpDecorate, {tArr16, kDecArrayStride, 2});
    w.op(OpDecorate, {tArr32, kDecArrayStride, 4});
    w.op(OpMemberDecorate, {tS16, 0, kDecOffset, 0});
    w.op(OpMemberDecorate, {tS32, 0, kDecOffset, 0});
    w.op(OpDecorate, {tS16, kDecBlock});
    w.op(OpDecorate, {tS32, kDecBlock});
  }
  /// The types themselves; bf16 (id `tBF16`) after f32 where not 0.
  void declare(Writer &w, uint32_t tBF16 = 0) const {
    w.op(OpTypeVoid, {tVoid});
    w.op(OpTypeFunction, {tFn, tVoid});
    w.op(OpTypeInt, {tU32, 32, 0});
    w.op(OpTypeFloat, {tF16, 16});
    w.op(OpTypeFloat, {tF32, 32});
    if (tBF16) w.op(OpTypeFloat, {tBF16, 16, kEncodingBFloat16});
    w.op(OpTypeRuntimeArray, {tArr16, tF16});
    w.op(OpTypeRuntimeArray, {tArr32, tF32});
    w.op(OpTypeStruct, {tS16, tArr16});
    w.op(OpTypeStruct, {tS32, tArr32});
    w.op(OpTypePointer, {tPS16, kStorageBuffer, tS16});
    w.op(OpTypePointer, {tPS32, kStorageBuffer, tS32});
    w.op(OpTypePointer, {tP16, kStorageBuffer, tF16});
    w.op(OpTypePointer, {tP32, kStorageBuffer, tF32});
    if (tPIn) w.op(OpTypePointer, {tPIn, kInput, tU32});
  }
};

} // namespace

std::vector<uint32_t> coopMatrixProbeSpirv(uint32_t subgroupSize, bool bf16) {
  const uint32_t perLane = 256 / subgroupSize; // the elements each invocation holds, if spread evenly
  Writer w;
  const BufferTypes t(w, /*withInput=*/true);
  const uint32_t tU32 = t.tU32, tF16 = t.tF16, tF32 = t.tF32, tPS16 = t.tPS16, tPS32 = t.tPS32, tP16 = t.tP16,
                 tP32 = t.tP32, tPIn = t.tPIn;
  const uint32_t c0 = w.id(), c1 = w.id(), c16 = w.id(), cPer = w.id(), cScope = w.id(), cUseA = w.id(),
                 cUseB = w.id(), cUseAcc = w.id();
  const uint32_t tA = w.id(), tB = w.id(), tC = w.id();
  const uint32_t vA = w.id(), vB = w.id(), vC = w.id(), vX = w.id(), vL = w.id(), vLane = w.id();
  const uint32_t fMain = w.id(), label = w.id();
  const uint32_t pA = w.id(), pB = w.id(), pC = w.id(), pX = w.id(), mA = w.id(), mB = w.id(), mC = w.id(),
                 mD = w.id(), mX = w.id();
  const uint32_t lane = w.id(), laneBase = w.id(), base = w.id(), length = w.id(), lengthF = w.id(), pLen = w.id();
  const uint32_t tBF16 = bf16 ? w.id() : 0, tIn = bf16 ? tBF16 : tF16; // A's and B's component type
  std::vector<uint32_t> cIndex(perLane);
  for (uint32_t &c : cIndex) c = w.id();

  header(w, bf16);
  w.op(OpEntryPoint, {kGLCompute, fMain}, kCoopMatrixProbeEntry, {vA, vB, vC, vX, vL, vLane}); // 1.4+: every global
  w.op(OpExecutionMode, {fMain, kLocalSize, subgroupSize, 1, 1});
  t.decorate(w);
  const uint32_t vars[] = {vA, vB, vC, vX, vL};
  for (uint32_t b = 0; b < 5; ++b) {
    w.op(OpDecorate, {vars[b], kDecDescriptorSet, 0});
    w.op(OpDecorate, {vars[b], kDecBinding, b});
  }
  w.op(OpDecorate, {vLane, kDecBuiltIn, kLocalInvocationIndex});
  t.declare(w, tBF16);
  w.op(OpConstant, {tU32, c0, 0});
  w.op(OpConstant, {tU32, c1, 1});
  w.op(OpConstant, {tU32, c16, 16});
  w.op(OpConstant, {tU32, cPer, perLane});
  w.op(OpConstant, {tU32, cScope, kScopeSubgroup});
  w.op(OpConstant, {tU32, cUseA, kUseA});
  w.op(OpConstant, {tU32, cUseB, kUseB});
  w.op(OpConstant, {tU32, cUseAcc, kUseAcc});
  for (uint32_t i = 0; i < perLane; ++i) w.op(OpConstant, {tU32, cIndex[i], i});
  // bf16 matrices load from the same 16-bit arrays: a load's pointer need not point to the
  // matrix's component type.
  w.op(OpTypeCooperativeMatrixKHR, {tA, tIn, cScope, c16, c16, cUseA});
  w.op(OpTypeCooperativeMatrixKHR, {tB, tIn, cScope, c16, c16, cUseB});
  w.op(OpTypeCooperativeMatrixKHR, {tC, tF32, cScope, c16, c16, cUseAcc});
  w.op(OpVariable, {tPS16, vA, kStorageBuffer});
  w.op(OpVariable, {tPS16, vB, kStorageBuffer});
  w.op(OpVariable, {tPS32, vC, kStorageBuffer});
  w.op(OpVariable, {tPS32, vX, kStorageBuffer});
  w.op(OpVariable, {tPS32, vL, kStorageBuffer});
  w.op(OpVariable, {tPIn, vLane, kInput});
  w.op(OpFunction, {t.tVoid, fMain, 0 /*None*/, t.tFn});
  w.op(OpLabel, {label});
  // D = A x B + C, stored over C.
  w.op(OpAccessChain, {tP16, pA, vA, c0, c0});
  w.op(OpAccessChain, {tP16, pB, vB, c0, c0});
  w.op(OpAccessChain, {tP32, pC, vC, c0, c0});
  // The layout operand is an id of a constant: RowMajorKHR (0), the same id as the index 0.
  static_assert(kRowMajor == 0);
  w.op(OpCooperativeMatrixLoadKHR, {tA, mA, pA, c0, c16});
  w.op(OpCooperativeMatrixLoadKHR, {tB, mB, pB, c0, c16});
  w.op(OpCooperativeMatrixLoadKHR, {tC, mC, pC, c0, c16});
  w.op(OpCooperativeMatrixMulAddKHR, {tC, mD, mA, mB, mC});
  w.op(OpCooperativeMatrixStoreKHR, {pC, mD, c0, c16});
  // Where an accumulator's elements live: L[0] = this invocation's element count, then element i
  // of invocation `lane` of the matrix X (X[r][c] = 16 r + c) at L[1 + lane * perLane + i].
  w.op(OpAccessChain, {tP32, pX, vX, c0, c0});
  w.op(OpCooperativeMatrixLoadKHR, {tC, mX, pX, c0, c16});
  w.op(OpCooperativeMatrixLengthKHR, {tU32, length, tC});
  w.op(OpConvertUToF, {tF32, lengthF, length});
  w.op(OpAccessChain, {tP32, pLen, vL, c0, c0});
  w.op(OpStore, {pLen, lengthF});
  w.op(OpLoad, {tU32, lane, vLane});
  w.op(OpIMul, {tU32, laneBase, lane, cPer});
  w.op(OpIAdd, {tU32, base, laneBase, c1});
  for (uint32_t i = 0; i < perLane; ++i) {
    const uint32_t at = w.id(), ptr = w.id(), value = w.id();
    w.op(OpIAdd, {tU32, at, base, cIndex[i]});
    w.op(OpAccessChain, {tP32, ptr, vL, c0, at});
    w.op(OpCompositeExtract, {tF32, value, mX, i});
    w.op(OpStore, {ptr, value});
  }
  w.op(OpReturn, {});
  w.op(OpFunctionEnd, {});
  return w.finish();
}

std::vector<uint32_t> operandLanesProbeSpirv(uint32_t subgroupSize) {
  const uint32_t perLane = 256 / subgroupSize;
  Writer w;
  const BufferTypes t(w, /*withInput=*/true);
  const uint32_t tU32 = t.tU32, tF16 = t.tF16, tF32 = t.tF32, tPS16 = t.tPS16, tPS32 = t.tPS32, tP16 = t.tP16,
                 tP32 = t.tP32, tPIn = t.tPIn;
  const uint32_t c0 = w.id(), c1 = w.id(), c16 = w.id(), cPer = w.id(), cSecond = w.id(), cScope = w.id(),
                 cUseA = w.id(), cUseB = w.id();
  const uint32_t tA = w.id(), tB = w.id();
  const uint32_t vX = w.id(), vL = w.id(), vLane = w.id();
  const uint32_t fMain = w.id(), label = w.id(), pX = w.id(), lane = w.id(), laneBase = w.id();
  std::vector<uint32_t> cIndex(perLane);
  for (uint32_t &c : cIndex) c = w.id();

  header(w, false);
  w.op(OpEntryPoint, {kGLCompute, fMain}, kOperandLanesProbeEntry, {vX, vL, vLane});
  w.op(OpExecutionMode, {fMain, kLocalSize, subgroupSize, 1, 1});
  t.decorate(w);
  w.op(OpDecorate, {vX, kDecDescriptorSet, 0});
  w.op(OpDecorate, {vX, kDecBinding, 0});
  w.op(OpDecorate, {vL, kDecDescriptorSet, 0});
  w.op(OpDecorate, {vL, kDecBinding, 1});
  w.op(OpDecorate, {vLane, kDecBuiltIn, kLocalInvocationIndex});
  t.declare(w);
  w.op(OpConstant, {tU32, c0, 0});
  w.op(OpConstant, {tU32, c1, 1});
  w.op(OpConstant, {tU32, c16, 16});
  w.op(OpConstant, {tU32, cPer, perLane});
  w.op(OpConstant, {tU32, cSecond, 1 + subgroupSize * perLane});
  w.op(OpConstant, {tU32, cScope, kScopeSubgroup});
  w.op(OpConstant, {tU32, cUseA, kUseA});
  w.op(OpConstant, {tU32, cUseB, kUseB});
  for (uint32_t i = 0; i < perLane; ++i) w.op(OpConstant, {tU32, cIndex[i], i});
  w.op(OpTypeCooperativeMatrixKHR, {tA, tF16, cScope, c16, c16, cUseA});
  w.op(OpTypeCooperativeMatrixKHR, {tB, tF16, cScope, c16, c16, cUseB});
  w.op(OpVariable, {tPS16, vX, kStorageBuffer});
  w.op(OpVariable, {tPS32, vL, kStorageBuffer});
  w.op(OpVariable, {tPIn, vLane, kInput});
  w.op(OpFunction, {t.tVoid, fMain, 0 /*None*/, t.tFn});
  w.op(OpLabel, {label});
  w.op(OpAccessChain, {tP16, pX, vX, c0, c0});
  w.op(OpLoad, {tU32, lane, vLane});
  w.op(OpIMul, {tU32, laneBase, lane, cPer});
  // X (16 r + c, row-major) as an A matrix, then as a B matrix: each one's element count at
  // L[first], then element i of invocation `lane` at L[first + 1 + lane * perLane + i].
  static_assert(kRowMajor == 0);
  for (auto [type, first] : {std::pair{tA, c0}, std::pair{tB, cSecond}}) {
    const uint32_t m = w.id(), length = w.id(), lengthF = w.id(), pLen = w.id(), start = w.id(), base = w.id();
    w.op(OpCooperativeMatrixLoadKHR, {type, m, pX, c0, c16});
    w.op(OpCooperativeMatrixLengthKHR, {tU32, length, type});
    w.op(OpConvertUToF, {tF32, lengthF, length});
    w.op(OpAccessChain, {tP32, pLen, vL, c0, first});
    w.op(OpStore, {pLen, lengthF});
    w.op(OpIAdd, {tU32, start, first, c1});
    w.op(OpIAdd, {tU32, base, start, laneBase});
    for (uint32_t i = 0; i < perLane; ++i) {
      const uint32_t at = w.id(), ptr = w.id(), half = w.id(), value = w.id();
      w.op(OpIAdd, {tU32, at, base, cIndex[i]});
      w.op(OpAccessChain, {tP32, ptr, vL, c0, at});
      w.op(OpCompositeExtract, {tF16, half, m, i});
      w.op(OpFConvert, {tF32, value, half});
      w.op(OpStore, {ptr, value});
    }
  }
  w.op(OpReturn, {});
  w.op(OpFunctionEnd, {});
  return w.finish();
}

std::vector<uint32_t> workgroupMatrixProbeSpirv(bool bf16) {
  constexpr uint32_t M = kWorkgroupProbeM, N = kWorkgroupProbeN, K = kWorkgroupProbeK;
  Writer w;
  const BufferTypes t(w, /*withInput=*/false);
  const uint32_t tU32 = t.tU32, tF16 = t.tF16, tF32 = t.tF32, tPS16 = t.tPS16, tPS32 = t.tPS32, tP16 = t.tP16,
                 tP32 = t.tP32;
  const uint32_t c0 = w.id(), cM = w.id(), cN = w.id(), cK = w.id(), cScope = w.id(), cUseA = w.id(), cUseB = w.id(),
                 cUseAcc = w.id();
  const uint32_t tA = w.id(), tB = w.id(), tC = w.id();
  const uint32_t vA = w.id(), vB = w.id(), vC = w.id();
  const uint32_t fMain = w.id(), label = w.id();
  const uint32_t pA = w.id(), pB = w.id(), pC = w.id(), mA = w.id(), mB = w.id(), mC = w.id(), mD = w.id();
  const uint32_t tBF16 = bf16 ? w.id() : 0, tIn = bf16 ? tBF16 : tF16;

  header(w, bf16);
  w.op(OpEntryPoint, {kGLCompute, fMain}, kWorkgroupMatrixProbeEntry, {vA, vB, vC});
  w.op(OpExecutionMode, {fMain, kLocalSize, kWorkgroupProbeInvocations, 1, 1});
  t.decorate(w);
  const uint32_t vars[] = {vA, vB, vC};
  for (uint32_t b = 0; b < 3; ++b) {
    w.op(OpDecorate, {vars[b], kDecDescriptorSet, 0});
    w.op(OpDecorate, {vars[b], kDecBinding, b});
  }
  t.declare(w, tBF16);
  w.op(OpConstant, {tU32, c0, 0});
  w.op(OpConstant, {tU32, cM, M});
  w.op(OpConstant, {tU32, cN, N});
  w.op(OpConstant, {tU32, cK, K});
  w.op(OpConstant, {tU32, cScope, kScopeWorkgroup});
  w.op(OpConstant, {tU32, cUseA, kUseA});
  w.op(OpConstant, {tU32, cUseB, kUseB});
  w.op(OpConstant, {tU32, cUseAcc, kUseAcc});
  w.op(OpTypeCooperativeMatrixKHR, {tA, tIn, cScope, cM, cK, cUseA});
  w.op(OpTypeCooperativeMatrixKHR, {tB, tIn, cScope, cK, cN, cUseB});
  w.op(OpTypeCooperativeMatrixKHR, {tC, tF32, cScope, cM, cN, cUseAcc});
  w.op(OpVariable, {tPS16, vA, kStorageBuffer});
  w.op(OpVariable, {tPS16, vB, kStorageBuffer});
  w.op(OpVariable, {tPS32, vC, kStorageBuffer});
  w.op(OpFunction, {t.tVoid, fMain, 0 /*None*/, t.tFn});
  w.op(OpLabel, {label});
  // D = A x B + C, stored over C; every matrix row-major, its stride its width.
  w.op(OpAccessChain, {tP16, pA, vA, c0, c0});
  w.op(OpAccessChain, {tP16, pB, vB, c0, c0});
  w.op(OpAccessChain, {tP32, pC, vC, c0, c0});
  static_assert(kRowMajor == 0);
  w.op(OpCooperativeMatrixLoadKHR, {tA, mA, pA, c0, cK});
  w.op(OpCooperativeMatrixLoadKHR, {tB, mB, pB, c0, cN});
  w.op(OpCooperativeMatrixLoadKHR, {tC, mC, pC, c0, cN});
  w.op(OpCooperativeMatrixMulAddKHR, {tC, mD, mA, mB, mC});
  w.op(OpCooperativeMatrixStoreKHR, {pC, mD, c0, cN});
  w.op(OpReturn, {});
  w.op(OpFunctionEnd, {});
  return w.finish();
}

} // namespace tessera::vulkan
