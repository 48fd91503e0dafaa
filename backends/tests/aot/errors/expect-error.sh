#!/usr/bin/env bash
# Runs `tessera compile` on a kernel file that must fail and checks the exit code and that each
# expected text appears in what it printed:
#   expect-error.sh TESSERA_CLI WORK_DIR KERNELS.cpp 'text' ['text' ...]
set -uo pipefail
cli=$1 work=$2 file=$3
shift 3
mkdir -p "$work"
out=$("$cli" compile "$file" -o "$work/out.tspkg" --header "$work/out.hpp" 2>&1)
code=$?
printf '%s\n' "$out"
if [ "$code" -eq 0 ]; then echo "expect-error: tessera compile succeeded on $file"; exit 1; fi
for text in "$@"; do
  if ! grep -qF -- "$text" <<< "$out"; then echo "expect-error: missing '$text'"; exit 1; fi
done
if [ -e "$work/out.hpp" ]; then echo "expect-error: a header was written"; exit 1; fi
echo "expect-error: PASS (exit code $code)"
