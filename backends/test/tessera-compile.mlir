// RUN: %tessera compile %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tessera compile %s --emit=ptx --ptx-version=88 | FileCheck %s --check-prefix=PTX88
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 | FileCheck %s --check-prefix=SPV
// RUN: %tessera compile %s -o %t.tspkg --subgroup-size=8,32 && test -s %t.tspkg
// RUN: not %tessera compile %s --emit=ptx --ptx-version=60 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not %tessera compile %s --emit=ptx --chip=sm_91 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not %tessera compile %s --emit=package 2>&1 | FileCheck %s --check-prefix=NOOUT
// `tessera compile` on tile IR: PTX with the ISA version set for the chip, validated SPIR-V, a
// package, and options refused before LLVM could abort.

// PTX: .version 7.8
// PTX: .target sm_90
// PTX: .visible .entry scale(
// PTX88: .version 8.8
// SPV: OpEntryPoint GLCompute %{{.*}} "scale"
// SPV: OpExecutionMode %{{.*}} LocalSize 32 1 1
// SPV: PushConstant
// OLD: error: PTX ISA 6.0 cannot target sm_90; sm_90 needs PTX ISA 7.8 or newer
// CHIP: error: unknown NVPTX chip 'sm_91'
// NOOUT: error: a package needs an output file
func.func @scale(%x: !tile.ptr<f32>, %s: f32) attributes {tile.kernel} {
  %offs = tile.arange 0, 256 : tensor<256xi32>
  %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<256xi32>) -> tensor<256xf32>
  %ss = tile.splat %s : tensor<256xf32>
  %w = arith.mulf %v, %ss : tensor<256xf32>
  tile.store %x[%offs], %w : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xf32>) -> ()
  return
}
