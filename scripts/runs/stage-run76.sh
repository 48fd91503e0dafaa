#!/usr/bin/env bash
# Build machine side of run 76 (scripts/runs/gpu-run76.sh): which difference from the hand-written
# probe holds the compiled workgroup-matrix kernel at 48 TFLOP/s. 05_matmul's 128x256x64/8 +wgmat
# artifact, deserialized and edited one difference at a time (bench/wgmatrix/edit_compiled.py),
# in .gpu-stage/bin/wg/spv/compiled/, beside the package it came from. Needs scripts/runs/stage-run69.sh
# and scripts/runs/stage-run70.sh first (the probe, its modules, the packages).
set -euo pipefail
cd "$(dirname "$0")/../.."
ninja -C build -j "${TESSERA_JOBS:-2}" tessera-wgmatrix-probe
W=.gpu-stage/bin/wg
cp build/bin/tessera-wgmatrix-probe "$W/"
cp -L build/lib/libtessera_runtime.so "$W/lib/"
C=$W/spv/compiled
rm -rf "$C"; mkdir -p "$C"
cp .gpu-stage/bin/w70/mm/matmul_f16_none_fast_128x256x64w8.tspkg "$C/mm.tspkg"
T=/usr/lib/llvm-22/bin/mlir-translate
$W/tessera-wgmatrix-probe --package="$C/mm.tspkg" --write-spv="$C/wg.spv"
$T --deserialize-spirv "$C/wg.spv" -o "$C/wg.mlir"
edits=(const-sizes=4096,4096,4096 no-align loop no-bias no-guard vulkan-mm writable simple-pid=16)
edit() { # NAME EDIT...
  local n=$1; shift
  python3 bench/wgmatrix/edit_compiled.py "$C/wg.mlir" "$@" > "$C/$n.mlir"
  $T --no-implicit-module --serialize-spirv "$C/$n.mlir" -o "$C/$n.spv"
}
edit t # the round trip alone
for e in "${edits[@]}"; do edit "t-${e%%=*}" "$e"; done # one edit each
edit t-all "${edits[@]}"
for leave in "${edits[@]}"; do # every edit but one
  rest=(); for e in "${edits[@]}"; do [ "$e" = "$leave" ] || rest+=("$e"); done
  edit "t-all-but-${leave%%=*}" "${rest[@]}"
done
ls "$C"
