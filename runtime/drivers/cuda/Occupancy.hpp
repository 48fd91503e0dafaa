// How many registers a kernel's code may keep for one more of its programs to fit on a
// multiprocessor (the CUDA driver's occupancy retry, CudaKernel.cpp). No GPU needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::cuda {

/// Registers per multiprocessor on every NVIDIA GPU since sm_50, and the unit a warp's
/// registers are allocated in (256: 8 a thread).
inline constexpr int64_t kRegistersPerProcessor = 65536;
inline constexpr int64_t kRegisterUnit = 8;

/// For code that takes `registers` a thread in programs of `threads`, `programs` of which fit
/// on a multiprocessor now: the most registers a thread that would let `programs + 1` fit,
/// where that is at most an eighth fewer than `registers` (a JIT under that cap rarely spills);
/// 0 where no such cap exists (the registers are not what limits, or the cap is too far).
inline int64_t occupancyRegisterCap(int64_t registers, int64_t threads, int64_t programs) {
  if (registers <= 0 || threads <= 0 || programs <= 0) return 0;
  const int64_t warps = (threads + 31) / 32;
  // Registers limit the programs only if `programs` is what they allow.
  auto fit = [&](int64_t r) {
    const int64_t perWarp = ((r + kRegisterUnit - 1) / kRegisterUnit) * kRegisterUnit * 32;
    return kRegistersPerProcessor / (perWarp * warps);
  };
  if (fit(registers) != programs) return 0;
  const int64_t cap = kRegistersPerProcessor / ((programs + 1) * warps * 32) / kRegisterUnit * kRegisterUnit;
  if (cap < 16 || cap >= registers || cap * 8 < registers * 7) return 0;
  return cap;
}

/// `ptx` with its entry function's registers bounded to `cap` a thread: a `.maxnreg` directive
/// beside the entry's other performance directives. The JIT's own bound (CU_JIT_MAX_REGISTERS,
/// ptxas's -maxrregcount) does not bind an entry that declares `.maxntid`, as every kernel of
/// this compiler does (ptxas 13: layernorm over 4096 columns on 8 warps keeps its 80 registers
/// under -maxrregcount=72 and takes 72 with the directive; run 54 saw the driver's JIT do the
/// same). Nothing where the text has no single entry or already bounds its registers.
inline std::optional<std::string> withRegisterCap(std::string_view ptx, int64_t cap) {
  const size_t entry = ptx.find(".entry ");
  if (cap <= 0 || entry == std::string_view::npos || ptx.find(".entry ", entry + 1) != std::string_view::npos ||
      ptx.find(".maxnreg") != std::string_view::npos)
    return std::nullopt;
  // The parameter list holds no brace: the first one after it opens the body.
  const size_t params = ptx.find(')', entry);
  const size_t body = params == std::string_view::npos ? params : ptx.find('{', params);
  if (body == std::string_view::npos) return std::nullopt;
  std::string out(ptx.substr(0, body));
  out += ".maxnreg " + std::to_string(cap) + "\n";
  out += ptx.substr(body);
  return out;
}

} // namespace tessera::cuda
