#!/usr/bin/env bash
# Build machine side of run 70 (scripts/runs/gpu-run70.sh): this build's runtime, 05_matmul_aot and
# tessera, and matmul packages whose loops become workgroup-scope matrices (+wgmat variants), in
# .gpu-stage/bin/w70/ (carried with .gpu-stage/bin).
set -euo pipefail
cd "$(dirname "$0")/../.."
ninja -C build -j "${TESSERA_JOBS:-2}"
W=.gpu-stage/bin/w70
rm -rf "$W"; mkdir -p "$W/bin" "$W/lib" "$W/mm"
cp build/bin/05_matmul_aot build/bin/tessera "$W/bin/"
cp -L build/lib/libtessera_runtime.so "$W/lib/"
for c in 128x256x64/8 128x256x32/8 256x128x64/8 128x128x64/8 128x256x32/16 256x128x32/8 128x128x32/4; do
  build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$c --write-package="$W/mm/" > /dev/null 2>&1 || true
done
build/bin/05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x64/8 --write-package="$W/mm/" > /dev/null 2>&1 || true
build/bin/05_matmul 16 16 16 --dtype=f16 --act=relu --config=128x256x64/8 --write-package="$W/mm/" > /dev/null 2>&1 || true
ls "$W/mm"; du -sh "$W"
