# Sourced by the build-machine side of a GPU run (scripts/runs/stage-runNN.sh), from the project's
# root: builds, then makes .gpu-stage/bin/wNN ($W) afresh with the runtime library, the named
# examples' runtime-only (AOT) builds in bin/ and the named package folders.
#   source scripts/stage-setup.sh NN "05_matmul [06_flash_attention]" [FOLDER...]
ninja -C build -j "${TESSERA_JOBS:-2}"
W=.gpu-stage/bin/w$1
rm -rf "$W"; mkdir -p "$W/bin" "$W/lib"
for example in $2; do cp "build/bin/${example}_aot" "$W/bin/"; done
for folder in "${@:3}"; do mkdir -p "$W/$folder"; done
cp -L build/lib/libtessera_runtime.so "$W/lib/"
