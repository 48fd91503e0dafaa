// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx" -verify-diagnostics
// A program may not have more threads than a workgroup can hold.

// expected-error @+1 {{num_warps 64 x subgroup size 32 = 2048 threads per program; the limit is 1024}}
func.func @too_wide(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 64 : i32} {
  return
}
