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

def Tile_I32Tile : 1DTensorOf<[I32]>;
def Tile_MaskTile : 1DTensorOf<[I1]>;
def Tile_AnyTile : RankedTensorOf<[AnyType]>;

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
