#!/usr/bin/env bash
# The fifteenth session's device calls (docs/notes.md, "Fifteenth session").
#   GROUPS_=tests     the full GPU suite
#   GROUPS_=sanitize  compute-sanitizer on the small-M reduce (04381ad's __syncwarp before the split-1 CTA barrier)
#   GROUPS_=ring16    <= 16 tokens on the >= 2-wave layers: the plan (split 2 at seven CTAs an SM, 3-stage rings on
#                     28672x8192) against two or three CTAs an SM with deeper rings, and the 256-B L2 promotion
#   GROUPS_=m128      the 128-token tile's plan against its knobs (CTAs an SM, split, L2 promotion)
#   GROUPS_=kslope    one-wave tile shapes, time against K: the slope is the mainloop's rate, the intercept the fixed
#                     costs (launch, pipeline fill, writeback), ours against cuBLAS's
#   GROUPS_=onewave   (ran at 26aa8ae; coop128 was reverted after) the 128x128 cooperative tile (forced only) checked, and timed against best's pick on 1-3 wave shapes
#   GROUPS_=ncu1w     (prepared, not run) ncu on one-wave shapes: ours and cuBLAS's kernel, same decomposition (1536x1536x4096 at 132
#                     tiles of 128x144, 512x4096x4096 at 128 tiles of 128x128)
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    tests)
      gpu_tests 200 ;;
    sanitize)  # split 1 (CTA barriers) and 2-8 (cluster barriers)
      for tool in memcheck racecheck synccheck; do
        T 150 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h12,best \
          --shapes 64x8192x256,1x1024x4096,8x4096x4096,40x344x1032,100x1000x520 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
    ring16)
      ab ring16 "$(LAYERS="28672x8192 8192x28672 128256x4096 14336x4096 8192x8192" shapes "1 8 16 32")" ";cps=2;cps=3;cps=4;l2promo=256" ;;
    ring16b)  # the rule as built, against the knobs it replaced
      ab ring16b "$(LAYERS="28672x8192 8192x28672 128256x4096 14336x4096 8192x8192 4096x14336" shapes "1 8 16")" ";split=2,cps=7" ;;
    race1)  # racecheck on the one split-1 shape it flags, each hazard with its threads: the CTA barrier (post=1), the fused
            # copy with cluster barriers (post=0), the plain copy with cluster barriers (post=2: from eb3b6e2's successor; not yet run)
      for post in 1 0 2; do
        LADDER_TUNE=post=$post T 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 6 "$B/ladder" check \
          --steps h12 --shapes 64x8192x256 --seeds 1 > "$L/race1-post$post.log" 2>&1
        echo "post=$post: $(grep -E 'RACECHECK SUMMARY|passed' "$L/race1-post$post.log" | tr '\n' ' ')"
      done ;;
    ring16c)  # the 2-4-wave rule (two CTAs an SM, no split) against the splits at seven an SM it replaced, N beside 28672
      ab ring16c "$(LAYERS="18432x4096 22528x8192 28672x4096 28672x8192 32768x4096 32768x8192" shapes "1 16 32")" \
        ";split=2,cps=7;split=3,cps=7;cps=3" ;;
    fitplain)  # coop_fit's plain copy (Fused::none) against its run-time-epilogue copy (post=0), and checked
      LADDER_TUNE=kernel=coop_fit T 100 "$B/ladder" check --steps best --seeds 2 \
        --shapes 1536x1536x4096,300x1000x520,129x136x64,100x4104x1000,128x14336x4096,2560x2560x2560 > "$L/check-fit.log" 2>&1
      echo "check coop_fit: $(tail -1 "$L/check-fit.log")"
      ab fitplain "128x14336x4096,128x28672x8192,96x28672x8192,128x128256x4096" ";post=0"
      ab fitplain144 "1536x1536x4096,1536x1536x16384,3072x1536x4096" "kernel=coop_fit,width=144;kernel=coop_fit,width=144,post=0"
      ab fitplain208 "2560x2560x2560,2560x2560x8192" "kernel=coop_fit,width=208;kernel=coop_fit,width=208,post=0;" ;;
    rules)  # call 3: the rules as built (2-4 waves at <= 32 tokens; the 2-CTA fitted tile above 128 rows) against the picks they replaced
      ab rules16 "$(LAYERS="18432x4096 22528x8192 28672x8192 32768x4096" shapes "1 16")" ";cps=2;cps=3"
      ab rulesfit "1536x1536x4096,1536x1536x8192,256x14336x4096,192x14336x4096,200x14336x4096" ";kernel=coop;kernel=coop192;kernel=small_m" ;;
    m128)
      S=128x4096x4096,128x14336x4096,128x4096x14336,128x8192x8192,128x1024x8192,128x1024x4096,128x28672x8192
      K=kernel=small_m
      ab m128 "$S" ";$K;$K,cps=1;$K,cps=2;$K,l2promo=256;$K,split=1" ;;
    kslope)
      ab kslope "1536x1536x1024,1536x1536x2048,1536x1536x4096,1536x1536x8192,1536x1536x16384,512x4096x1024,512x4096x2048,512x4096x4096,512x4096x8192,512x4096x16384" \
        ";kernel=coop_fit,width=144;kernel=pingpong;kernel=coop128" ;;
    onewave)  # the 128x128 cooperative tile (cuBLAS's decomposition at one wave), checked, then against best's pick
      LADDER_TUNE=kernel=coop128 T 100 "$B/ladder" check --steps best --seeds 2 \
        --shapes 512x4096x4096,300x1000x520,129x136x64,1x8x8,640x4104x1000,256x8192x8192 > "$L/check-coop128.log" 2>&1
      echo "check coop128: $(tail -1 "$L/check-coop128.log")"
      ab onewave "512x4096x4096,256x8192x8192,512x4096x14336,384x4096x4096,256x4096x4096,512x8192x8192,512x14336x4096,512x28672x8192,1024x4096x4096,2048x2048x4096" \
        ";kernel=coop128;kernel=pingpong" ;;
    ncu1w)
      mkdir -p "$OUT/n"
      for spec in "1536x1536x4096 coop_fit,width=144" "1536x1536x4096 coop192" "512x4096x4096 pingpong"; do
        set -- $spec
        LADDER_TUNE=kernel=$2 T 150 ncu --clock-control none --set full --import-source yes \
          -k "regex:cooperative|pingpong|nvjet|sm90_xmma" --launch-skip 4 --launch-count 2 -f -o "$OUT/n/$1-${2%%,*}" \
          "$B/ladder" bench --steps best --shapes $1 --target-ms 2 --warmup-ms 1 > "$L/ncu-$1-${2%%,*}.log" 2>&1
        ncu -i "$OUT/n/$1-${2%%,*}.ncu-rep" --page details --print-details all > "$OUT/n/$1-${2%%,*}-details.txt" 2>&1
        ncu -i "$OUT/n/$1-${2%%,*}.ncu-rep" --page source --csv --print-source sass > "$OUT/n/$1-${2%%,*}-sass.csv" 2>&1
        grep -E "^  [a-z_]|Duration|Elapsed Cycles|SM Frequency" "$OUT/n/$1-${2%%,*}-details.txt" | head -12 | sed "s/^/$1 $2: /"
        rm -f "$OUT/n/$1-${2%%,*}.ncu-rep"
      done
      tar czf "$OUT/ncu.tgz" -C "$OUT" n && rm -rf "$OUT/n" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
