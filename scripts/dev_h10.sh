#!/usr/bin/env bash
# A tuning run for h10 on the H200 (prebuilt binaries in $B): which kernel cuBLAS picks, stream-K
# correctness, and configurations A/B/A/B against cuBLAS. Everything lands in $OUT/dev.tgz.
set -uo pipefail
B=${B:-build/release}
OUT=${OUT:-/tmp/ladder-out}
mkdir -p "$OUT/d"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
L=$B/ladder
CONFIGS=${CONFIGS:-4 7}
SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,3000x5000x2000,6144x6144x6144,8192x4096x4096,4000x4000x4000}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/d/gpu.txt"
if [ -n "${NCU:-}" ]; then
  for s in ${NCU_SHAPES:-4096x4096x4096 3000x5000x2000 2048x2048x2048 8192x8192x8192}; do
    echo "== $s"; timeout 90 ncu --clock-control none -k regex:'nvjet|gemm|xmma|cutlass' -c 2 \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__block_size \
      $L bench --steps h10 --shapes $s 2>&1 | grep -E "nvjet|gemm|xmma|cutlass|duration|grid_size|cluster_dim|block_size" | head -14
  done > "$OUT/d/ncu.txt" 2>&1
  echo "ncu: $(grep -c '==' "$OUT/d/ncu.txt") shapes"
fi
for c in ${CHECK_CONFIGS:-7}; do
  LADDER_H10_CONFIG=$c timeout 300 $L check --steps h10 --suite standard --seeds 1,2 > "$OUT/d/check-$c.log" 2>&1
  echo "check config $c rc=$?: $(grep -c ' pass ' "$OUT/d/check-$c.log") pass, $(grep -c ' FAIL ' "$OUT/d/check-$c.log") FAIL"
  LADDER_H10_CONFIG=$c timeout 300 $L check --steps h10 --shapes ${CHECK_SHAPES:-4096x4096x1024,4096x4096x640,4000x4000x4000,8192x8192x520,5000x3000x6000} --seeds 1,2,3 >> "$OUT/d/check-$c.log" 2>&1
  echo "check extra config $c rc=$?: $(grep -c ' pass ' "$OUT/d/check-$c.log") pass, $(grep -c ' FAIL ' "$OUT/d/check-$c.log") FAIL"
done
if [ -n "${NCU_OURS:-}" ]; then
  for v in ${VARIANTS:-4:pool 7:pool}; do for s in ${NCU_SHAPES:-4096x4096x4096 3000x5000x2000}; do
    echo "== $v $s"; LADDER_H10_CONFIG=${v%%:*} LADDER_SK_WS=${v#*:} timeout 90 ncu --clock-control none -k regex:'cooperative|memset' -c 6 \
      --metrics gpu__time_duration.sum $L bench --steps h10 --shapes $s 2>&1 | grep -E "duration" | tr -s ' ' | tr '\n' ';'; echo
  done; done > "$OUT/d/ncu-ours.txt" 2>&1; cat "$OUT/d/ncu-ours.txt"
fi
for round in 1 2; do for v in ${VARIANTS:-4:pool 7:pool}; do
  tag=${v/:/-}
  LADDER_H10_CONFIG=${v%%:*} LADDER_SK_WS=${v#*:} timeout 300 $L bench --steps h10 --shapes $SHAPES --csv "$OUT/d/bench-$tag-$round.csv" > "$OUT/d/bench-$tag-$round.log" 2>&1
  echo "bench $v round $round rc=$?"; grep -E "^ *h10" "$OUT/d/bench-$tag-$round.log" | cut -c1-110
done; done
(cd "$OUT" && tar czf dev.tgz d && rm -rf d)
