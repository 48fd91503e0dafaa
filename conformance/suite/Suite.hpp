// The numerics conformance suite: cases (kernel x dtype x size x mode), the problems they run
// on, and the budgets they are held to (docs/numerics.md).
//
// Every case uses one kernel signature, (x: Ptr<T>, y: Ptr<T>, out: Ptr<T>, n: i32), one
// program per BLOCK elements, so adding a case is one declaration in SuiteCases.cpp:
//
//   unary("exp", "math", [](tl::Tile x) { return tl::exp(x); }, {-10, 10}, {.fast = {5, 2}, .portable = {1}});
#pragma once

#include "tessera/interpreter.hpp" // HostBuffer (header-only; the interpreter itself needs the compiler)
#include "tessera/tl.hpp"

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace tessera::suite {

namespace tl = tessera::tl;

inline constexpr int BLOCK = 256; // elements per program (a row, for the row-wise cases)

/// An error bound against the float64 value: |got - exact| <= ulps * ulp(exact) +
/// growth * |x| * ulp(exact) + absolute * scale, in the output dtype's ULP (scale: the
/// problem's per-element magnitude, e.g. Σ|x| for a sum).
struct Bound {
  double ulps = 0, growth = 0, absolute = 0;
};
struct Budgets {
  Bound fast, portable;
  /// f16 and bf16 round an f32 result once more: their bound, in their own ULP.
  Bound half = {1, 0, 0};
};

/// One launch's data: x and y in, out poisoned; `scale` per output element (see Bound).
struct Problem {
  HostBuffer x, y, out;
  std::vector<double> scale;
  /// Fast mode promises its bounds on the case's input range only: elements whose inputs are
  /// special values or outside it are checked in portable mode alone.
  std::vector<bool> inFastDomain;
  /// Bound::growth multiplies this (default |x|; |y log2 x| for pow, Vulkan's form).
  std::vector<double> growth;
  int32_t n = 0;
  Grid grid{1};
};

struct Case {
  std::string name, family;
  Budgets budgets;
  /// The kernel body for element type `t`: given x and y loaded as f32 tiles (masked by
  /// offs < n), returns what to store (the runner wraps loads, casts and the store).
  std::function<Result<TracedKernel>(DType t, Numerics mode)> trace;
  std::function<Problem(DType t, int32_t n, std::mt19937 &rng)> problem;
  std::vector<int32_t> sizes;
};

/// The reference run of one (case, dtype, size, mode): the inputs, the golden output (portable:
/// what every backend must give) and the float64 value of each output element.
struct Reference {
  Problem problem;
  HostBuffer golden;
  std::vector<double> exact;
};

/// Reference files carry the interpreter's results to machines without the compiler
/// (SuiteGolden.cpp): `tessera-conformance-suite --write-goldens=DIR` writes them with the
/// packages, `tessera-conformance-suite-aot --goldens=DIR` reads them.
Status writeReference(const std::string &path, const Reference &ref);
Result<Reference> readReference(const std::string &path);
/// "exp_f16_portable": the stem of a job's package and reference files.
std::string jobStem(const std::string &caseName, DType t, Numerics mode);

/// Every case, with the sizes it runs at (masked tails, 1, empty, large).
const std::vector<Case> &cases();
/// The element types every case runs in.
inline const std::vector<DType> &caseDTypes() {
  static const std::vector<DType> t{DType::F32, DType::F16, DType::BF16};
  return t;
}

/// `got` as a double, for the output element types (f32, f16, bf16).
double elementValue(const HostBuffer &b, size_t i);
/// Distance in ULPs of `t` between `got` and the exact value (0 when both are NaN or equal).
double ulpDistance(DType t, double got, double exact);

} // namespace tessera::suite
