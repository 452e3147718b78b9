#!/usr/bin/env bash
# The thirty-third session's device calls, prepared without a device (docs/notes.md, "Thirty-third session"); other
# groups run through h200_s32.sh and the earlier scripts (GROUPS_ as there, one at a time). The even split and the
# 80-token tile were measured slower on an H100 and removed from main: `even`, `evenab`, `evenslack` and `tok80` need a
# binary built from branch wip/s33-even-tok80 (or main with docs/results/dev/2026-12-05-s33/even-tok80.patch applied).
#   GROUPS_=stall  s32 call 7's stalled bench round, reproduced first thing on a fresh machine: the same 12 shapes and
#                  candidates in the same order (forced small-M splits at 384×4096×14336 first, then kernel=coop), with
#                  nvidia-smi sampling alongside (busy 100 %: a kernel never ends; 0 %: the host waits). First with
#                  build/timeout/ladder (LADDER_BARRIER_TIMEOUT: a wait on an mbarrier or a stream-K flag that never
#                  completes traps in ~5 s with its name and block), then the release binary as call 7 ran it, then
#                  with the trace on (every launch, 2 ms a candidate), each candidate alone (traced), and the same
#                  order with pdl=0. A hang is a defect whatever knob reaches it. The timeout binary is carried as
#                  build/timeout/ladder (it is not for timing: its waits are calls, which serialize the wgmmas). Worst
#                  case, every round cut by its timeout: ~420 s.
#   GROUPS_=even   small-M's even split (LADDER_TUNE even=<t>; device/even_split.hpp), prepared without a device: its
#                  GPU tests, the sanitizers, `check` of the decode suite under even=7 and even=auto (they apply at
#                  <= 32 tokens); GROUPS_=evenab: flushed against best's pick, two rounds. Predicted (busiest-SM
#                  count, notes): 14336×4096 at 1-32 tokens 31.5-32.9 → ~29.5-30.5 µs with even=7 (seven tiles a
#                  cluster of eight: the busiest SM 112 K-tiles where it reads 128 today; the floor 28.5, and the
#                  whole tiles already at 87-92 % of it); even=15,split=16 (120 K-tiles) between;
#                  even=3 (split 4, three CTAs an SM: 144) slower: the control. 28672×8192, where waves already even
#                  out (95 % of the floor), within ±2 %. even=auto (the count model's t where it reads >= 5 % less
#                  than the whole-tile plan; on the H200's plans that is 14336×4096's rows) then over the decode
#                  layers at 1-32 tokens: predicted the same as auto wherever it keeps whole tiles.
#   GROUPS_=cublasncu  ncu's launch statistics of cuBLAS's kernels at 384-512 tokens on 1024-4096-wide layers and at
#                  128×8192×8192: tiles, grid, cluster and split, before building anything for the mid-M gap.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
STALL_SHAPES=384x4096x14336,384x3072x4096,512x3072x4096,384x4096x4096,384x2048x2048,256x1536x4096,256x2048x4096,384x1024x4096,256x2048x2048,128x8192x8192,128x4096x14336,256x4096x4096
STALL_TUNES="split=2;split=3;split=4;split=6;split=8;kernel=coop"
# stall_round <name> <binary> <candidates> <seconds> [target ms]: one bench round under a timeout. Its log (the trace,
# where on: one line a launch) is cut to its first 50 and last 300 lines: the last launches before a hang.
stall_round() {
  local t0=$(date -u +%T) rc log=/tmp/$1.log
  T "$4" "$2" bench --steps best --shapes "$STALL_SHAPES" --tune "$3" --target-ms "${5:-20}" --warmup-ms "${5:-10}" \
    --csv "$L/csv/$1.csv" > "$log" 2>&1
  rc=$?
  { head -50 "$log"; echo "[... $(wc -l < "$log") lines ...]"; tail -300 "$log"; } > "$L/$1.log"
  echo "$1: rc=$rc from $t0 to $(date -u +%T), $(grep -c . "$L/csv/$1.csv" 2>/dev/null) CSV lines, $(grep -c '^ladder: .* grid ' "$log") traced launches"
  grep -E "timed out|never set|rror" "$log" | head -5
}
session_group() {
  case $1 in
    stall)
      nvidia-smi --query-gpu=timestamp,utilization.gpu,power.draw,clocks.sm --format=csv -lms 500 > "$L/stall-smi.csv" 2>&1 &
      local smi=$! c
      [ -x build/timeout/ladder ] && stall_round stall-timeout build/timeout/ladder ";$STALL_TUNES" 60
      stall_round stall-fwd "$B/ladder" ";$STALL_TUNES" 60
      LADDER_TRACE=1 stall_round stall-fwd-trace "$B/ladder" ";$STALL_TUNES" 60 2
      for c in "" $(echo "$STALL_TUNES" | tr ';' ' '); do
        LADDER_TRACE=1 stall_round "stall-alone-${c:-auto}" "$B/ladder" "$c" 25 2
      done
      stall_round stall-pdl0 "$B/ladder" "pdl=0;$(echo "$STALL_TUNES" | sed 's/;/,pdl=0;/g'),pdl=0" 60
      kill $smi 2>/dev/null
      python3 - "$L/stall-smi.csv" <<'P' | tee "$L/stall-smi-summary.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][:2].isdigit()]
busy = [r for r in rows if r[1].strip().startswith('100')]
print(f"nvidia-smi: {len(rows)} samples, {len(busy)} at 100 % busy; longest busy run "
      f"{max((len(s) for s in ''.join('1' if r in busy else '0' for r in rows).split('0')), default=0) * 0.5:.1f} s")
P
      ;;
    even)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.EvenSplit*:SmallM.TuningThatCannot*:StreamK.ConcurrentStreamsFinish' \
        > "$L/tests-even.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \]" "$L/tests-even.log" | head -8
      LADDER_TUNE=even=7 sanitize even 8x14336x4096,16x1000x4104,2x5000x1032
      for v in 7 auto; do
        LADDER_TUNE=even=$v T 100 "$B/ladder" check --steps best --suite decode --seeds 2 > "$L/check-decode-even$v.log" 2>&1
        echo "check decode under even=$v: $(tail -1 "$L/check-decode-even$v.log")"
      done
      ;;
    evenab)
      ab even "1x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,32x14336x4096,1x28672x8192,16x28672x8192,8x4096x4096" \
        ";even=auto;even=7;even=15,split=16,cps=2;even=3"
      LAYERS="4096x4096 1024x4096 14336x4096 4096x14336 8192x8192 28672x8192" ab even-auto "$(shapes "1 8 16 32")" ";even=auto" ;;
    evenslack)
      # call 2 (H100): even=7 ran 53.6 against 41.3 µs at 1×14336×4096 with 240 of its 256 CTAs resident (clusters of 8
      # at two CTAs an SM leave 24 slots unused). With the ring sized for three or four an SM every cluster fits; what
      # the placement then gives the busiest SM is what this measures, with the whole tiles at the same depth beside.
      ab evenslack "1x14336x4096,8x14336x4096,16x14336x4096,32x14336x4096" ";even=7,cps=3;cps=3;even=7,cps=4;even=3,cps=4" ;;
    prefill)
      T 200 "$B/ladder" bench --steps best --suite prefill --target-ms 30 --warmup-ms 20 --csv "$OUT/bench-prefill.csv" \
        > "$L/bench-prefill.log" 2>&1
      tail -4 "$L/bench-prefill.log" | cut -c1-150 ;;
    tok80)
      # small-M's 80-token tile (LADDER_TUNE tok=80, a tuning copy): cuBLAS's token tile at 384 tokens (call 2's ncu,
      # without its 4-CTA cluster sharing the tokens). Its tests, then forced against 96 and 128, two rounds. Predicted
      # where each SM's intake (~73 GB/s an SM on the H100) bounds the time: 384×3072×4096 28.6 → ~25.6 µs (120 CTAs of
      # 208 rows a K-tile against 72 of 256), 384×2048×2048 13.0 → ~11.7; where L2's total output bounds it (s19: the
      # 96-token tile lost at 384×3584×3584, its weights read 4 times against 3), 80 (5 times) loses.
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.FittedTokenTiles*' > "$L/tests-tok80.log" 2>&1
      grep -E "OK \]|FAILED|Failure" -A3 "$L/tests-tok80.log" | head -8
      ab tok80 "384x3072x4096,384x2048x2048,320x3072x4096,384x1536x4096,384x3584x3584,512x3072x4096,400x3072x3072,352x2048x4096" \
        ";kernel=small_m,tok=80;kernel=small_m,tok=96;kernel=small_m,tok=128" ;;
    cublasncu)
      # cuBLAS's kernels (name, grid, block, cluster, duration) at the off-suite shapes where best is 0.67-0.76× (README,
      # "Outside the suites") and at the decode suite's rows under 1.0×: which tiles and split before anything is built.
      local sh
      for sh in 384x3072x4096 512x3072x4096 384x4096x14336 384x2048x2048 256x2048x4096 128x8192x8192 256x1024x8192 512x1024x4096; do
        T 120 ncu --clock-control none --section LaunchStats --section SpeedOfLight -k "regex:nvjet|sm90|gemm|splitK|reduce" \
          --launch-skip 6 --launch-count 3 "$B/ladder" bench --steps best --shapes "$sh" --target-ms 1 --warmup-ms 1 \
          > "$L/cublasncu-$sh.txt" 2>&1
        echo "$sh: $(grep -E '^  [a-z_0-9]+.*\(|Grid Size|Block Size|Cluster Size|Duration' "$L/cublasncu-$sh.txt" | head -6 | tr -s ' ' | tr '\n' '|')"
      done ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s32.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
