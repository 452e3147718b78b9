#!/usr/bin/env bash
# The thirty-fourth session's device calls (docs/notes.md, "Thirty-fourth session"); other groups run through
# h200_s33.sh and the earlier scripts (GROUPS_ as there, one at a time).
#   GROUPS_=tok96  small-M's 96-token tile against its 128-token tile at 320-512 tokens, two rounds, interleaved with
#                  cuBLAS. On an H100 (s33 call 4) 96 won by up to 22 % where the 128-token tiles leave SMs idle and
#                  K <= 8192 (384×3072×4096 22.3 against 28.6 µs) and lost at K = 14336 and on two-wave shapes
#                  (320×4096×14336 99 against 88; 28672×4096; 5120×5120). fitted_tokens keeps 96 to <= 288 tokens from
#                  s19's H200 data (older kernels): this asks the H200 the same question. Predicted: the H100's
#                  pattern, 96 ahead where 128's tiles fill under ~3/4 of a wave, behind where they fill one or more.
#                  With cps=1: the 96 tile's ring sized for one CTA an SM (7 stages) where 4·W >= 3/4 of the SMs gets
#                  it sized for two (3 stages) though 4·W <= 132 CTAs could each have an SM (384×4096×14336: 128).
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    tok96)
      ab tok96 "$(LAYERS="4096x4096 14336x4096 4096x14336 3584x18944 3584x3584 8192x8192 1024x4096 3072x4096 2048x8192 28672x4096 5120x5120 1536x1536" shapes "320 384")" \
        ";kernel=small_m,tok=96;kernel=small_m,tok=128;kernel=small_m,tok=96,cps=1"
      ab tok96b "$(LAYERS="4096x4096 3072x4096 2048x8192 1024x8192 2048x4096 3584x3584 6144x4096" shapes "256 448 512")" \
        ";kernel=small_m,tok=96;kernel=small_m,tok=128" ;;
    mid512)
      # 448-512 tokens: best's pick against the tile kernels it chooses among, and the 96-token tile, two rounds. s32's
      # call 5 (H200, one pass) had the pick behind a forced kernel at 512×3072×4096 (28.5 against the ping-pong's
      # 25.8), 512×2048×2048 (12.4 against the narrow ping-pong's 10.5) and 512×1024×2048 (9.2 against deep64's 8.6).
      ab mid512 "$(LAYERS="3072x4096 2048x2048 1024x2048 2048x4096 1536x4096 3584x3584 4096x4096 1024x4096 2560x2560" shapes "448 512")" \
        ";kernel=pingpong;kernel=pingpong_narrow;kernel=pingpong_deep;kernel=pingpong_deep64;kernel=small_m,tok=96" ;;
    under1)
      # The decode suite's rows under 1.0× at 64-512 tokens (README, 8debbdb), best's pick against small-M's knobs: the
      # 64×64 tiles' weight multicast (mc=2: each CTA asks L2 for 32 + 64 rows a K-tile against 64 + 64; measured on an
      # H100 only, s30: faster at 256×1536-2048×4096, slower on the 1024-row layers), one or two warpgroups, the
      # 96-token tile, one CTA an SM. Two rounds.
      ab under1 "64x4096x4096,128x4096x4096,128x1024x4096,128x8192x8192,128x4096x14336,256x1024x8192,256x4096x4096,256x1024x4096,512x1024x4096,512x1024x8192,64x1024x8192,128x1024x8192" \
        ";mc=2;kernel=small_m,wg=1;kernel=small_m,wg=2;kernel=small_m,tok=96;kernel=small_m,cps=1" ;;
    rule96)
      # The rule built before the answer (fitted_tokens: four 96-token tiles where they fill <= 7/8 of the SMs; branch
      # wip/s34-tok96, or dev/2026-12-05-s34/tok96-rule.patch on main: a binary built from it): its GPU test (best's
      # pick in the trace at 384×3072×4096 and 384×4096×14336, forced 96s on ragged shapes, references). With that
      # binary, `tok96`'s auto column is the rule's pick.
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.FittedTokenTiles*' > "$L/tests-rule96.log" 2>&1
      grep -E "OK \]|FAILED|Failure" -A3 "$L/tests-rule96.log" | head -8 ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s33.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
