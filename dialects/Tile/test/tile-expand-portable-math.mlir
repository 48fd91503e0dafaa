// RUN: tessera-opt %s -split-input-file -verify-diagnostics --tile-expand-portable-math | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics --tile-expand-portable-math='correctly-rounded-basics=true' | FileCheck %s --check-prefix=BASICS
// RUN: tessera-opt %s -split-input-file -verify-diagnostics --tile-expand-portable-math='correctly-rounded-basics=true native-div-fma=true' | FileCheck %s --check-prefix=PTX

// exp on a tile: clamped in f32 (compares and selects, no f64 work), then f64, splat constants
// of the tile's shape, 2^k from the bits of the rounding sum x log2 e + 1.5 * 2^52 (no
// float-to-integer conversion), one truncf at the end, and a NaN input (found on its bits)
// passed through by a select.
// CHECK-LABEL: func.func @exp_tile
// CHECK-SAME: (%[[X:.*]]: tensor<128xf32>)
// CHECK-NOT: math.
// CHECK: arith.constant dense<1.500000e+02> : tensor<128xf32>
// CHECK: arith.constant dense<-1.500000e+02> : tensor<128xf32>
// CHECK: %[[LO:.*]] = arith.select %{{.*}} : tensor<128xi1>, tensor<128xf32>
// CHECK: %[[XD:.*]] = arith.extf %[[LO]] : tensor<128xf32> to tensor<128xf64>
// CHECK: %[[T:.*]] = arith.mulf %[[XD]], %{{.*}} : tensor<128xf64>
// CHECK: %[[SUM:.*]] = arith.addf %[[T]], %{{.*}} : tensor<128xf64>
// CHECK: %[[SUMBITS:.*]] = arith.bitcast %[[SUM]] : tensor<128xf64> to tensor<128xi64>
// CHECK: %[[FIELD:.*]] = arith.addi %[[SUMBITS]], %{{.*}} : tensor<128xi64>
// CHECK: %[[SCALE:.*]] = arith.shli %[[FIELD]], %{{.*}} : tensor<128xi64>
// CHECK: %[[POW2:.*]] = arith.bitcast %[[SCALE]] : tensor<128xi64> to tensor<128xf64>
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[POW2]] : tensor<128xf64>
// CHECK: %[[R:.*]] = arith.truncf %[[Y]] : tensor<128xf64> to tensor<128xf32>
// CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : tensor<128xf32> to tensor<128xi32>
// CHECK: %[[XM:.*]] = arith.andi %[[XB]], %{{.*}} : tensor<128xi32>
// CHECK: %[[NAN:.*]] = arith.cmpi sgt, %[[XM]], %{{.*}} : tensor<128xi32>
// CHECK: %[[OUT:.*]] = arith.select %[[NAN]], %[[X]], %[[R]]
// CHECK-NOT: math.
// CHECK: return %[[OUT]]
func.func @exp_tile(%x: tensor<128xf32>) -> tensor<128xf32> {
  %0 = math.exp %x : tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

// exp2 on a scalar: no math op and no divf survive, and the result comes from one truncf.
// CHECK-LABEL: func.func @exp2
// CHECK-NOT: {{math\.|divf}}
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @exp2(%x: f32) -> f32 {
  %0 = math.exp2 %x : f32
  return %0 : f32
}

// -----

// log: the exponent comes from the f64 bits (no subnormal case: f32 subnormals are normal in f64).
// CHECK-LABEL: func.func @log
// CHECK-NOT: {{math\.|divf}}
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK: arith.shrui %[[BITS]], %{{.*}} : i64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @log(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// -----

// log2 shares log's reduction.
// CHECK-LABEL: func.func @log2
// CHECK-NOT: {{math\.|divf}}
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @log2(%x: f32) -> f32 {
  %0 = math.log2 %x : f32
  return %0 : f32
}

// -----

// rsqrt: Newton steps from a bit-trick seed, no sqrt or division.
// CHECK-LABEL: func.func @rsqrt
// CHECK-NOT: {{math\.|divf}}
// CHECK: arith.shrui
// CHECK: arith.subi
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @rsqrt(%x: f32) -> f32 {
  %0 = math.rsqrt %x : f32
  return %0 : f32
}

// -----

// sin: Payne-Hanek over eight exact products with the 28-bit chunks of 2/pi.
// CHECK-LABEL: func.func @sin
// CHECK-NOT: {{math\.|divf}}
// CHECK: %[[XS:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK-COUNT-8: arith.mulf %[[XS]], %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @sin(%x: f32) -> f32 {
  %0 = math.sin %x : f32
  return %0 : f32
}

// -----

// cos is sin with the quadrant advanced by one: the same eight products.
// CHECK-LABEL: func.func @cos
// CHECK-NOT: {{math\.|divf}}
// CHECK-COUNT-8: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @cos(%x: f32) -> f32 {
  %0 = math.cos %x : f32
  return %0 : f32
}

// -----

// tanh and erf copy the sign bit of x onto the f32 result (tanh(-0) = erf(-0) = -0).
// CHECK-LABEL: func.func @tanh
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NOT: {{math\.|divf}}
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.andi %[[XB]], %{{.*}} : i32
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @tanh(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// -----

// erf on a 2-D tile.
// CHECK-LABEL: func.func @erf
// CHECK-NOT: {{math\.|divf}}
// CHECK: arith.truncf %{{.*}} : tensor<4x8xf64> to tensor<4x8xf32>
// CHECK-NOT: {{math\.|divf}}
// CHECK: return
func.func @erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = math.erf %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// pow: the special cases end the expansion; pow(x, 0) = pow(1, y) = 1 is the last select.
// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NOT: {{math\.|divf}}
// CHECK: %[[XD:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK: %[[YD:.*]] = arith.extf %[[Y]] : f32 to f64
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: {{math\.|divf}}
// CHECK: %[[Y0:.*]] = arith.cmpf oeq, %[[YD]], %[[ZERO]] : f64
// CHECK-NEXT: %[[X1:.*]] = arith.cmpf oeq, %[[XD]], %{{.*}} : f64
// CHECK-NEXT: %[[EITHER:.*]] = arith.ori %[[Y0]], %[[X1]] : i1
// CHECK-NEXT: %[[OUT:.*]] = arith.select %[[EITHER]], %[[ONE]], %{{.*}} : f32
// CHECK-NEXT: return %[[OUT]]
func.func @pow(%x: f32, %y: f32) -> f32 {
  %0 = math.powf %x, %y : f32
  return %0 : f32
}

// -----

// Inside a loop: the expansion stays next to the op.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NOT: math.
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: scf.yield
func.func @in_loop(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %e = math.exp %acc : f32
    scf.yield %e : f32
  }
  return %r : f32
}

// -----

// divf, sqrt and fma stay without correctly-rounded-basics and expand with it; ops the pass does
// not know (floor) are left alone either way. With native-div-fma (the compiler's choice for
// PTX, whose div.rn.f32 and fma.rn.f32 are correctly rounded), only sqrt expands: CUDA's comes
// from libdevice, approximate.
// PTX-LABEL: func.func @basics
// PTX: arith.divf
// PTX-NOT: math.sqrt
// PTX: arith.truncf %{{.*}} : tensor<16xf64> to tensor<16xf32>
// PTX-NOT: math.sqrt
// PTX: math.fma
// PTX: math.floor
// CHECK-LABEL: func.func @basics
// CHECK: arith.divf
// CHECK: math.sqrt
// CHECK: math.fma
// CHECK: math.floor
// BASICS-LABEL: func.func @basics
// BASICS-NOT: {{divf|math\.sqrt|math\.fma}}
// BASICS: arith.truncf %{{.*}} : tensor<16xf64> to tensor<16xf32>
// BASICS-NOT: {{divf|math\.sqrt|math\.fma}}
// BASICS: math.floor
// BASICS-NOT: {{divf|math\.sqrt|math\.fma}}
// BASICS: return
func.func @basics(%a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  %q = arith.divf %a, %b : tensor<16xf32>
  %s = math.sqrt %q : tensor<16xf32>
  %f = math.fma %s, %b, %c : tensor<16xf32>
  %r = math.floor %f : tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// fma with the option: an exact f64 product, TwoSum, and the round-to-odd step on the i64 bits.
// BASICS-LABEL: func.func @fma
// BASICS: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// BASICS: %[[S:.*]] = arith.addf %[[P]], %{{.*}} : f64
// BASICS: %[[BITS:.*]] = arith.bitcast %[[S]] : f64 to i64
// BASICS: %[[ODD:.*]] = arith.addi %[[BITS]], %{{.*}} : i64
// BASICS: arith.truncf %{{.*}} : f64 to f32
func.func @fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %0 = math.fma %a, %b, %c : f32
  return %0 : f32
}

// -----

func.func @f16_math(%x: f16) -> f16 {
  // expected-error @+1 {{portable math supports f32 scalars and statically shaped f32 tiles, got 'f16' (compute f16/bf16 math in f32)}}
  %0 = math.exp %x : f16
  return %0 : f16
}
