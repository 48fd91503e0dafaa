#!/usr/bin/env bash
# GPU test-machine side of run 60 (eighteenth session): run 59's comparison (scripts/runs/gpu-run59.sh)
# again, with this build's software f32 denormals converting without a branch (run 59's
# conversions also branched, keeping their f64s live up to the branch). Here:
# build/bin/tessera-bench --compile-only --write-packages=.gpu-bench/pnew --subgroups=32 at this
# commit, on top of run 58's staging. Carry .gpu and .gpu-bench. Everything in $OUT/run60.tgz.
exec bash "$(dirname "$0")/gpu-run59.sh" run60
