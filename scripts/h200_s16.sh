#!/usr/bin/env bash
# The sixteenth session's device calls (docs/notes.md, "Sixteenth session").
#   GROUPS_=tests     the full GPU suite (with Pdl.BackToBackChainsMatchSerialRuns)
#   GROUPS_=pdlab     best's kernels with programmatic dependent launch (every family) against pdl=0, on the rows
#                     below cuBLAS at 128-512 tokens, the few-tile and standard shapes, and small-M rows
#   GROUPS_=sanitize  memcheck and synccheck on best's tile kernels (now PDL-launched) and the small-M shapes
#   GROUPS_=sync2     synccheck on smaller shapes of each family
#   GROUPS_=mid       the 1024-row layers at 128-512 tokens (64x64 swapped tiles) and 384 tokens
#   GROUPS_=fit1      the 1-CTA fitted tiles above 128 rows (LADDER_TUNE fitcl=1), checked and timed
#   GROUPS_=odd/odd2  the 1-CTA 128x224 rule at 3 or 5 row blocks, checked and against the families it replaced
#   GROUPS_=narrow128 (prepared, not run: the rule was reverted in 0123fd0) 64x64 tiles at 65-128 tokens on 1024-row layers
#   GROUPS_=post2     small-M's split-1 shapes with post=2 (cluster barriers) against the CTA barrier
#   GROUPS_=race1     racecheck on small-M's split-1 reduce: post=1 (CTA barrier), 0 and 2 (cluster barriers)
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    pdlab)
      ab pdl "128x14336x4096,256x14336x4096,256x8192x8192,256x28672x8192,512x4096x4096,512x14336x4096,512x4096x14336,512x8192x8192,512x8192x28672,1536x1536x4096,2560x2560x2560,2048x2048x2048,1024x1024x1024,3000x5000x2000,4096x4096x4096,384x4096x4096,1x4096x4096,16x14336x4096,256x4096x4096,512x1024x4096,128x4096x4096" \
        ";pdl=0" ;;
    sanitize)  # call 1: memcheck clean on 7 shapes; synccheck ran past 200 s after 4 clean shapes
      for tool in memcheck synccheck; do
        T 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
          --shapes 512x4096x4096,1536x1536x4096,256x8192x8192,128x14336x4096,1536x4096x4096,1x1024x4096,300x1000x520 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
    sync2)  # synccheck on smaller shapes of each family (PDL-launched): coop stream-K, coop_fit, ping-pong, small-M
      T 200 compute-sanitizer --tool synccheck --error-exitcode 9 "$B/ladder" check --steps best \
        --shapes 1536x4096x1024,1536x1536x1024,512x4096x1024,1x1024x4096,300x1000x520,2048x2048x1024 --seeds 1 > "$L/sanitize-sync2.log" 2>&1
      echo "synccheck: $(grep -E 'ERROR SUMMARY|passed' "$L/sanitize-sync2.log" | tr '\n' ' ')" ;;
    mid)  # the 1024-row layers at 128-512 tokens: 64x64 swapped tiles (cuBLAS's decomposition) against the plan; 384 tokens
      ab mid1024 "128x1024x4096,256x1024x4096,384x1024x4096,512x1024x4096,128x1024x8192,256x1024x8192,512x1024x8192" \
        ";kernel=small_m,wg=1;kernel=coop_fit;kernel=pingpong_narrow"
      ab mid384 "384x4096x4096,384x14336x4096,384x8192x8192" ";kernel=coop_fit;kernel=pingpong;kernel=pingpong_narrow;kernel=coop192;kernel=small_m" ;;
    fit1)  # the 1-CTA fitted tiles above 128 rows (fitcl=1: an odd count of 128-row blocks wastes no half-empty cluster row)
      LADDER_TUNE=kernel=coop_fit,fitcl=1 T 100 "$B/ladder" check --steps best --seeds 2 \
        --shapes 384x14336x4096,300x1000x520,385x4104x1000,640x8192x8192,200x3000x2000 > "$L/check-fit1.log" 2>&1
      echo "check fitcl=1: $(tail -1 "$L/check-fit1.log")"
      F=kernel=coop_fit,fitcl=1
      ab fit1 "384x4096x4096,384x14336x4096,384x8192x8192,384x4096x14336,384x28672x8192,640x4096x4096,640x14336x4096,200x14336x4096,1536x1536x4096,2560x2560x2560,256x14336x4096,512x4096x4096" \
        ";$F,width=64;$F,width=112;$F,width=224;kernel=coop_fit" ;;
    odd)  # the odd-row rule (1-CTA 128x224 where 2-CTA kernels leave half a cluster row empty): checked, then auto against the
          # families it replaced, on shapes outside the suites
      T 150 "$B/ladder" check --steps best --seeds 2 \
        --shapes 384x28672x8192,640x14336x4096,385x8192x8192,1152x8192x8192,383x4096x4104,641x1000x4096 > "$L/check-odd.log" 2>&1
      echo "check odd: $(tail -1 "$L/check-odd.log")"
      ab odd "384x28672x8192,384x8192x8192,384x14336x4096,640x14336x4096,640x28672x8192,384x128256x4096,896x4096x4096,1152x8192x8192,1408x4096x14336,640x8192x8192,384x4096x4096,200x14336x4096" \
        ";kernel=pingpong;kernel=coop;kernel=coop_fit" ;;
    odd2)  # 10ec0a8's rule (3 or 5 blocks only): 1152 rows back on the 2-CTA kernels
      ab odd2 "384x28672x8192,1152x8192x8192,640x14336x4096,384x8192x8192" ";kernel=coop" ;;
    narrow128)  # 64x64 tiles at 65-128 tokens on the 1024-row layers (the rule), checked and against 128x128 (wg=2)
      T 100 "$B/ladder" check --steps best,h12 --seeds 2 \
        --shapes 128x1024x4096,128x1024x8192,96x1000x4104,65x1024x1032,100x777x2056,128x1024x14336 > "$L/check-narrow128.log" 2>&1
      echo "check narrow128: $(tail -1 "$L/check-narrow128.log")"
      ab narrow128 "128x1024x4096,128x1024x8192,96x1024x4096,80x1024x8192,128x1024x14336" ";wg=2" ;;
    post2)  # call 2: racecheck is clean with post=2 (plain copy, cluster barriers at split 1); its time on split-1 shapes
      ab post2 "1x14336x4096,16x14336x4096,32x14336x4096,64x14336x4096,1x28672x8192,16x28672x8192,1x128256x4096,16x128256x4096,8x8192x28672,128x128256x4096" ";post=2" ;;
    race1)
      for post in 1 0 2; do
        LADDER_TUNE=post=$post T 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 6 "$B/ladder" check \
          --steps h12 --shapes 64x8192x256 --seeds 1 > "$L/race1-post$post.log" 2>&1
        echo "post=$post: $(grep -E 'RACECHECK SUMMARY|passed' "$L/race1-post$post.log" | tr '\n' ' ')"
      done ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
