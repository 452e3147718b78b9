#!/usr/bin/env bash
# One call on the H200 for the small-M family (h12/h13) and best: GPU tests, check sweeps, the v2/torch check,
# the decode/few-tile benchmarks with the same-run read floor, a split sweep, sanitizers. Binaries come prebuilt
# (carried build/release). Logs and CSVs go to $OUT (tarred: at most 8 files come back).
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
uname -r >> "$L/gpu.txt"; (compute-sanitizer --version | tail -1; ncu --version | tail -1) >> "$L/gpu.txt" 2>&1
SECTIONS=${SECTIONS:-"tests check v2 bench sweep sanitize"}
for s in $SECTIONS; do
  echo "== $s $(date -u +%T)"
  case $s in
    tests) T 300 "$B/tests/ladder_tests" > "$L/tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests.log" | head -20 ;;
    check)
      T 300 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -2 "$L/check-smallm.log"
      T 200 "$B/ladder" check --steps h12,best --suite decode --seeds 2 > "$L/check-decode.log" 2>&1; tail -1 "$L/check-decode.log"
      T 200 "$B/ladder" check --steps hopper --suite check --seeds 1 > "$L/check-ladder.log" 2>&1; tail -1 "$L/check-ladder.log"
      T 200 "$B/ladder" check --steps best,h10 --suite standard --seeds 1 > "$L/check-standard.log" 2>&1; tail -1 "$L/check-standard.log" ;;
    v2) T 200 python3 scripts/check_v2_torch.py --csv "$OUT/v2.csv" > "$L/v2.log" 2>&1; tail -1 "$L/v2.log"; grep FAIL "$L/v2.log" | head ;;
    bench)
      O="--target-ms ${TMS:-120} --warmup-ms 30"
      T 400 "$B/ladder" bench --steps best --suite decode $O --csv "$OUT/decode-best.csv" > "$L/decode-best.log" 2>&1
      T 200 "$B/ladder" bench --steps h10,h12 --m 32,64,128,256,512 --n 4096,14336,1024 --k 4096 $O --csv "$OUT/crossover.csv" > "$L/crossover.log" 2>&1
      T 200 "$B/ladder" bench --steps best,h10 --suite fewtile $O --csv "$OUT/fewtile.csv" > "$L/fewtile.log" 2>&1
      T 300 "$B/ladder" bench --steps best --suite standard $O --csv "$OUT/standard.csv" > "$L/standard.log" 2>&1
      tail -12 "$L/fewtile.log" ;;
    sweep)
      O="--target-ms ${TMS:-100} --warmup-ms 20"
      T 400 "$B/ladder" bench --steps h12,h13 --m 1,16,64 --n 4096,1024,14336,8192 --k 4096,8192 $O \
        --tune "split=1;split=2;split=4;split=8;split=16;" --csv "$OUT/split-sweep.csv" > "$L/split-sweep.log" 2>&1 ;;
    sweep2)
      O="--target-ms ${TMS:-100} --warmup-ms 20"
      T 400 "$B/ladder" bench --steps h12 --m 1,16,64 --n 4096,1024,14336,8192 --k 4096,8192 $O \
        --tune ";cps=2;cps=1,split=1;cps=1,split=2;cps=1,split=4;cps=1,split=8;cps=2,split=2;cps=2,split=4;cps=2,split=8" \
        --csv "$OUT/split-sweep2.csv" > "$L/split-sweep2.log" 2>&1 ;;
    crossover)
      O="--target-ms ${TMS:-100} --warmup-ms 20"
      T 300 "$B/ladder" bench --steps h12,h10 --m 96,128,256,512 --n 4096,14336,1024,8192 --k 4096,8192 $O \
        --csv "$OUT/crossover2.csv" > "$L/crossover2.log" 2>&1
      T 200 "$B/ladder" bench --steps h12,best --suite fewtile $O --tune ";split=1;split=2;split=4" --csv "$OUT/fewtile2.csv" > "$L/fewtile2.log" 2>&1
      tail -25 "$L/fewtile2.log" ;;
    sweep4)
      O="--target-ms ${TMS:-80} --warmup-ms 20"
      for t in "acc=2" "wg=2" "cps=3" "cps=4,acc=2"; do
        LADDER_TUNE=$t T 200 "$B/ladder" check --steps h12 --suite smallm --seeds 4 > "$L/check-smallm-$t.log" 2>&1
        echo "check $t: $(tail -1 "$L/check-smallm-$t.log")"
      done
      T 400 "$B/ladder" bench --steps h12 --shapes 1x4096x4096,1x14336x4096,1x1024x4096,8x8192x8192,16x4096x14336,32x4096x4096,64x4096x4096,64x14336x4096,64x1024x4096,64x8192x8192,1x128256x4096 $O \
        --tune ";acc=2;cps=1;cps=1,acc=2;cps=3;cps=3,acc=2;cps=4;cps=4,acc=2;wg=2;wg=2,cps=2" \
        --csv "$OUT/sweep4.csv" > "$L/sweep4.log" 2>&1 ;;
    fewcheck)  # stream-K on few tiles (h11, best forced to it) and the 128-token splits
      T 300 "$B/tests/ladder_tests" --gtest_filter='StreamK*:*Scheduler*:*SmallM*:*Split*' > "$L/fewcheck-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/fewcheck-tests.log" | head -20
      F=256x4096x14336,256x4096x4096,256x8192x8192,256x1024x8192,512x1024x8192,512x1024x4096,300x1000x6000,200x1000x6000,256x3584x18944,512x3584x18944,1536x1536x4096,2560x2560x2560,1000x1000x4104,200x3000x9000,64x64x65536
      T 200 "$B/ladder" check --steps h11,best --shapes $F --seeds 2 > "$L/fewcheck.log" 2>&1; tail -1 "$L/fewcheck.log"
      LADDER_TUNE=kernel=coop T 200 "$B/ladder" check --steps best --shapes $F --seeds 1 > "$L/fewcheck-coop.log" 2>&1; tail -1 "$L/fewcheck-coop.log"
      T 200 "$B/ladder" check --steps h12,best --shapes 128x4096x4096,128x4096x14336,96x4096x4096,128x5120x5120,128x3072x3072,100x2560x8192,65x1000x3000 --seeds 2 > "$L/fewcheck-128.log" 2>&1; tail -1 "$L/fewcheck-128.log" ;;
    grid)  # GRID: a file of "shapes|tunes" lines, one bench each (tunes ';'-separated, as --tune takes them)
      i=0
      while IFS='|' read -r shapes tunes; do
        [[ -z $shapes || $shapes == \#* ]] && continue
        i=$((i+1))
        T 300 "$B/ladder" bench --steps best --shapes "$shapes" --tune "$tunes" --target-ms ${TMS:-25} --warmup-ms 10 \
          --csv "$L/grid-$i.csv" >> "$L/grid.log" 2>&1 < /dev/null
      done < "${GRID:?GRID=file}"
      if compgen -G "$L/grid-*.csv" > /dev/null; then
        awk 'FNR > 1 || NR == 1' "$L"/grid-*.csv > "$OUT/grid.csv"; wc -l "$OUT/grid.csv"
      fi ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        T 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h12,h13,best \
          --shapes 1x4096x512,7x1000x520,33x777x1024,130x300x256,64x256x4104 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
  esac
done
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$L"
ls -la "$OUT"
