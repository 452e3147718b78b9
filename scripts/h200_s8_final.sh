#!/usr/bin/env bash
# Eighth session's last call: the verification (h200_verify.sh verify), the decode / few-tile / standard benchmarks,
# the Llama model, and compute-sanitizer memcheck on the small-M kernel with the evict-first loads.
set -uo pipefail
B=${LADDER_BUILD:-build/release}
OUT=${OUT:-/tmp/ladder-out}
SECTIONS="verify bench-s6" TMS=60 OUT=$OUT bash scripts/h200_verify.sh
mv "$OUT/logs.tgz" "$OUT/verify-logs.tgz"
export LD_LIBRARY_PATH=$PWD/$B LADDER_LIBRARY=$PWD/$B/libladder.so CI=1
export LADDER_COMMIT=$(sed -n 's/.*LADDER_GIT_COMMIT "\(.*\)".*/\1/p' "$B/generated/ladder_version.hpp" 2>/dev/null)
timeout 250 python3 scripts/llama_model.py --out "$OUT/llama-model.json" > "$OUT/llama-model.log" 2>&1; tail -22 "$OUT/llama-model.log"
timeout 200 compute-sanitizer --tool memcheck "$B/ladder" check --steps h13,best --shapes 1x14336x4096,16x8192x8192,64x4096x14336,3x5000x6000 --seeds 1 > "$OUT/memcheck.log" 2>&1
tail -3 "$OUT/memcheck.log"
