#!/usr/bin/env bash
# GPU test-machine side of the runtime run (after scripts/stage-gpu-runtime.sh here, carrying
# .gpu and .gpu-rt): the runtime tests through CUDA and Vulkan (streams, events, several threads),
# the stream and stress tests under ThreadSanitizer, every runtime test under AddressSanitizer,
# the C API test, and the embedding example `edges` through
# each backend with its cold start (empty Tessera, CUDA JIT and NVIDIA shader caches) and warm
# start (the same caches, second process). Logs go to $OUT (or ./gpu-out).
set -u
R=.gpu-rt
source "$(dirname "$0")/gpu-setup.sh" gpu-runtime.log
export LD_LIBRARY_PATH=$PWD/$R/lib
echo "== tessera devices"
$R/bin/tessera devices || status=1

echo "== tessera-runtime-tests on the NVIDIA devices (CUDA and Vulkan)"
TESSERA_TEST_NO_LAVAPIPE=1 TESSERA_CACHE_DIR=$(mktemp -d) $R/bin/tessera-runtime-tests \
  > "$out/runtime-tests.log" 2>&1 || status=1
grep -E -A6 "ERROR|FATAL" "$out/runtime-tests.log" | head -40
tail -3 "$out/runtime-tests.log"
echo "== the stream and stress tests alone, with test names and durations"
TESSERA_TEST_NO_LAVAPIPE=1 TESSERA_CACHE_DIR=$(mktemp -d) $R/bin/tessera-runtime-tests -tc="stream*,stress*" -d \
  2>&1 | grep -E "^[0-9.]+ s:|SUCCESS|FAIL|ERROR" | tail -20 || status=1

# ThreadSanitizer per backend: CUDA alone (no Vulkan driver file), then the NVIDIA Vulkan driver
# alone (CUDA sees no device), which crashes inside ThreadSanitizer's runtime at device creation
# (an open upstream incompatibility, google/sanitizers#1678): recorded, not counted.
for backend in cuda vulkan; do
  echo "== the stream and stress tests under ThreadSanitizer, $backend only"
  if [ $backend = cuda ]; then only="VK_DRIVER_FILES=/nonexistent.json"; else only="CUDA_VISIBLE_DEVICES="; fi
  env $only TSAN_OPTIONS="halt_on_error=1 exitcode=66" LD_LIBRARY_PATH=$PWD/$R/tsan/lib TESSERA_TEST_NO_LAVAPIPE=1 \
    TESSERA_CACHE_DIR=$(mktemp -d) $R/tsan/bin/tessera-runtime-tests -tc="stream*,stress*" > "$out/tsan-$backend.log" 2>&1
  tsan=$?
  grep -E -m3 -A12 "WARNING: ThreadSanitizer|FATAL|CHECK failed" "$out/tsan-$backend.log"
  tail -3 "$out/tsan-$backend.log"
  echo "tsan ($backend) exit status $tsan"
  [ $tsan -eq 0 ] || [ $backend = vulkan ] || status=1
done
echo "== every runtime test under AddressSanitizer (CUDA and Vulkan)"
ASAN_OPTIONS="protect_shadow_gap=0 detect_leaks=1" LD_LIBRARY_PATH=$PWD/$R/asan/lib TESSERA_TEST_NO_LAVAPIPE=1 \
  TESSERA_CACHE_DIR=$(mktemp -d) $R/asan/bin/tessera-runtime-tests > "$out/asan.log" 2>&1 || status=1
grep -E -m3 -A20 "ERROR: AddressSanitizer|ERROR: LeakSanitizer" "$out/asan.log"
tail -3 "$out/asan.log"

echo "== C API test (C, against the installed tessera.h) on each backend"
for backend in cuda vulkan; do
  TESSERA_BACKEND=$backend LD_LIBRARY_PATH=$PWD/$R/embed $R/capi/c_api_test $R/capi/vector_add_b128.tspkg \
    > "$out/c_api_$backend.log" 2>&1 || { status=1; cat "$out/c_api_$backend.log"; }
  echo "$backend: $(tail -1 "$out/c_api_$backend.log")"
done

echo "== edges (the embedding example, built out of tree against the installed package)"
export LD_LIBRARY_PATH=$PWD/$R/embed
img=$(mktemp -d)
$R/embed/edges --make-test-image="$img/test.png" 3840x2160 || status=1
for backend in cuda vulkan; do
  caches=$(mktemp -d)
  # cold: every cache empty; warm: the same caches in a second and third process; last, warm with
  # the drivers' own disk caches off (CUDA's PTX JIT cache, NVIDIA's shader cache): what Tessera's
  # caches alone keep.
  for start in cold warm warm "warm, driver disk caches off"; do
    echo "-- $backend, $start start"
    drivers="__GL_SHADER_DISK_CACHE=1"
    [[ $start == *off ]] && drivers="CUDA_CACHE_DISABLE=1 __GL_SHADER_DISK_CACHE=0"
    env $drivers TESSERA_BACKEND=$backend TESSERA_CACHE_DIR=$caches/tessera CUDA_CACHE_PATH=$caches/cuda \
      __GL_SHADER_DISK_CACHE_PATH=$caches/nv $R/embed/edges --check --timings "$img/test.png" "$img/edges-$backend.png" \
      || status=1
  done
  echo "   caches after the runs: $(du -sh "$caches"/* 2>/dev/null | tr '\n' ' ')"
done
cmp "$img/edges-cuda.png" "$img/edges-vulkan.png" && echo "edges: the CUDA and Vulkan outputs are the same file" || status=1
cp "$img/edges-vulkan.png" "$out/"
echo "== exit status $status"
exit $status
