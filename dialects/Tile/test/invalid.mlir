// RUN: tessera-opt %s -split-input-file -verify-diagnostics
// Every verifier message of the tile dialect.

func.func @arange_length(%x: !tile.ptr<f32>) {
  // expected-error @+1 {{result has 64 elements but the range [0, 128) has 128}}
  %0 = tile.arange 0, 128 : tensor<64xi32>
  return
}

// -----

func.func @arange_empty() {
  // expected-error @+1 {{end (4) must be greater than start (4)}}
  %0 = tile.arange 4, 4 : tensor<0xi32>
  return
}

// -----

func.func @arange_not_power_of_two() {
  // expected-error @+1 {{length 3 is not a power of two}}
  %0 = tile.arange 0, 3 : tensor<3xi32>
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint}}
  %0 = tile.program_id 3 : i32
  return
}

// -----

func.func @load_shape(%x: !tile.ptr<f32>, %o: tensor<64xi32>) {
  // expected-error @+1 {{offsets shape 'tensor<64xi32>' differs from result shape 'tensor<128xf32>'}}
  %0 = tile.load %x[%o] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<128xf32>
  return
}

// -----

func.func @load_type(%x: !tile.ptr<f32>, %o: tensor<64xi32>) {
  // expected-error @+1 {{result element type 'i32' differs from the pointee type 'f32'}}
  %0 = tile.load %x[%o] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @load_mask_shape(%x: !tile.ptr<f32>, %o: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask shape 'tensor<32xi1>' differs from result shape 'tensor<64xf32>'}}
  %0 = tile.load %x[%o] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<32xi1>) -> tensor<64xf32>
  return
}

// -----

func.func @load_other(%x: !tile.ptr<f32>, %o: tensor<64xi32>, %m: tensor<64xi1>, %z: tensor<64xi32>) {
  // expected-error @+1 {{other has type 'tensor<64xi32>' but the result has type 'tensor<64xf32>'}}
  %0 = tile.load %x[%o] mask %m other %z : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>, tensor<64xi32>) -> tensor<64xf32>
  return
}

// -----

func.func @store_type(%x: !tile.ptr<i32>, %o: tensor<64xi32>, %v: tensor<64xf32>) {
  // expected-error @+1 {{value element type 'f32' differs from the pointee type 'i32'}}
  tile.store %x[%o], %v : (!tile.ptr<i32>, tensor<64xi32>, tensor<64xf32>) -> ()
  return
}

// -----

func.func @push_constant_alignment() {
  // expected-error @+1 {{offset 2 and block size 8 must be multiples of 4 bytes}}
  %0 = tile.push_constant 2 of 8 : i32
  return
}

// -----

func.func @push_constant_outside() {
  // expected-error @+1 {{the word at offset 8 lies outside the 8-byte block}}
  %0 = tile.push_constant 8 of 8 : i32
  return
}

// -----

// expected-error @+1 {{pointee type must be f32, f16, bf16, i8, i16, i32 or i64, got 'f64'}}
func.func @ptr_type(%x: !tile.ptr<f64>) {
  return
}

// -----

func.func @dot_inner(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{shapes do not chain}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_small(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{dimension 8 is not a power of two of at least 16}}
  %0 = tile.dot %a, %b, %c : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'f16' x 'f16' -> 'f16' is not a dot type}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @buffer_load_run_bytes(%b: memref<?xf16>, %i: i32) {
  // expected-error @+1 {{needs 16 bytes of 'f16', got 4 values}}
  %0:4 = tile.buffer_load_run %b[%i] : memref<?xf16> -> f16, f16, f16, f16
  return
}

// -----

func.func @buffer_load_run_otherwise(%b: memref<?xf32>, %i: i32, %c: i1, %o: f32) {
  // expected-error @+1 {{needs one `otherwise` value of the result's type per element, got 2}}
  %0:4 = tile.buffer_load_run %b[%i] if %c else(%o, %o : f32, f32) : memref<?xf32> -> f32, f32, f32, f32
  return
}

// -----

func.func @buffer_load_run_no_condition(%b: memref<?xf32>, %i: i32, %o: f32) {
  // expected-error @+1 {{has `otherwise` values but no condition}}
  %0:4 = "tile.buffer_load_run"(%b, %i, %o, %o, %o, %o) <{operandSegmentSizes = array<i32: 1, 1, 0, 4>}> : (memref<?xf32>, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  return
}
