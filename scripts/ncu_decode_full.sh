#!/usr/bin/env bash
# Full ncu profiles (--set full) of h13 and cuBLAS at two decode shapes, for the per-byte stream gap (eighth session).
set -uo pipefail
B=build/release; export LD_LIBRARY_PATH=$PWD/$B CI=1
mkdir -p $OUT/n
for shape in 1x14336x4096 1x4096x4096; do
  timeout 200 ncu --clock-control none --set full -k "regex:small_m|nvjet" --launch-skip 4 --launch-count 2 \
    "$B/ladder" bench --steps h13 --shapes "$shape" --target-ms 5 --warmup-ms 1 > "$OUT/n/ncu-full-$shape.txt" 2>&1
  echo "$shape: $(grep -E '^  [a-z].*\(' "$OUT/n/ncu-full-$shape.txt" | cut -c1-60 | sort | uniq -c | tr '\n' ';')"
  grep -E "Duration|DRAM Throughput|L2 Hit Rate |Mem Busy|Max Bandwidth|L1/TEX Hit|dram__bytes|Stall|No Eligible|Issued Warp" "$OUT/n/ncu-full-$shape.txt" | head -40
done
tar czf $OUT/ncu-full.tgz -C $OUT n && rm -rf $OUT/n
