#!/usr/bin/env bash
# Eighth session: h14 (small-M in stream-K units over a persistent grid) — its tests and checks, and the decode
# layers at M <= 64 under the cluster split (sk=0), stream-K at 1/2/3 CTAs an SM, and the model's choice.
set -uo pipefail
B=${LADDER_BUILD:-build/release}
OUT=${OUT:-/tmp/ladder-out}
L=$OUT/logs; mkdir -p "$L"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-} LADDER_LIBRARY=$PWD/$B/libladder.so CI=1
export LADDER_COMMIT=$(sed -n 's/.*LADDER_GIT_COMMIT "\(.*\)".*/\1/p' "$B/generated/ladder_version.hpp" 2>/dev/null)
T() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; [ $rc -ne 0 ] && echo "!! rc=$rc: $*" | tee -a "$L/failures.txt"; return 0; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
echo "commit $LADDER_COMMIT" >> "$L/gpu.txt"
LAYERS="4096x4096 1024x4096 14336x4096 4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672"
shapes() { local s=""; for m in $1; do for l in $LAYERS; do s="$s,${m}x$l"; done; done; echo "${s#,}"; }
for s in ${SECTIONS:-sk-tests sk-bench}; do
  echo "== $s $(date -u +%T)"
  case $s in
    sk-tests)
      T 300 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:StreamK*' > "$L/sk-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \]" "$L/sk-tests.log" | head -20
      T 200 "$B/ladder" check --steps h14,best --suite decode --seeds 2 > "$L/check-decode.log" 2>&1; tail -1 "$L/check-decode.log"
      T 200 "$B/ladder" check --steps h14 --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      for t in cps=1 cps=3; do
        LADDER_TUNE=$t T 200 "$B/ladder" check --steps h14 --suite smallm --seeds 1 > "$L/check-smallm-$t.log" 2>&1
        echo "$t: $(tail -1 "$L/check-smallm-$t.log")"
      done
      grep -h FAIL "$L"/check-*.log | head -5 ;;
    sk-bench)
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "${MS:-1 4 16 32 64}")" \
        --tune "${TUNES:-;sk=0;sk=1,cps=1;sk=1,cps=2;sk=1,cps=3}" --target-ms ${TMS:-30} --warmup-ms 10 \
        --csv "$OUT/sk-bench.csv" > "$L/sk-bench.log" 2>&1
      python3 - "$OUT/sk-bench.csv" <<'P'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows: by.setdefault((int(r['m']), int(r['n']), int(r['k'])), []).append(r)
for key, rs in by.items():
    cells = " ".join(f"{(r['tune'] or 'auto')}={float(r['median_ms'])*1e3:.1f}" for r in rs)
    print(f"{key[0]:>3}x{key[1]:>6}x{key[2]:>5} cublas={float(rs[0]['cublas_median_ms'])*1e3:.1f} floor={float(rs[0]['floor_ms'])*1e3:.1f} {cells}")
P
      ;;
    sk-diag)  # where h14's fixed cost goes (LADDER_SKDIAG bits: 1 persistent workspace, 2 no cooperative attribute,
              # 4 no grid barrier (partials unsummed: timing only), 8 no PDL); then ncu's kernel durations
      # 1x8448x4096 at cps=1 and 1x16896x4096 at cps=2 give every worker exactly one whole tile: no partials, so
      # they stay right without the barrier (bit 4); the other shapes fail there and are not timed.
      S=${DIAG_SHAPES:-1x8448x4096,1x16896x4096,1x4096x4096,1x14336x4096}
      T 100 "$B/ladder" bench --steps h13,h14 --shapes "$S" --target-ms 30 --warmup-ms 10 --tune ";cps=1" --csv "$L/diag-00.csv" > "$L/diag.log" 2>&1
      for d in 01 08 09 06 07 15; do
        LADDER_SKDIAG=$d T 100 "$B/ladder" bench --steps h14 --shapes "$S" --tune ";cps=1" --target-ms 30 --warmup-ms 10 --csv "$L/diag-$d.csv" >> "$L/diag.log" 2>&1
      done
      python3 - "$L" <<'P'
import csv, glob, sys, os
for f in sorted(glob.glob(sys.argv[1] + "/diag-*.csv")):
    d = os.path.basename(f)[5:-4]
    for r in csv.DictReader(open(f)):
            ms = float(r['median_ms'] or 'nan') * 1e3
    print(f"diag={d} {r['step']} {r['tune'] or '-':6} {r['m']}x{r['n']}x{r['k']} {ms:.1f} us cublas {float(r['cublas_median_ms'] or 'nan')*1e3:.1f} {r['status']}")
P
      for st in h13 h14; do
        T 120 ncu --clock-control none --section SpeedOfLight -k "regex:small_m" --launch-skip 5 --launch-count 3 \
          "$B/ladder" bench --steps $st --shapes 1x4096x4096 --target-ms 5 --warmup-ms 1 > "$L/ncu-$st.txt" 2>&1
        echo "$st ncu: $(grep -E 'Duration' "$L/ncu-$st.txt" | tr -s ' ' | head -3 | tr '\n' ';')"
      done ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
