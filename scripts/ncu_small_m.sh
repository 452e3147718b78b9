#!/usr/bin/env bash
# ncu profiles of the small-M kernel and cuBLAS at decode shapes (clocks left alone: --clock-control none).
set -uo pipefail
B=${LADDER_BUILD:-build/release}; OUT=${OUT:-/tmp/ladder-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B CI=1
for shape in ${SHAPES:-1x4096x4096 1x14336x4096 16x1024x4096}; do
  timeout 120 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section Occupancy -k "regex:small_m|nvjet|splitK" --launch-skip 2 --launch-count 3 \
    "$B/ladder" bench --steps h12 --shapes "$shape" --target-ms 5 --warmup-ms 1 > "$OUT/ncu-$shape.txt" 2>&1
  echo "$shape: $(grep -c 'small_m\|nvjet' "$OUT/ncu-$shape.txt")"
done
