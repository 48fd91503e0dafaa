// Shared by the compiler tests: the test kernels, SPIR-V word access, ptxas discovery and skips.
#pragma once

#include "tessera/tessera.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::test {

namespace tl = tessera::tl;

inline bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}
/// How many times `needle` occurs in `haystack` (not overlapping).
inline size_t count(const std::string &haystack, const std::string &needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

/// Status codes compared as names, so doctest prints "compile error" rather than a number.
inline std::string codeName(StatusCode c) { return toString(c); }
inline std::string codeOf(const Status &s) { return toString(s.code()); }
/// Target kinds compared as names, for the same reason (doctest cannot print the enum itself).
inline std::string nameOf(TargetKind k) { return toString(k); }

/// Unwraps a Result or stops the test case with its Status.
template <class T> T &&require(Result<T> &&r, const char *what) {
  REQUIRE_MESSAGE(r.ok(), what << ": " << r.status().toString());
  return std::move(r).value();
}

/// Reports that a test could not check anything here. CTest's SKIP_REGULAR_EXPRESSION matches
/// the "SKIPPED: " line and shows the test as skipped; call it only right before returning.
inline void skipTest(const std::string &why) {
  MESSAGE(why);
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
}

/// Fresh inputs on every run; tests print the seed with any failure so a run can be repeated.
inline uint32_t freshSeed() { return std::random_device{}(); }

// ---- the test kernels ----------------------------------------------------------------------

/// out = x + y where offs < n, over a 2-D grid of programs (examples/01_vector_add.cpp).
inline Result<TracedKernel> traceVectorAdd(int block, uint32_t numWarps) {
  auto add = [block](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile pid = tl::program_id(0) + tl::program_id(1) * tl::num_programs(0);
    tl::Tile offs = pid * block + tl::arange(0, block);
    tl::Tile mask = offs < n;
    tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
  };
  return trace("vector_add", add, {.numWarps = numWarps, .argNames = {"x", "y", "out", "n"}});
}

inline constexpr int kScaleBlock = 256;
/// out = x * s + 1 where offs < n; a float scalar argument beside an int one.
inline Result<TracedKernel> traceMaskedScale() {
  auto scale = [](tl::Ptr<float> x, tl::Ptr<float> out, tl::Scalar<float> s, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kScaleBlock + tl::arange(0, kScaleBlock);
    tl::Tile mask = offs < n;
    tl::store(out + offs, tl::load(x + offs, mask) * s + 1, mask);
  };
  return trace("masked_scale", scale, {.numWarps = 2, .argNames = {"x", "out", "s", "n"}});
}
inline float maskedScaleReference(float x, float s) { return x * s + 1.0f; }

inline constexpr int kIntBlock = 128;
/// Integer arithmetic and mask logic: q = a / b, r = a % b, out = q - 3r, written only where
/// offs < n and (!(q < r) | r == 0); other elements are left untouched.
inline Result<TracedKernel> traceIntMix() {
  auto mix = [](tl::Ptr<int32_t> a, tl::Ptr<int32_t> b, tl::Ptr<int32_t> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kIntBlock + tl::arange(0, kIntBlock);
    tl::Tile inside = offs < n;
    tl::Tile av = tl::load(a + offs, inside, 0);
    tl::Tile bv = tl::load(b + offs, inside, 1);
    tl::Tile q = av / bv;
    tl::Tile r = av % bv;
    tl::Tile keep = !(q < r) | (r == 0);
    tl::store(out + offs, q - r * 3, inside & keep);
  };
  return trace("int_mix", mix, {.numWarps = 4, .argNames = {"a", "b", "out", "n"}});
}
/// Whether int_mix writes element i, and what.
inline bool intMixWrites(int32_t a, int32_t b, int32_t *value) {
  int32_t q = a / b, r = a % b;
  *value = q - r * 3;
  return !(q < r) || r == 0;
}

inline constexpr int kSmallBlock = 16;
/// A 16-element tile in a program of 4 warps: most threads of the program hold no element.
/// out = -x + y, where masked-off y reads give 0.5.
inline Result<TracedKernel> traceSmallTile() {
  auto small = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kSmallBlock + tl::arange(0, kSmallBlock);
    tl::Tile mask = offs < n;
    tl::store(out + offs, -tl::load(x + offs, mask) + tl::load(y + offs, mask, 0.5), mask);
  };
  return trace("small_tile", small, {.numWarps = 4, .argNames = {"x", "y", "out", "n"}});
}

/// Every kernel the artifact tests compile, with a label for messages.
struct NamedKernel {
  std::string label;
  TracedKernel kernel;
};
/// c[M x N] = a[M x K] @ b[K x N] (row-major, T in, Acc out), BM x BN per program, k in steps
/// of BK through tl::for_range; every load masked at the ragged edges. With `bTransposed`, b is
/// stored N x K (as attention's keys): the kernel loads BN x BK tiles of it and multiplies by
/// tl::trans of them. `Out`: c's element type, the accumulator cast to it where it differs.
template <class T, class Acc, class Out = Acc>
inline Result<TracedKernel> traceMatmul(int BM, int BN, int BK, Numerics mode, uint32_t warps = 4,
                                        bool bTransposed = false) {
  auto matmul = [=](tl::Ptr<T> a, tl::Ptr<T> b, tl::Ptr<Out> c, tl::Scalar<int32_t> M, tl::Scalar<int32_t> N,
                    tl::Scalar<int32_t> K) {
    tl::Tile rm = tl::program_id(0) * BM + tl::arange(0, BM), rn = tl::program_id(1) * BN + tl::arange(0, BN);
    tl::Tile rows = tl::expand_dims(rm, 1), cols = tl::expand_dims(rn, 0);
    tl::Tile acc = tl::for_range(0, K, BK, tl::zeros({BM, BN}, DTypeOf<Acc>::value), [&](const tl::Tile &k, const tl::Tile &acc) {
      tl::Tile rk = k + tl::arange(0, BK);
      tl::Tile ka = tl::expand_dims(rk, 0), kb = tl::expand_dims(rk, 1);
      tl::Tile x = tl::load(a + rows * K + ka, (rows < M) & (ka < K), 0);
      if (bTransposed) {
        tl::Tile bRows = tl::expand_dims(rn, 1);
        return tl::dot(x, tl::trans(tl::load(b + bRows * K + ka, (bRows < N) & (ka < K), 0)), acc);
      }
      tl::Tile y = tl::load(b + kb * N + cols, (kb < K) & (cols < N), 0);
      return tl::dot(x, y, acc);
    });
    if constexpr (std::is_same_v<Out, Acc>)
      tl::store(c + rows * N + cols, acc, (rows < M) & (cols < N));
    else
      tl::store(c + rows * N + cols, tl::cast(acc, DTypeOf<Out>::value), (rows < M) & (cols < N));
  };
  return trace("matmul", matmul, {.numWarps = warps, .argNames = {"a", "b", "c", "M", "N", "K"}, .numerics = mode});
}

/// Attention's first dot as a test kernel: the scores q k^T of one (batch, head) slice of stacks
/// of seq x 64 matrices (head = program_id(1) * seq * stride), the queries loaded once before the
/// loop, the keys in each iteration (rows bounded by seq, columns from 0 unmasked, `other` past
/// seq). `computedStride`: the keys' row stride max(seq, 64), computed in the kernel, else 64.
/// `warps` subgroups compute blocks of `blockRows` queries against blocks of `keys` keys (the
/// scores summed over the key blocks: out is seq x keys a slice), rows of `dims` elements.
inline Result<TracedKernel> traceScores(bool computedStride = false, float other = 0.0f, uint32_t warps = 4,
                                        int blockRows = 64, int keys = 64, int dims = 64) {
  auto scores = [=](tl::Ptr<f16> q, tl::Ptr<f16> k, tl::Ptr<float> out, tl::Scalar<int32_t> seq) {
    auto strided = [&](const tl::Tile &t) { return computedStride ? t * tl::maximum(seq, dims) : t * dims; };
    tl::Tile head = strided(tl::program_id(1) * seq);
    tl::Tile rows = tl::expand_dims(tl::program_id(0) * blockRows + tl::arange(0, blockRows), 1),
             cols = tl::expand_dims(tl::arange(0, dims), 0);
    tl::Tile x = tl::load(q + head + strided(rows) + cols, rows < seq, 0);
    tl::Tile acc = tl::for_range(0, seq, keys, tl::zeros({blockRows, keys}, DType::F32), [&](const tl::Tile &start, const tl::Tile &acc) {
      tl::Tile keyRows = tl::expand_dims(start + tl::arange(0, keys), 1);
      return tl::dot(x, tl::trans(tl::load(k + head + strided(keyRows) + cols, keyRows < seq, other)), acc);
    });
    tl::Tile slice = tl::program_id(1) * seq * keys;
    tl::store(out + slice + rows * keys + tl::expand_dims(tl::arange(0, keys), 0), acc, rows < seq);
  };
  return trace("scores", scores, {.numWarps = warps, .argNames = {"q", "k", "out", "seq"}});
}

/// Attention's loop rotated as 06_flash_attention --overlap=1 writes it (one iteration more: this
/// key block's scores, the previous block's probabilities times its values, then the softmax),
/// f16, D = `dims`, on `warps` subgroups.
inline Result<TracedKernel> traceRotatedAttention(uint32_t warps = 8, int blockRows = 128, int keys = 64, int dims = 64) {
  auto attention = [=](tl::Ptr<f16> q, tl::Ptr<f16> k, tl::Ptr<f16> v, tl::Ptr<f16> o, tl::Scalar<int32_t> seq) {
    tl::Tile head = tl::program_id(1) * seq * dims;
    tl::Tile rows = tl::expand_dims(tl::program_id(0) * blockRows + tl::arange(0, blockRows), 1),
             cols = tl::expand_dims(tl::arange(0, dims), 0);
    tl::Tile x = tl::load(q + head + rows * dims + cols, rows < seq, 0);
    std::vector<tl::Tile> init{tl::full({blockRows}, -INFINITY, DType::F32), tl::zeros({blockRows}, DType::F32),
                               tl::zeros({blockRows, dims}, DType::F32), tl::zeros({blockRows, keys}, DType::F16),
                               tl::full({blockRows}, 1.0f, DType::F32)};
    std::vector<tl::Tile> done = tl::for_range(0, seq + keys, keys, init, [&](const tl::Tile &start, const std::vector<tl::Tile> &st) {
      tl::Tile scaled = st[2] * tl::expand_dims(st[4], 1);
      tl::Tile keys0 = start + tl::arange(0, keys);
      tl::Tile keyRows = tl::expand_dims(keys0, 1);
      tl::Tile s = tl::dot(x, tl::trans(tl::load(k + head + keyRows * dims + cols, keyRows < seq, 0)));
      tl::Tile prev = tl::expand_dims(start + tl::arange(-keys, 0), 1);
      tl::Tile acc = tl::dot(st[3], tl::load(v + head + prev * dims + cols, (prev >= 0) & (prev < seq), 0), scaled);
      s = tl::where(tl::expand_dims(keys0, 0) < seq, s, -INFINITY);
      tl::Tile m = tl::maximum(st[0], tl::max(s, 1));
      tl::Tile p = tl::exp2(s - tl::expand_dims(m, 1));
      tl::Tile alpha = tl::exp2(st[0] - m);
      return std::vector<tl::Tile>{m, st[1] * alpha + tl::sum(p, 1), acc, tl::cast(p, DType::F16), alpha};
    });
    tl::store(o + head + rows * dims + cols, tl::cast(done[2] / tl::expand_dims(done[1], 1), DType::F16), rows < seq);
  };
  return trace("attention", attention, {.numWarps = warps, .argNames = {"q", "k", "v", "o", "seq"}});
}

inline std::vector<NamedKernel> artifactKernels() {
  std::vector<NamedKernel> out;
  for (int block : {128, 1024})
    for (uint32_t warps : {1u, 4u, 8u})
      out.push_back({"vector_add BLOCK=" + std::to_string(block) + " numWarps=" + std::to_string(warps),
                     require(traceVectorAdd(block, warps), "trace vector_add")});
  out.push_back({"masked_scale", require(traceMaskedScale(), "trace masked_scale")});
  out.push_back({"int_mix", require(traceIntMix(), "trace int_mix")});
  out.push_back({"small_tile", require(traceSmallTile(), "trace small_tile")});
  out.push_back({"matmul f16 fast", require(traceMatmul<f16, float>(64, 64, 32, Numerics::Fast), "trace matmul")});
  out.push_back({"matmul f32 portable", require(traceMatmul<float, float>(32, 32, 16, Numerics::Portable), "trace matmul")});
  // (Through CUDA from sm_80 its operands come by cp.async copies in stages: fma-async-copies.)
  out.push_back({"matmul f32 fast", require(traceMatmul<float, float>(64, 128, 16, Numerics::Fast), "trace matmul")});
  out.push_back({"matmul i8 fast", require(traceMatmul<int8_t, int32_t>(32, 32, 32, Numerics::Fast), "trace matmul")});
  return out;
}

// ---- artifacts -----------------------------------------------------------------------------

inline constexpr uint32_t kSpirvMagic = 0x07230203;

/// SPIR-V artifact code is little-endian words, whatever the host.
inline std::vector<uint32_t> spirvWords(const Artifact &a) {
  std::vector<uint32_t> words(a.code.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    for (int k = 0; k < 4; ++k) words[i] |= uint32_t(a.code[i * 4 + k]) << (8 * k);
  return words;
}

inline std::string ptxText(const Artifact &a) { return std::string(a.code.begin(), a.code.end()); }

/// ptxas from TESSERA_PTXAS, else the CUDA toolkit's, else PATH; empty when there is none.
inline std::string findPtxas() {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path &p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && (fs::status(p, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
  };
  if (const char *env = std::getenv("TESSERA_PTXAS"); env && *env)
    return executable(env) ? std::string(env) : std::string();
  if (executable("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (const char *path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      fs::path candidate = fs::path(dirs.substr(start, end - start)) / "ptxas";
      if (end > start && executable(candidate)) return candidate.string();
      start = end + 1;
    }
  }
  return {};
}

} // namespace tessera::test
