#!/usr/bin/env bash
set -uo pipefail
# Caveat (2026-12-01): the --tune of each run did not take effect under ncu (every run of a shape profiled the default kernel); see docs/results/dev/2026-12-01-s6-fewtile/ncu-streamk/README.md.
B=build/release; mkdir -p $OUT/l
export CI=1
which nsys ncu > $OUT/l/which.txt 2>&1
for shape in 512x4096x4096 256x4096x14336 512x1024x8192; do
  for t in "kernel=coop,fixup=0" "kernel=coop_dp" "kernel=pingpong_narrow"; do
    timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum -k "regex:cooperative|pingpong|memset|nvjet" --launch-skip 4 --launch-count 6 \
      $B/ladder bench --steps best --shapes $shape --tune "$t" --target-ms 2 --warmup-ms 1 > "$OUT/l/ncu-$shape-$t.txt" 2>&1
    echo "$shape $t: $(grep -E 'gpu__time_duration|^  [a-z_]+.*\(' "$OUT/l/ncu-$shape-$t.txt" | tr -s ' ' | tr '\n' '|' | cut -c1-900)"
  done
done
if which nsys >/dev/null 2>&1; then
  LADDER_TUNE=kernel=coop,fixup=0 timeout 100 nsys profile -o $OUT/l/sk --force-overwrite true $B/ladder bench --steps best --shapes 512x4096x4096 --target-ms 5 --warmup-ms 1 > $OUT/l/nsys.txt 2>&1
  timeout 60 nsys stats --report cuda_gpu_trace --format csv $OUT/l/sk.nsys-rep 2>/dev/null | tail -40 > $OUT/l/trace.csv
  timeout 60 nsys stats --report cuda_api_sum $OUT/l/sk.nsys-rep 2>/dev/null | head -40 > $OUT/l/api.txt
  rm -f $OUT/l/sk.nsys-rep $OUT/l/sk.sqlite
fi
tar -C $OUT -czf $OUT/l.tgz l && rm -rf $OUT/l
