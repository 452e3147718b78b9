#!/usr/bin/env bash
# The eighteenth session's device calls (docs/notes.md, "Eighteenth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=offsuite   shapes outside the suites (other models' layers at 96-4096 tokens): best against cuBLAS and
#                      each tile family forced, one round (logs/offsuite-<M>-summary.txt, M in $MS); the small-M kernel up to 640
#   GROUPS_=coop1      the 1-CTA 128x256 cooperative tile with stream-K, forced: checked, and against auto and the 2-CTA
#                      cooperative kernel on the off-suite shapes ($MS) and the suites' 128-512-token rows and few-tile shapes
#   GROUPS_=rule1      best's coop1 rule (ad302f1): GPU tests it touches, check, and A/B against the families it displaced
#   GROUPS_=offauto    the off-suite shapes through best alone
#   GROUPS_=fit3k      the 2-CTA fitted tile forced at K = 3072-3584, 2 and 4 blocks of 128 rows, against auto
#   GROUPS_=sktests    the GPU tests of stream-K, PDL chains and the fitted tiles
#   GROUPS_=odd        the row-synchronous coop1 forced at 3 and 5 blocks of 128 rows, against auto
#   GROUPS_=outdecode  scripts/shapes/outside-decode.txt (1-32 tokens) through best against cuBLAS
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
# Other models' linear layers (N x K): Qwen2.5-7B (3584; kv 512; gate+up 37888; down), Llama-2-13B (5120, 13824),
# Phi-3-mini (3072: qkv 9216, gate+up 16384, down), a fused q/k/v of Llama-3-8B (6144x4096).
OFF_LAYERS="3584x3584 512x3584 37888x3584 3584x18944 5120x5120 13824x5120 5120x13824 9216x3072 16384x3072 3072x8192 6144x4096"
# Shapes coop1's rule takes (65-128 tokens with a wave of 1-CTA tiles; 5 blocks of 128 rows with 9/10 of one).
RULE1="640x28672x8192,128x128256x4096,96x128256x4096,80x128256x4096,128x152064x3584,100x37888x3584,128x37888x3584,72x57344x8192,\
640x28672x8192,600x14336x4096,520x13824x5120,640x14336x4096,640x6144x4096,560x9216x3072,640x37888x3584,640x16384x3072,600x128256x4096"
# one_round <name> <shapes> <candidates>: `ladder bench --tune`, one round, then the summary.
one_round() {
  T 240 "$B/ladder" bench --steps best --shapes "$2" --tune "$3" --target-ms ${TMS:-10} --warmup-ms 5 \
    --csv "$L/csv/$1.csv" > "$L/$1.log" 2>&1
  summary "$L/csv/$1.csv" | tee "$L/$1-summary.txt"
}
session_group() {
  case $1 in
    offsuite)  # one CSV per token count ($MS), so a timeout loses one
      for m in ${MS:-96 192 384 640}; do
        c=";kernel=coop;kernel=pingpong;kernel=coop_fit"; [ "$m" -le 640 ] && c="$c;kernel=small_m"
        one_round "offsuite-$m" "$(LAYERS="$OFF_LAYERS" shapes "$m")" "$c"
      done ;;
    coop1)  # the 1-CTA 128x256 cooperative tile with stream-K (LADDER_TUNE kernel=coop1): checked, then timed
      LADDER_TUNE=kernel=coop1 T 150 "$B/ladder" check --steps best --seeds 2 \
        --shapes 65x1000x520,96x5120x5120,192x9216x3072,200x777x2056,384x3584x3584,640x3584x18944,1000x1000x1000,1536x1536x4096,300x2000x4100,2560x2560x2560,17x4096x4096 > "$L/check-coop1.log" 2>&1
      echo "check coop1: $(tail -1 "$L/check-coop1.log")"
      for m in ${MS:-96 192 384 640 1000 2048}; do
        one_round "coop1-$m" "$(LAYERS="$OFF_LAYERS" shapes "$m")" ";kernel=coop1;kernel=coop"
      done
      one_round coop1-suite "$(LAYERS="$LAYERS" shapes "128 256 512"),1536x1536x4096,2560x2560x2560,256x20480x4096,200x28672x8192" ";kernel=coop1;kernel=coop" ;;
    rule1)  # best's coop1 rule: the GPU tests it touches, a check of shapes it takes, and it against the families it displaced
      T 300 "$B/tests/ladder_tests" --gtest_filter='StreamK.*:Pdl.*:CoopFit.*:Best.*' > "$L/tests-rule1.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-rule1.log" | head
      T 150 "$B/ladder" check --steps best --seeds 2 --shapes $RULE1 > "$L/check-rule1.log" 2>&1
      echo "check rule1: $(tail -1 "$L/check-rule1.log")"
      ab rule1 "$RULE1" ";kernel=coop;kernel=pingpong;kernel=small_m;kernel=coop_fit,fitcl=1,width=224" ;;
    offauto)  # the off-suite shapes through best alone (one CSV a token count)
      for m in ${MS:-96 192 384 640 1000 2048}; do one_round "offauto-$m" "$(LAYERS="$OFF_LAYERS" shapes "$m")" ""; done ;;
    fit3k)  # the 2-CTA fitted tile at K = 3072-3584 (best takes it from K = 4096), 2 and 4 blocks of 128 rows
      ab fit3k "192x9216x3072,256x9216x3072,192x16384x3072,256x16384x3072,512x9216x3072,448x9216x3072,512x16384x3072,256x3584x3584,192x37888x3584,256x37888x3584,512x37888x3584,256x6144x3072" ";kernel=coop_fit" ;;
    sktests)  # the GPU tests of stream-K, PDL chains and the fitted tiles
      T 300 "$B/tests/ladder_tests" --gtest_filter='StreamK.*:Pdl.*:CoopFit.*' > "$L/tests-sk.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-sk.log" | head ;;
    odd)  # the row-synchronous 1-CTA tile (coop1) forced at 3 and 5 blocks of 128 rows, against auto
      ab odd "640x28672x8192,384x28672x8192,384x128256x4096,384x8192x8192,384x14336x4096,384x4096x14336,640x4096x14336,640x8192x28672,384x8192x28672,640x14336x4096,384x5120x13824,640x3584x18944,640x3072x8192,384x13824x5120,640x5120x13824,384x3072x8192,320x14336x4096,600x4096x4096,300x8192x8192" ";kernel=coop1" ;;
    outdecode)
      T 200 "$B/ladder" bench --steps best --shapes "$(cat scripts/shapes/outside-decode.txt)" --target-ms 20 --warmup-ms 10 \
        --csv "$L/csv/outdecode.csv" > "$L/outdecode.log" 2>&1; tail -3 "$L/outdecode.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
