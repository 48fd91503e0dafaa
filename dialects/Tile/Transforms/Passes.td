// Passes on tile IR, alphabetical.
#ifndef TESSERA_TILE_TRANSFORMS_PASSES
#define TESSERA_TILE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileExpandPortableMath : Pass<"tile-expand-portable-math", "mlir::ModuleOp"> {
  let summary = "Expand f32 math into operations whose rounding every backend pins down";
  let description = [{
    For `portable` mode, before the target split: every f32 `math` op (scalar or tile) of the
    module's `func.func`s becomes a fixed sequence of f64 `+ - *`, compares, selects, integer
    and bit operations, `extf` and one final `truncf`, so the result has the same bits on CUDA,
    on every Vulkan driver and in the reference interpreter. No `divf`, `sqrt`, `fma` or
    `math` op remains (f64 division and sqrt are not pinned on Vulkan either).

      exp x   => 2^k * P(r),  k = round(x / ln2), r = x - k ln2 (ln2 in two pieces)
      exp2 x  => 2^k * P(f ln2),  k = round(x), f = x - k
      log x   => e ln2 + [c] ln(4/3) + log1p(f),  x = 2^e (1 + f) / c, |f| <= 0.2
      log2 x  => e + ([c] ln(4/3) + log1p(f)) / ln2
      rsqrt x => y_4, y_{n+1} = y_n + y_n (1/2 - (x/2) y_n^2), y_0 from a bit trick
      sin x   => +-sin r or +-cos r by the quadrant,  x = (4j + q) pi/2 + r
      cos x   => the same with quadrant q + 1
      tanh x  => sign(x) E / (E + 2),  E = e^(2|x|) - 1, 1/(E + 2) by Newton steps
      erf x   => sign(x) |x| p(x^2) for |x| < 1, sign(x) (1 - 2^l(|x|)) for |x| < 4, else +-1
      pow x y => 2^(y log2|x|) in double-double, then C99's special cases

    P, log1p, sin, cos, p and l are minimax polynomials (gen_portable_math_coeffs.py). sin
    and cos reduce by Payne-Hanek without a table: x times each 28-bit chunk of 2/pi is exact
    in f64, multiples of 4 are dropped exactly, and a compensated sum gives r for |x| up to
    3.4e38. The f64 result has a relative error below 2^-50 (measured; 2^-48 by design), so
    each f32 result is within 0.5 + 2^-20 ULP of the exact value: correctly rounded except
    for rare inputs next to a rounding midpoint (the contract allows 2 ULP). Special values
    follow C's `expf`, `logf`, `sinf`, `tanhf`, `erff`, `powf`: signed zeros, infinities,
    NaN, subnormal inputs and results (computed, never flushed), overflow to inf.

    With `correctly-rounded-basics` (for SPIR-V, where `OpFDiv` may be 2.5 ULP, `sqrt` comes
    from `inversesqrt` and `Fma` may be unfused; and for PTX, whose `sqrt` comes from libdevice,
    approximate unless built otherwise), f32 `arith.divf`, `math.sqrt` and `math.fma` also
    expand, to the correctly rounded result (with `native-div-fma`, only `sqrt`: PTX's
    `div.rn.f32` and `fma.rn.f32` are correctly rounded already):

      a / b      => q = |a| * recip(|b|); c = f32(q); sign(|a| - mid |b|) picks c or its
                    neighbour across the midpoint mid (exact: 25 x 24-bit product)
      sqrt x     => q = x * rsqrt(x); the same with sign(x - mid^2)
      fma a b c  => s + e = a*b + c exactly (TwoSum), s rounded to odd, then truncf

    Math ops on other element types are errors: the tracer computes f16/bf16 math in f32.
  }];
  let options = [
    Option<"correctlyRoundedBasics", "correctly-rounded-basics", "bool", /*default=*/"false",
           "also expand f32 divf, sqrt and fma into correctly rounded sequences">,
    Option<"nativeDivFma", "native-div-fma", "bool", /*default=*/"false",
           "with correctly-rounded-basics, leave f32 divf and fma to a target that rounds them "
           "correctly (PTX: div.rn.f32, fma.rn.f32); sqrt still expands">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileScalarizeUniform : Pass<"tile-scalarize-uniform", "mlir::ModuleOp"> {
  let summary = "Compute an elementwise op once where its operands are the same in every element";
  let description = [{
    An elementwise op (arith, math) whose tile operands are each a `tile.splat` or a splat
    constant becomes the scalar op on the splat values, splat after; one whose operands are each
    a `tile.broadcast` of a tile of one shape (or a splat, or a splat constant) becomes the op on
    those smaller tiles, broadcast after. Ops are visited in order, so a chain of them narrows whole.

      %s = tile.splat %sum : tensor<1024xf64>
      %r = arith.mulf %s, %cst : tensor<1024xf64>      // %cst = dense<2.0>
    =>
      %r0 = arith.mulf %sum, %c2 : f64
      %r = tile.splat %r0 : tensor<1024xf64>

    Each element is the same operation on the same values, so results are unchanged to the bit
    (portable mode included). What it saves is where portable math expands an op with a uniform
    operand: `x / sum` expands into a reciprocal of `sum` by three f64 Newton steps and tests on
    `sum` (tile-expand-portable-math), which this computes once a program instead of once an
    element (a row softmax's division), or once a row instead of once an element (attention's
    final `acc / broadcast(l)`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileHoistLoads : Pass<"tile-hoist-loads", "mlir::ModuleOp"> {
  let summary = "Issue each top-level load of a kernel as early as its operands allow";
  let description = [{
    In each `func.func`, every `tile.load` of the function's own block moves up to just after
    the last of: the definitions of its offsets, mask and `other`, and the last earlier op that
    may write memory (a store, an atomic, an op with unknown effects or any op with regions
    other than a pure one). Loads keep their order among themselves.

    A kernel that loads more after a reduction (layernorm's weights and biases after the row's
    mean and variance) otherwise issues those loads only after the reductions' program
    barriers, which no later scheduler moves loads across: their memory latency then adds to
    the row's instead of overlapping it. Results are unchanged: the same elements are read and
    no write lies between the old place and the new. Loads inside loops stay where they are
    (a loop's staging and pipelining decide those).
  }];
}

def TilePipelineLoads : Pass<"tile-pipeline-loads", "mlir::ModuleOp"> {
  let summary = "Issue the loads of a loop one iteration ahead (num_stages = 2)";
  let description = [{
    In each `func.func` with `tile.num_stages = 2`, every innermost `scf.for` whose body writes
    no memory gets its `tile.load`s pipelined by one iteration, where a load's offsets, mask
    and `other` depend only on the induction variable and values from outside the loop:

      before the loop:  the loads for i = lb, masked also by lb < ub
      in the loop:      first the loads for i + step, masked also by i < i + step < ub (no
                        wrap-around), then the body, using the loads of this iteration
                        carried in from the previous one (extra iter_args)

    So the memory latency of the next iteration's tiles overlaps this iteration's work (a
    `dot`, say), at the cost of holding two copies of those tiles in registers. Results are
    unchanged: the same elements are read (no load reads memory that the loop writes), and the
    extra masks only keep loads past the end from touching memory. Loads that depend on
    iter_args or on other loads, and loops with stores or atomics, are left as they are.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

#endif // TESSERA_TILE_TRANSFORMS_PASSES
