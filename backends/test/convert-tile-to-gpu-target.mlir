// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_99" 2>&1 | FileCheck %s
// An unknown chip is refused before LLVM sees it.

// CHECK: error: unknown NVPTX chip 'sm_99'; known chips: sm_50,
func.func @k(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  return
}
