#!/usr/bin/env bash
# Seventh session's first call: what each fused epilogue costs (per family), and the decode grid.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
for s in ${SECTIONS:-epi grid}; do
  echo "== $s $(date -u +%T)"
  case $s in
    epi)
      for k in ${KERNELS:-pingpong best coop}; do
        LADDER_TUNE=$([ "$k" = best ] || echo "kernel=$k") T 200 python3 scripts/epilogue_cost.py \
          --shapes ${EPI_SHAPES:-2048x16384x4096,8192x16384x4096} --dtypes ${EPI_DTYPES:-float16,bfloat16} \
          --out "$L/epi-$k.csv" > "$L/epi-$k.log" 2>&1
        echo "kernel=$k"; cut -c1-90 "$L/epi-$k.log" | grep " us " | head -48
      done
      awk 'FNR > 1 || NR == 1' "$L"/epi-*.csv > "$OUT/epi.csv" ;;
    grid) SECTIONS=grid GRID=${GRID:-scripts/shapes/s7-decode-grid.txt} OUT=$OUT/g bash scripts/h200_small_m.sh > "$L/grid-run.log" 2>&1
      mv "$OUT/g/grid.csv" "$OUT/"; mv "$OUT/g/logs.tgz" "$OUT/grid-logs.tgz"; rm -rf "$OUT/g"
      python3 - "$OUT/grid.csv" <<'P'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    print(f"{r['m']:>4} {r['n']:>6} {r['k']:>5} {r['tune'] or '-':28} {float(r['median_ms'])*1e3:8.2f} us  cublas {float(r['cublas_median_ms'])*1e3:8.2f}  x{float(r['ratio_to_cublas']):.3f}  floor {float(r['pct_floor']):.3f}")
P
      ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
