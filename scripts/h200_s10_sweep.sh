#!/usr/bin/env bash
# Tenth session: the small-M kernel's pipeline knobs at 64 and 128 tokens, where ncu showed the same geometry as
# cuBLAS's (64x14336x4096: 112 CTAs of 128 weight rows x 64 tokens, one an SM) running 41.9 us against 32.4, the
# L2 at 64 % and DRAM at 60 % (ours) against 81 % / 77 % (cuBLAS): the L2 promotion, the evict-first hint, the ring
# depth, the split. Two rounds, the second in reverse order. Same build and carry as h200_s9.sh.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
run() { ab "$1" "$(shapes "$2")" "$3"; }  # run <name> <M list> <candidates>
[ "${GROUPS_:-}" = probe ] || for g in ${GROUPS_:-m64 m128}; do
  echo "== $g $(date -u +%T)"
  case $g in
    m64) run sweep-64 "64" ";l2promo=256;l2evict=0;l2promo=256,l2evict=0;stages=4;stages=6;split=2" ;;
    m128) run sweep-128 "128" ";l2promo=128;l2evict=1;stages=3;cps=1;split=1;split=4" ;;
    m32) run sweep-32 "16 32" ";l2promo=256;l2evict=0;stages=4" ;;
    narrow) LAYERS="1024x4096 1024x8192" run narrow "1 4 8 16 32 64" ";stages=4;stages=6;stages=8;cps=2;cps=3" ;
            for t in auto stages=6 stages=8 cps=2; do
              LADDER_TUNE=trace=1$([ $t = auto ] || echo ,$t) "$B/ladder" bench --steps best --shapes 16x1024x8192,32x1024x8192,64x1024x4096 --target-ms 1 --warmup-ms 1 2>&1 | grep -m3 "small-M" | sed "s/^/$t: /"
            done ;;
    depth) run depth-32-64 "32 64" ";stages=3;stages=4;stages=5;stages=6;stages=7" ;
           run depth-128 "128" ";stages=4;stages=5;cps=1,stages=6;cps=1,stages=8" ;;
  esac
done
[ "${GROUPS_:-}" = probe ] || { tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; }
# GROUPS_=probe: byte counts and a full ncu section (ours, then cuBLAS) at 64 and 128 tokens, and the host time.
if [ "${GROUPS_:-}" = probe ]; then
  mkdir -p "$L/csv" "$OUT/p"
  for shape in 64x14336x4096 128x14336x4096; do
    for t in auto stages=4; do
      LADDER_TUNE=$([ $t = auto ] || echo $t) T 150 ncu --clock-control none --metrics dram__bytes_read.sum,lts__t_bytes.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_read_lookup_miss.sum,gpu__time_duration.sum,sm__cycles_active.avg,smsp__cycles_active.avg \
        -k "regex:small_m|nvjet" --launch-skip 4 --launch-count 2 "$B/ladder" bench --steps best --shapes $shape --target-ms 5 --warmup-ms 1 > "$OUT/p/bytes-$shape-$t.txt" 2>&1
      echo "$shape $t:"; grep -E "^\s+(void|nvjet)|dram__bytes|lts__t_bytes|op_read|duration" "$OUT/p/bytes-$shape-$t.txt" | awk '{print "   ", $1, $(NF-1), $NF}' | cut -c1-120
    done
  done
  T 200 ncu --clock-control none --set full --print-details all -k "regex:small_m|nvjet" --launch-skip 4 --launch-count 2 \
    "$B/ladder" bench --steps best --shapes 64x14336x4096 --target-ms 5 --warmup-ms 1 > "$OUT/p/full-64x14336x4096.txt" 2>&1
  PYTHONPATH=$PWD/python:$PWD/scripts T 200 python3 scripts/host_overhead.py --out "$L/csv/host-overhead.csv" > "$L/host-overhead.log" 2>&1; tail -25 "$L/host-overhead.log"
  tar czf "$OUT/probe.tgz" -C "$OUT" p && rm -rf "$OUT/p"
  tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
fi
