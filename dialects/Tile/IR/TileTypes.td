// Types of the `tile` dialect.
#ifndef TESSERA_TILE_TYPES
#define TESSERA_TILE_TYPES

include "Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "a kernel argument that points at a buffer of elements";
  let description = [{
    `!tile.ptr<f32>` is a buffer argument of a kernel. It is never computed or stored: loads
    and stores name the argument and a tile of element offsets into it.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let genVerifyDecl = 1;
}

#endif // TESSERA_TILE_TYPES
