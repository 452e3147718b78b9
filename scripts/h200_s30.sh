#!/usr/bin/env bash
# The thirtieth session's device calls (docs/notes.md, "Thirtieth session"); other groups run through h200_s29.sh and
# h200_s28.sh (GROUPS_ as there, one at a time):
#   GROUPS_=mc64   the 64×64 tile's weights multicast to two token tiles (LADDER_TUNE wg=1,mc=2; cuBLAS's k/v kernel is
#                  this geometry: 64×64 tiles, 128 CTAs, clusters of 2): its GPU test, the check suite forced, the
#                  suite's shapes a b b a against best and the unicast 64×64 tile, and k/v in the model's context.
#                  Predicted (L2's output: 128 → 96 MB read out of L2 at 512×1024×4096): 15.3 → ~12 µs at the 64×64 tile
#   GROUPS_=pdlab  the flushed suite's rows with PDL off (pdl=0) against best: does the flush kernel's overlap flatter
#                  small-M there (the suite's 14.6 µs at 512×1024×4096 against 18.4 under ncu)?
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    mc64)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.Multicast*' > "$L/mc64-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|differ" "$L/mc64-tests.log" | head -12
      LADDER_TUNE=wg=1,mc=2 T 150 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/mc64-check-smallm.log" 2>&1
      echo "wg=1,mc=2 smallm: $(tail -1 "$L/mc64-check-smallm.log")"
      ab mc64 "512x1024x4096,384x1024x4096,256x1024x4096,128x1024x4096,512x1024x2048,128x4096x4096,256x2048x4096,128x2048x4096,512x1024x3072" \
        ";wg=1,mc=1;wg=1,mc=2"
      GROUPS_=pctx PCTX=";wg=1,mc=1;wg=1,mc=2;;wg=1,mc=2" PLAYERS=k/v bash "$(dirname "$0")/h200_s29.sh" | grep -v "^==" ;;
    pdlab)
      ab pdl "512x1024x4096,256x1024x4096,512x1024x8192,1x4096x4096,8x1024x8192,128x4096x4096" ";pdl=0" ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s29.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
