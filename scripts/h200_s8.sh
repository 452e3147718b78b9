#!/usr/bin/env bash
# Eighth session: the small-M ring's stage depth along K (ksub: 64-deep K sub-tiles a stage, so each weight row's
# stage is ksub·128 contiguous bytes): checks under each, and the decode layers at M <= 64 under ksub=1/2/4.
# (h14's sections, stream-K units, are in the history at dc855c1.)
set -uo pipefail
B=${LADDER_BUILD:-build/release}
OUT=${OUT:-/tmp/ladder-out}
L=$OUT/logs; mkdir -p "$L"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-} LADDER_LIBRARY=$PWD/$B/libladder.so CI=1
export LADDER_COMMIT=$(sed -n 's/.*LADDER_GIT_COMMIT "\(.*\)".*/\1/p' "$B/generated/ladder_version.hpp" 2>/dev/null)
T() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; [ $rc -ne 0 ] && echo "!! rc=$rc: $*" | tee -a "$L/failures.txt"; return 0; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
echo "commit $LADDER_COMMIT" >> "$L/gpu.txt"
LAYERS=${LAYERS:-"4096x4096 1024x4096 14336x4096 4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672"}
shapes() { local s=""; for m in $1; do for l in $LAYERS; do s="$s,${m}x$l"; done; done; echo "${s#,}"; }
summary() {
  python3 - "$1" <<'P'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows: by.setdefault((int(r['m']), int(r['n']), int(r['k'])), []).append(r)
for key, rs in by.items():
    cells = " ".join(f"{(r['tune'] or 'auto')}={float(r['median_ms'] or 'nan')*1e3:.1f}" for r in rs)
    print(f"{key[0]:>3}x{key[1]:>6}x{key[2]:>5} cublas={float(rs[0]['cublas_median_ms'] or 'nan')*1e3:.1f} floor={float(rs[0]['floor_ms'] or 'nan')*1e3:.1f} {cells}")
P
}
for s in ${SECTIONS:-ksub-check ksub-bench}; do
  echo "== $s $(date -u +%T)"
  case $s in
    ksub-check)
      for t in ksub=2 ksub=4; do
        LADDER_TUNE=$t T 200 "$B/ladder" check --steps h12,h13 --suite smallm --seeds 1 > "$L/check-smallm-$t.log" 2>&1
        LADDER_TUNE=$t T 200 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode-$t.log" 2>&1
        echo "$t: smallm $(tail -1 "$L/check-smallm-$t.log"); decode $(tail -1 "$L/check-decode-$t.log")"
      done
      LADDER_TUNE=ksub=2 T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.*' > "$L/tests-ksub2.log" 2>&1; grep -E "PASSED|FAILED" "$L/tests-ksub2.log" | head -3
      grep -h FAIL "$L"/check-*.log | head -5 ;;
    ksub-bench)
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "${MS:-1 16 32 64}")" \
        --tune "${TUNES:-;ksub=2;ksub=4}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/ksub-bench.csv" > "$L/ksub-bench.log" 2>&1
      summary "$OUT/ksub-bench.csv" ;;
    ksub-bench2)
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "${MS2:-1 16}")" \
        --tune "${TUNES2:-;ksub=2;ksub=1}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/ksub-bench2.csv" > "$L/ksub-bench2.log" 2>&1
      summary "$OUT/ksub-bench2.csv" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
