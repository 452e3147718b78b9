#!/usr/bin/env bash
# A/B of CLI builds in one device call: each "label=binary:steps" runs `bench` on the same shapes, the rounds
# interleaved (A B C A B C ...), so every build sees the same GPU state. CSVs and a log land in $OUT.
# Usage: ROUNDS=2 SHAPES=4096x4096x4096,8192x8192x8192 bash scripts/h200_ab.sh old=.ab/ladder-old:h09 new=build/release/ladder:h10
set -u
OUT=${OUT:-/tmp/ab-out}; mkdir -p "$OUT"
ROUNDS=${ROUNDS:-2}; SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192}; TARGET_MS=${TARGET_MS:-200}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
for r in $(seq 1 "$ROUNDS"); do
  for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}; bin=${rest%%:*}; steps=${rest#*:}
    extra=(); "$bin" bench --help 2>&1 | grep -q -- --target-ms && extra=(--target-ms "$TARGET_MS")
    echo "== round $r $label ($bin $steps)" >> "$OUT/ab.log"
    "$bin" bench --steps "$steps" --shapes "$SHAPES" "${extra[@]}" --csv "$OUT/$label-r$r.csv" >> "$OUT/ab.log" 2>&1 \
      || echo "FAILED $label round $r" >> "$OUT/ab.log"
  done
done
