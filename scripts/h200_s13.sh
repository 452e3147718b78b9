#!/usr/bin/env bash
# Thirteenth session's device calls (docs/notes.md, "Thirteenth session"; results in docs/results/dev/2026-12-02-s13/):
#   GROUPS_=skcheck / skbench / sksan  stream-K over the fitted tiles (fitsk=1, c335405 only): tests, check, A/B, sanitizers
#   GROUPS_=names       ncu: cuBLAS's kernels where best loses, and the stream-K fit's kernel time (call 2)
#   GROUPS_=lone        one CTA's stream: the TMA probe at 16 CTAs against the fitted GEMM (call 4)
#   GROUPS_=lanes       several producer lanes issuing TMA (lanes=, d199add-856c66f only): check and A/B (calls 5-6)
#   GROUPS_=uniform     SASS counts and A/B of d8b3c1f's CLI (build/old) against the lanes build; the probe (call 7)
#   GROUPS_=ncufull     ncu's full set at one shape: the fitted tile, small-M, cuBLAS (call 9)
#   GROUPS_=fitpromo / promofinal  the fitted tile's 128-B promotion (calls 10-11; the rule is at 45be7a9 only)
#   GROUPS_=interleaved the interleaved --tune: an A/A pair and 128 against 256 B (call 12)
#   GROUPS_=recheck / shallow      earlier small margins re-measured interleaved (calls 13-14)
#   GROUPS_=verify      every GPU test, pytest, the v2/torch check and best's check suites (h200_verify.sh final)
# The knobs fitsk and lanes were measured and removed: those groups run only on the commits named.
# Build here (cmake --preset release && cmake --build --preset release), strip, carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,ladder_cluster_probe,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
FIT1="64 112 224"      # the 1-CTA-cluster widths (M <= 128)
FIT2="64 144 208 224"  # the 2-CTA-cluster widths
for g in ${GROUPS_:-skcheck}; do
  echo "== $g $(date -u +%T)"
  case $g in
    skcheck)
      T 200 "$B/tests/ladder_tests" --gtest_filter='CoopFit.*:Tuning.*:Best.*' --gtest_brief=1 > "$L/tests-sk.log" 2>&1
      tail -3 "$L/tests-sk.log"
      for w in $FIT1; do
        LADDER_TUNE=kernel=coop_fit,width=$w,fitsk=1,fixup=0 T 200 "$B/ladder" check --steps best \
          --shapes 64x4096x4096,128x4096x4096,40x2049x4104,77x1000x8200,128x8192x8192,100x1024x14336 > "$L/check-sk-$w-1.log" 2>&1
        echo "width $w cluster 1 stream-K: $(tail -1 "$L/check-sk-$w-1.log")"
      done
      for w in $FIT2; do
        LADDER_TUNE=kernel=coop_fit,width=$w,fitsk=1,fixup=0 T 200 "$B/ladder" check --steps best \
          --shapes 256x1024x4096,200x2049x4104,256x4096x4096,129x1000x8200 > "$L/check-sk-$w-2.log" 2>&1
        echo "width $w cluster 2 stream-K: $(tail -1 "$L/check-sk-$w-2.log")"
      done
      for s in 128x4096x4096 64x8192x8192 256x1024x4096; do
        LADDER_TUNE=kernel=coop_fit,fitsk=1,fixup=0 LADDER_TRACE=1 "$B/ladder" bench --steps best --shapes $s --target-ms 1 --warmup-ms 1 2>&1 \
          | grep -m1 -E "cooperative" | sed "s/^/$s: /"
      done
      LADDER_TUNE=kernel=coop_fit,fitsk=1,fixup=0 T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-sk.csv" > "$L/check-v2-sk.log" 2>&1
      tail -1 "$L/check-v2-sk.log"; grep FAIL "$L/check-v2-sk.log" | head -5 ;;
    skbench)
      c1=""; for w in $FIT1; do c1="$c1;kernel=coop_fit,width=$w,fitsk=1,fixup=0"; done
      c2=""; for w in $FIT2; do c2="$c2;kernel=coop_fit,width=$w,fitsk=1,fixup=0"; done
      ab sk-mid "$(LAYERS="4096x4096 8192x8192 4096x14336 1024x4096 1024x8192 8192x28672 14336x4096" shapes "64 96 128")" "$c1"
      ab sk-256 "$(LAYERS="4096x4096 1024x4096 1024x8192 4096x14336 8192x8192" shapes "256")",256x2048x8192 "$c2" ;;
    sksan)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        for t in kernel=coop_fit,width=112,fitsk=1,fixup=0 kernel=coop_fit,width=144,fitsk=1,fixup=0; do
          LADDER_TUNE=$t T 120 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
            --shapes 128x1000x520,40x344x1032,256x1000x520 --seeds 1 > "$L/sanitize-$tool-${t#*width=}.log" 2>&1
          echo "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool-${t#*width=}.log" | tr '\n' ' ')"
        done
      done ;;
    names)  # ncu: the kernels cuBLAS runs on the shapes where best loses, their grids and times, beside ours
      for s in ${NAMES:-512x1024x4096 256x1024x4096 128x4096x4096 64x4096x4096 256x4096x4096 1536x1536x4096 2560x2560x2560 512x4096x4096}; do
        echo "== $s" >> "$L/ncu-names.txt"
        T 60 ncu --clock-control none --launch-count 40 --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y \
          "$B/ladder" bench --steps best --shapes $s --target-ms 1 --warmup-ms 1 > "$L/ncu-$s.log" 2>&1
        grep -E "^  [a-zA-Z_].*\(|duration|grid_size|cluster_dim" "$L/ncu-$s.log" | paste - - - - - | awk '!seen[$1]++' >> "$L/ncu-names.txt"
      done
      for t in "kernel=coop_fit,width=64,fitsk=1,fixup=0 64x1024x4096" "kernel=coop_fit,width=64,fitsk=0 64x1024x4096" \
               "kernel=coop_fit,width=64,fitsk=1,fixup=0 128x4096x4096"; do
        set -- $t
        echo "== $1 $2" >> "$L/ncu-names.txt"
        LADDER_TUNE=$1 T 60 ncu --clock-control none --launch-count 40 --kernel-name regex:cooperative --metrics gpu__time_duration.sum,launch__grid_size \
          "$B/ladder" bench --steps best --shapes $2 --target-ms 1 --warmup-ms 1 > "$L/ncu-sk-$2.log" 2>&1
        grep -E "duration" "$L/ncu-sk-$2.log" | awk '{print $NF}' | sort -n | head -20 | paste -sd' ' >> "$L/ncu-names.txt"
        LADDER_TUNE=$1 "$B/ladder" bench --steps best --shapes $2 --target-ms 20 --warmup-ms 5 2>&1 | tail -2 >> "$L/ncu-names.txt"
      done
      cat "$L/ncu-names.txt" ;;
    lone)  # how fast one CTA streams: the TMA probe with few CTAs (N/R of them) against the fitted GEMM on the same grid
      C="R=64,BR=32,XR=64,S=9;R=64,BR=32,XR=64,S=9,lanes=3;R=64,BR=64,XR=64,S=9;R=64,BR=64,XR=64,S=13;R=64,BR=64,XR=0,S=9"
      C="$C;R=64,BR=64,XR=64,S=4;R=64,BR=64,XR=64,S=6,SC=128;R=64,BR=64,XR=64,S=9,promo=256;R=64,BR=64,XR=64,S=9,linear=1"
      for nk in "1024 4096" "1024 16384" "8192 4096"; do
        set -- $nk
        T 100 "$B/ladder_tma_probe" --n $1 --k $2 --tokens 64 --configs "$C" --out "$L/csv/lone-$1x$2.csv" > "$L/lone-$1x$2.log" 2>&1
        tail -12 "$L/lone-$1x$2.log"
      done
      ab lone-gemm 64x1024x4096,64x1024x16384,64x8192x4096 ";kernel=coop_fit,width=64,fitsk=0;kernel=small_m" ;;
    lanes)  # the producers' TMA boxes issued by several lanes (LADDER_TUNE lanes=): check, then A/B against one lane
      for t in lanes=2 lanes=3 kernel=coop_fit,lanes=4 kernel=coop_fit,width=144,lanes=2 kernel=coop,lanes=3 kernel=coop192,lanes=2; do
        LADDER_TUNE=$t T 100 "$B/ladder" check --steps best --shapes 1x4096x4096,5x1000x2056,40x2049x4104,64x4096x4096,77x1000x8200,128x8192x1032,300x1000x2056,256x1024x4096,777x2049x4104 \
          --seeds 1 > "$L/check-$t.log" 2>&1
        echo "$t: $(tail -1 "$L/check-$t.log")"
      done
      ab lanes-mid "$(LAYERS="4096x4096 8192x8192 4096x14336 1024x4096 14336x4096" shapes "64 128")" ";lanes=2;lanes=3;lanes=4"
      ab lanes-low "$(LAYERS="4096x4096 14336x4096 28672x8192 1024x8192" shapes "1 16 32")" ";lanes=2;lanes=3"
      ab lanes-few 256x1024x4096,512x1024x4096,256x4096x4096,512x4096x4096,1536x1536x4096,2560x2560x2560,256x8192x8192 ";lanes=2;lanes=3;lanes=4" ;;
    uniform)  # TMA operands per lane: the SASS of the small-M kernel before (build/old = d8b3c1f) and with the lanes
      # rewrite, the two builds' A/B on the decode rows, and the probe with a uniform one-lane issue
      for lib in build/old/ladder "$B/ladder"; do
        cuobjdump -sass "$lib" > "$L/sass.txt" 2>&1
        awk -v lib="$lib" '/Function : /{f=($0 ~ /small_m_kernel/)} f&&/UTMALDG/{u++} f&&/R2UR/{r++} f&&/VOTEU|MATCH/{v++} END{print lib": small_m UTMALDG " u " R2UR " r " VOTEU/MATCH " v}' "$L/sass.txt"
        awk -v lib="$lib" '/Function : /{f=($0 ~ /cooperative_kernel/)} f&&/UTMALDG/{u++} f&&/R2UR/{r++} f&&/VOTEU|MATCH/{v++} END{print lib": cooperative UTMALDG " u " R2UR " r " VOTEU/MATCH " v}' "$L/sass.txt"
      done
      rm -f "$L/sass.txt"
      S1="1x4096x4096,1x14336x4096,16x4096x4096,32x14336x4096,64x4096x4096,128x4096x14336,64x14336x4096"
      for b in build/old "$B"; do
        T 120 "$b/ladder" bench --steps best --shapes $S1 --target-ms 20 --warmup-ms 10 --csv "$L/csv/uni-$(basename $b).csv" > "$L/uni-$(basename $b).log" 2>&1
      done
      summary "$L/csv/uni-old.csv" "$L/csv/uni-release.csv" | tee "$L/uni-summary.txt"
      C="R=64,BR=64,XR=64,S=4;R=64,BR=64,XR=64,S=9;R=64,BR=64,XR=64,S=13;R=64,BR=64,XR=0,S=9;R=64,BR=64,XR=0,S=18;R=64,BR=32,XR=64,S=9;R=64,BR=32,XR=64,S=9,lanes=3;R=64,BR=64,XR=64,S=6,SC=128"
      for nk in "1024 16384" "8192 4096"; do
        set -- $nk
        T 100 "$B/ladder_tma_probe" --n $1 --k $2 --tokens 64 --configs "$C" --out "$L/csv/uni-probe-$1x$2.csv" > "$L/uni-probe-$1x$2.log" 2>&1
        tail -10 "$L/uni-probe-$1x$2.log"
      done ;;
    ncufull)  # ncu's full set on one shape: the fitted 64-wide tile (one consumer busy), the small-M kernel, cuBLAS
      for t in kernel=coop_fit,width=64 kernel=small_m; do
        LADDER_TUNE=$t T 150 ncu --clock-control none --set full --launch-count 1 --kernel-name regex:"cooperative|small_m" \
          "$B/ladder" bench --steps best --shapes ${NS:-64x8192x4096} --target-ms 1 --warmup-ms 1 > "$L/ncu-full-${t#*=}.txt" 2>&1
      done
      T 150 ncu --clock-control none --set full --launch-count 1 --kernel-name regex:"nvjet" \
        "$B/ladder" bench --steps best --shapes ${NS:-64x8192x4096} --target-ms 1 --warmup-ms 1 > "$L/ncu-full-cublas.txt" 2>&1
      for f in "$L"/ncu-full-*.txt; do echo "== $f"; grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit Rate|Memory Throughput|Registers Per|Achieved Occupancy|Issued Ipc|Mem Busy|Max Bandwidth" "$f" | head -16; done ;;
    fitpromo)  # the fitted tile's operand maps at 128-B L2 promotion (the small-M kernel's at <= 64 tokens) against 256
      ab fitpromo "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "40 64 96 128")" ";l2promo=128;l2promo=0" ;;
    promofinal)  # the rule (128 B at <= 64 tokens for the fitted tiles) against 256 B, the GPU tests, check
      T 200 "$B/tests/ladder_tests" --gtest_filter='CoopFit.*:Best.*:Tuning.*:SmallM.*' --gtest_brief=1 > "$L/tests-promo.log" 2>&1
      tail -2 "$L/tests-promo.log"
      T 100 "$B/ladder" check --steps best --suite decode --seeds 2 > "$L/check-decode.log" 2>&1; tail -1 "$L/check-decode.log"
      T 100 "$B/ladder" check --steps best --shapes "$(LAYERS="14336x4096 28672x8192 128256x4096 1000x2056" shapes "33 40 64 65")" \
        --seeds 3 > "$L/check-promo.log" 2>&1; tail -1 "$L/check-promo.log"
      ab promofinal "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "33 48 64 65")" ";l2promo=256" ;;
    interleaved)  # `ladder bench --tune` with the candidates interleaved in one timing: an A/A, then 128 against 256 B
      T 100 "$B/tests/ladder_tests" --gtest_filter='Bench.*:SmallM.TuningThatCannotRun*' --gtest_brief=1 > "$L/tests-bench.log" 2>&1
      tail -2 "$L/tests-bench.log"
      SH="$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "40 64")"
      T 200 "$B/ladder" bench --steps best --shapes "$SH" --tune ";;l2promo=128;l2promo=256" --target-ms 40 --warmup-ms 10 \
        --csv "$L/csv/interleaved.csv" > "$L/interleaved.log" 2>&1
      summary "$L/csv/interleaved.csv" | tee "$L/interleaved-summary.txt" ;;
    recheck)  # earlier small-margin decisions, re-measured interleaved: small-M's 128-B promotion and evict-first hint
      # (eighth session, 1.5-2 %), and the fitted tile against small-M at 33-48 tokens on 128256x4096 (twelfth)
      T 250 "$B/ladder" bench --steps best --shapes "$(shapes "1 16 64")" --tune ";l2promo=256;l2evict=0" --target-ms 30 \
        --warmup-ms 10 --csv "$L/csv/recheck-small-m.csv" > "$L/recheck-small-m.log" 2>&1
      summary "$L/csv/recheck-small-m.csv" | tee "$L/recheck-small-m-summary.txt"
      T 100 "$B/ladder" bench --steps best --shapes 33x128256x4096,40x128256x4096,48x128256x4096,33x14336x4096,33x28672x8192 \
        --tune ";kernel=small_m" --target-ms 40 --warmup-ms 10 --csv "$L/csv/recheck-fit.csv" > "$L/recheck-fit.log" 2>&1
      summary "$L/csv/recheck-fit.csv" | tee "$L/recheck-fit-summary.txt" ;;
    shallow)  # small-M's L2 promotion by ring depth: 256 B against the auto 128 B on layers whose plans differ in depth
      T 250 "$B/ladder" bench --steps best --shapes "$(LAYERS="28672x8192 24576x8192 32768x8192 28672x4096 49152x12288 20480x5120 13824x5120 53248x16384 14336x4096 8192x28672" shapes "1 16")" \
        --tune ";l2promo=256" --target-ms 30 --warmup-ms 10 --csv "$L/csv/shallow.csv" > "$L/shallow.log" 2>&1
      python3 - "$L/csv/shallow.csv" <<'P' | tee "$L/shallow-summary.txt"
import csv, re, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])): by.setdefault((r['m'], r['n'], r['k']), {})[r['tune'] or 'auto'] = r
for k, v in by.items():
    a, b = v.get('auto'), v.get('l2promo=256')
    if not a or not b or not a['median_ms'] or not b['median_ms']: continue
    st = re.search(r'(\d+)-stage ring, (\d+) CTAs', a['kernel'])
    print(f"{k[0]:>3}x{k[1]:>6}x{k[2]:>5} {st.group(1) if st else '-':>3} stages {st.group(2) if st else '-':>5} CTAs  auto {float(a['median_ms'])*1e3:7.1f}  256B {float(b['median_ms'])*1e3:7.1f}  ratio {float(b['median_ms'])/float(a['median_ms']):.3f}  cublas {float(a['cublas_median_ms'])*1e3:7.1f}")
P
      ;;
    verify) SECTIONS=final OUT=$L/verify bash "$(dirname "$0")/h200_verify.sh" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs
