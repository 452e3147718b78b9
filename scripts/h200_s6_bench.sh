#!/usr/bin/env bash
# One H200 call: the interleaved A/B of this session's plans (ROUNDS × {old, new} on scripts/shapes/s6-ab.txt),
# then the decode, few-tile and standard benchmarks for the committed CSVs. OLD: the previous CLI build.
set -uo pipefail
OUT=${OUT:-/tmp/ladder-out}; mkdir -p "$OUT/ab"
OUT=$OUT/ab ROUNDS=${ROUNDS:-2} TARGET_MS=${AB_MS:-30} SHAPES=$(cat scripts/shapes/s6-ab.txt) \
  timeout 300 bash scripts/h200_ab.sh old=${OLD:?OLD=binary}:best new=build/release/ladder:best
tar -C "$OUT" -czf "$OUT/ab.tgz" ab && rm -rf "$OUT/ab"
SECTIONS=bench-s6 bash scripts/h200_verify.sh
