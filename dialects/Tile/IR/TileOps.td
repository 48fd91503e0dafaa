// Operations of the `tile` dialect.
#ifndef TESSERA_TILE_OPS
#define TESSERA_TILE_OPS

include "Tile/IR/TileDialect.td"
include "Tile/IR/TileTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

include "mlir/IR/EnumAttr.td"

def Tile_I32Tile : RankedTensorOf<[I32]>;
def Tile_MaskTile : RankedTensorOf<[I1]>;
def Tile_AnyTile : RankedTensorOf<[AnyType]>;

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "how tile.reduce combines elements", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"ArgMax", 3, "argmax">,
    I32EnumAttrCase<"ArgMin", 4, "argmin">]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program in the launch grid along one axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs in the launch grid along one axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "the integers start, start + 1, ..., end - 1 as a 1-D tile";
  let description = [{
    The tile's length, `end - start`, must be a power of two.

    ```mlir
    %offs = tile.arange 0, 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs Tile_I32Tile:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "value",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tile whose every element is one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %n : tensor<128xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "gather elements of a buffer argument at a tile of offsets";
  let description = [{
    Element `i` of the result is `ptr[offsets[i]]` where `mask[i]` is true, and `other[i]`
    (or zero without `other`) where it is false; masked-off offsets are never read, so they
    may lie outside the buffer.

    ```mlir
    %v = tile.load %x[%offs] mask %m other %zero
        : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_I32Tile:$offsets,
                   Optional<Tile_MaskTile>:$mask, Optional<Tile_AnyTile>:$other);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` (`mask` $mask^)? (`other` $other^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "scatter a tile into a buffer argument at a tile of offsets";
  let description = [{
    Writes `value[i]` to `ptr[offsets[i]]` where `mask[i]` is true; masked-off elements
    write nothing.

    ```mlir
    tile.store %out[%offs], %v mask %m
        : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xf32>, tensor<128xi1>) -> ()
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_I32Tile:$offsets, Tile_AnyTile:$value,
                   Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `,` $value (`mask` $mask^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "the read-modify-write of an atomic op", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"UMax", 3, "umax">,
    I32EnumAttrCase<"UMin", 4, "umin">,
    I32EnumAttrCase<"Xchg", 5, "xchg">,
    I32EnumAttrCase<"Cas", 6, "cas">]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_MemoryOrder : I32EnumAttr<"MemoryOrder", "memory ordering of an atomic op", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-write of buffer elements, giving the old values";
  let description = [{
    For each element where `mask` is true, atomically replaces `ptr[offsets[i]]` by
    `op(old, value[i])` (at device scope, with the given memory ordering) and yields the old
    value; masked-off elements yield 0. `add` works on integers and f32; `max`/`min` compare
    signed, `umax`/`umin` unsigned; `xchg` stores the value.

    ```mlir
    %old = tile.atomic_rmw add acq_rel %x[%offs], %v mask %m
        : (!tile.ptr<i32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKind:$kind, Tile_MemoryOrder:$order, Tile_PtrType:$ptr,
                   Tile_I32Tile:$offsets, Tile_AnyTile:$value, Optional<Tile_MaskTile>:$mask);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $kind $order $ptr `[` $offsets `]` `,` $value (`mask` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic compare-and-swap of buffer elements, giving the old values";
  let description = [{
    For each element where `mask` is true: if `ptr[offsets[i]] == cmp[i]` (bitwise) it becomes
    `value[i]`; the old value is yielded either way (0 where masked off).

    ```mlir
    %old = tile.atomic_cas acq_rel %x[%offs], %cmp, %v
        : (!tile.ptr<i32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_MemoryOrder:$order, Tile_PtrType:$ptr, Tile_I32Tile:$offsets,
                   Tile_AnyTile:$cmp, Tile_AnyTile:$value, Optional<Tile_MaskTile>:$mask);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $order $ptr `[` $offsets `]` `,` $cmp `,` $value (`mask` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_BufferAtomicOp : Tile_Op<"buffer_atomic", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one atomic on one element of a buffer (SPIR-V lowering of the atomic ops)";
  let description = [{
    Emitted by `convert-tile-to-gpu` for the SPIR-V target and turned into `spirv.Atomic*`
    ops by the SPIR-V conversion; `cmp` is present exactly for `cas`. It never appears in a
    traced kernel.
  }];
  let arguments = (ins Tile_AtomicKind:$kind, Tile_MemoryOrder:$order, AnyMemRef:$buffer, Index:$index,
                   AnyType:$value, Optional<AnyType>:$cmp);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $order $buffer `[` $index `]` `,` $value (`cmp` $cmp^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Tile_BufferLoadRunOp : Tile_Op<"buffer_load_run", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "16 contiguous bytes of a buffer as its elements (SPIR-V lowering of whole runs)";
  let description = [{
    Emitted by `convert-tile-to-gpu` for the SPIR-V target where a thread reads a whole run of
    16 bytes (4 f32, 8 f16, ...): `index` counts 16-byte units from the buffer's start, and the
    results are the run's elements in order. The SPIR-V conversion reads it through a second view
    of the same binding, an array of 16-byte vectors, so the driver sees one wide access. It never
    appears in a traced kernel.

    With `if %cond else (%otherwise...)` (a run proven whole under one mask bit), the run is read
    only where `cond` holds; elsewhere the access reads the buffer's first 16 bytes instead (the
    runtime makes every buffer at least that long) and the results are `otherwise`, chosen a
    32-bit word at a time: no branch.
  }];
  let arguments = (ins AnyMemRef:$buffer, I32:$index, Optional<I1>:$cond, Variadic<AnyType>:$otherwise);
  let results = (outs Variadic<AnyType>:$values);
  let assemblyFormat = [{
    $buffer `[` $index `]` (`if` $cond^ `else` `(` $otherwise `:` type($otherwise) `)`)? attr-dict `:` type($buffer) `->` type($values)
  }];
  let hasVerifier = 1;
}

def Tile_WorkgroupMatmulOp : Tile_Op<"workgroup_matmul", [AttrSizedOperandSegments]> {
  let summary = "a matmul block on workgroup-scope cooperative matrices (SPIR-V, VK_NV_cooperative_matrix2)";
  let description = [{
    Formed by `convert-tile-to-gpu` for SPIR-V chips with `+wgmat` from a block-matmul loop and
    its epilogue (formWorkgroupMatmuls, WorkgroupMatmul.cpp); it never appears in a traced kernel.
    With BM, BN, BK = `block_m`, `block_n`, `block_k` and accumulation in f32:

      acc = 0
      for t in [0, steps): acc += A_t @ B_t, where A_t is the BM x BK matrix at element
          a_offset + t * BK of `a` with rows a_stride apart, B_t the BK x BN matrix at
          b_offset + t * BK * b_stride of `b` with rows b_stride apart
      v = acc (+ bias[bias_offset + j] in every row, where `bias` is given)
      C = v in c's element type, the BM x BN matrix at c_offset of `c` with rows c_stride apart

    Every matrix lies wholly inside its buffer and no element is masked: the code that forms it
    holds that only for launches whose sizes are multiples of the blocks (the variant's divisors).
    The SPIR-V lowering loads A_t and B_t straight from the buffers as workgroup-scope matrices,
    which the driver stages through shared memory itself.
  }];
  let arguments = (ins AnyType:$a, I32:$a_offset, I32:$a_stride, AnyType:$b, I32:$b_offset, I32:$b_stride,
                       I32:$steps, AnyType:$c, I32:$c_offset, I32:$c_stride, Optional<AnyType>:$bias,
                       Optional<I32>:$bias_offset, I64Attr:$block_m, I64Attr:$block_n, I64Attr:$block_k,
                       TypeAttr:$in_type);
  let assemblyFormat = [{
    $a `[` $a_offset `,` $a_stride `]` `,` $b `[` $b_offset `,` $b_stride `]` `steps` $steps `->`
    $c `[` $c_offset `,` $c_stride `]` (`bias` $bias^ `[` $bias_offset `]`)? attr-dict `:`
    type($a) `,` type($b) `,` type($c) (`,` type($bias)^)?
  }];
  let hasVerifier = 1;
}

def Tile_BufferStoreRunOp : Tile_Op<"buffer_store_run", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes 16 contiguous bytes of a buffer from its elements (SPIR-V lowering of whole runs)";
  let description = [{
    The store counterpart of `tile.buffer_load_run`: `values` (16 bytes of the buffer's element
    type) go to the 16-byte unit `index` of `buffer` in one wide access.
  }];
  let arguments = (ins Variadic<AnyType>:$values, AnyMemRef:$buffer, I32:$index);
  let assemblyFormat = "$values `,` $buffer `[` $index `]` attr-dict `:` type($values) `,` type($buffer)";
  let hasVerifier = 1;
}

def Tile_StoreComponentOp : Tile_Op<"store_component", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes one component of a vector element of a shared-memory array (SPIR-V)";
  let description = [{
    Emitted by `convert-tile-to-gpu` for the SPIR-V target, whose workgroup arrays are typed, where
    a tile is staged in an array of vectors so that its readers load a whole vector at once but
    each thread writes single values (the FMA path's transposed A): `value` goes to component
    `component` of vector `index` of `buffer`. It never appears in a traced kernel.

    ```mlir
    tile.store_component %v, %shared[%i, %c] : f32, memref<1024xvector<4xf32>, #spirv.storage_class<Workgroup>>
    ```
  }];
  let arguments = (ins AnyType:$value, AnyMemRef:$buffer, I32:$index, I32:$component);
  let assemblyFormat = "$value `,` $buffer `[` $index `,` $component `]` attr-dict `:` type($value) `,` type($buffer)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tile along its size-1 dimensions";
  let description = [{
    The result has the operand's rank; every dimension is either the operand's or expands a
    size-1 dimension of the operand.

    ```mlir
    %b = tile.broadcast %a : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1 at `axis`";
  let description = [{
    ```mlir
    %c = tile.expand_dims %a, 1 : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, I32Attr:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under another shape";
  let description = [{
    ```mlir
    %r = tile.reshape %a : tensor<8x16xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    Result dimension `i` is operand dimension `order[i]`.

    ```mlir
    %t = tile.trans %a [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "combine the elements of a tile along one axis";
  let description = [{
    `sum`, `max` and `min` give the operand's element type; `argmax` and `argmin` give the i32
    index along `axis` of the first largest (smallest) element, a NaN counting as larger
    (smaller) than any number. A 1-D operand reduces to a scalar. Float `max`/`min` return
    NaN when any element is NaN.

    ```mlir
    %s = tile.reduce sum %a, 1 : tensor<64x128xf32> -> tensor<64xf32>
    %m = tile.reduce max %b, 0 : tensor<128xf32> -> f32
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, Tile_ReduceKind:$kind, I32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product of two 2-D tiles, added to an accumulator";
  let description = [{
    `result[m, n] = acc[m, n] + sum over k of a[m, k] * b[k, n]` for `a` of M x K, `b` of K x N
    and `acc` of M x N, each dimension a power of two of at least 16. Element types:
    f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32 and i8 x i8 -> i32 (signed, wrapping).

    With `transpose_b`, `b` is N x K and the product reads b[n, k] for b[k, n]: what
    `tile.dot %a, (tile.trans %x)` computes, without moving `x` into the transposed layout first
    (the GPU lowering folds such a trans into the dot).

    In portable mode the order is fixed: for each element, starting from `acc`, k = 0, 1, ...,
    K - 1 in turn adds the product a[m, k] * b[k, n] rounded to the accumulator type (exact for
    f16 and bf16 inputs short of underflow), each addition rounded (no fused multiply-add).
    In fast mode the order and fusion are the target's (FMA, tensor cores).

    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %d = tile.dot %a, %bt, %acc {transpose_b} : tensor<64x32xf16>, tensor<64x32xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$a, Tile_AnyTile:$b, Tile_AnyTile:$acc, UnitAttr:$transpose_b);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum along one axis";
  let description = [{
    ```mlir
    %c = tile.scan %a, 0 : tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, I32Attr:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_PushConstantOp : Tile_Op<"push_constant", [Pure]> {
  let summary = "one 32-bit word of the kernel's push-constant block (Vulkan kernel ABI)";
  let description = [{
    Emitted by `convert-tile-to-gpu` for the SPIR-V target, where scalar kernel arguments
    travel in a single push-constant block of `block_size` bytes instead of as parameters;
    `offset` is the word's byte offset in the block. It never appears in a traced kernel.

    ```mlir
    %n = tile.push_constant 0 of 8 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$offset,
                   ConfinedAttr<I32Attr, [IntPositive]>:$block_size);
  let results = (outs I32:$result);
  let assemblyFormat = "$offset `of` $block_size attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TESSERA_TILE_OPS
