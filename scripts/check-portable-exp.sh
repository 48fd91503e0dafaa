#!/usr/bin/env bash
# The portable exp and exp2 over all 2^32 f32 inputs (scripts/check_portable_exp.cpp: a replica
# of their expansions with the constants of PortableMathFunctions.cpp's generated block).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -n '/BEGIN GENERATED/,/END GENERATED/p' dialects/Tile/Transforms/PortableMathFunctions.cpp \
  > "$work/portable_math_constants.inc"
"${CXX:-clang++-22}" -O2 -ffp-contract=off -std=c++20 -I"$work" scripts/check_portable_exp.cpp -o "$work/check" -lpthread
"$work/check"
