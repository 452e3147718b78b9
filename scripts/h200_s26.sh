#!/usr/bin/env bash
# The twenty-sixth session's device calls (docs/notes.md, "Twenty-sixth session"):
#   GROUPS_=race    racecheck of small-M alone at the shapes that push, under the defaults, relax=1, post=4 and post=3:
#                   the twenty-fifth session's binary ($OLD, recv_bar initialized after the mainloop in the idle ring)
#                   against HEAD's (recv_bar beside the ring's barriers, initialized at the start); synccheck and the
#                   push's GPU tests and check suite under relax=1,post=4; HEAD against $OLD under relax=1,post=4
#                   (a b b a). Carry build/release/ladder, build/release/tests/ladder_tests, build/ab/ladder-s25.
#   GROUPS_=race2   the racecheck lines alone, then synccheck under the defaults
#   GROUPS_=probe   memcheck's report on the push's bulk copies, placed with ladder_cluster_probe's push variant
#   GROUPS_=resc2   resc=1 (best's residual GEMM with its whole C early): its GPU test, its cost, the MLP (as h200_s25.sh)
#   then the common groups final (check suites, the three suites benched: CSVs in $OUT) and model
#   GROUPS_=defab   the new defaults against relax=0,post=1 (ladder bench --tune, one process, two rounds)
#   GROUPS_=modelab the model (fp16) under the new defaults, the old, and bstatic=1, a b c c b a
#   GROUPS_=verify2 the GPU suite and the sanitizers under the new defaults (relax=1, post=4)
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
OLD=${OLD:-build/ab/ladder-s25}
RACE="16x1000x4104,1x1024x4096,200x512x4096"  # split <= 8: synccheck misreports clusters of more than 8
MID="128x4096x4096,512x1024x4096,128x4096x14336,4x8192x8192,128x8192x8192,256x4096x4096,256x1024x8192,128x1024x8192,512x1024x8192"
REG="1x4096x14336,8x4096x14336,32x4096x14336,1x14336x4096,16x4096x4096,32x1024x8192,64x1024x8192"
SHORT="1x1024x4096,8x1024x4096,16x1024x4096,1x1024x8192,16x1024x8192,1x4096x4096,32x1024x8192,16x4096x4096"
# racecheck <tag> <binary> <tune>: racecheck on small-M's kernels alone over `check --steps best` at $RACE, one line
race() {
  LADDER_TUNE=$3 T 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$2" check --steps best --shapes "$RACE" --seeds 1 > "$L/race-$1.log" 2>&1
  echo "$1 [$3]: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed' "$L/race-$1.log" | tr '\n' ' ' | cut -c1-160)"
}
session_group() {
  case $1 in
    race2)  # the racecheck lines alone (no kernel filter: with one the tool failed on a hardware exception, every run)
      race new-default "$B/ladder" ""
      race old-post4 "$OLD" post=4
      race old-default "$OLD" ""
      race new-pull "$B/ladder" relax=0,post=1
      T 90 compute-sanitizer --tool synccheck --error-exitcode 9 \
        "$B/ladder" check --steps best --shapes "$RACE" --seeds 1 > "$L/sync-new-default.log" 2>&1
      echo "synccheck new default: $(grep -E 'ERROR SUMMARY|passed' "$L/sync-new-default.log" | tr '\n' ' ')" ;;
    race)
      race new-post4 "$B/ladder" post=4
      race new-both "$B/ladder" relax=1,post=4
      race new-post3 "$B/ladder" post=3,relax=1
      race old-post4 "$OLD" post=4
      race old-relax "$OLD" relax=1
      race old-default "$OLD" ""
      race new-default "$B/ladder" ""
      LADDER_TUNE=relax=1,post=4 T 90 compute-sanitizer --tool synccheck --error-exitcode 9 \
        "$B/ladder" check --steps best --shapes "$RACE" --seeds 1 > "$L/sync-new-both.log" 2>&1
      echo "synccheck new relax=1,post=4: $(grep -E 'ERROR SUMMARY|passed' "$L/sync-new-both.log" | tr '\n' ' ')"
      LADDER_TUNE=relax=1,post=4 T 100 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Pdl.*' > "$L/tests-both.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-both.log" | head -8
      LADDER_TUNE=relax=1,post=4 T 90 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-both.log" 2>&1
      echo "smallm relax=1,post=4: $(tail -1 "$L/check-smallm-both.log")"
      AB_A=$OLD abx both "$SHORT" "relax=1,post=4" ;;
    verify2)  # the new defaults: the GPU suite, then the sanitizers on small-M shapes that push (8, 16 tokens) and pull
      gpu_tests 240
      sanitize main 1x1024x4096,16x1000x4104,8x4096x4096,40x344x1032,100x1000x520,200x512x4096 ;;
    probe)  # memcheck's "not located in remote CTA" on the push's bulk copies: the probe's push (a minimal copy of the
            # pattern) plain and under memcheck, with and without the bulk-copy checks; ours likewise; the pull as control
      local P="$B/ladder_cluster_probe --sizes 1,2,4,8 --variants dsmem,push"
      T 30 $P > "$L/probe-plain.log" 2>&1; echo "probe plain:"; grep -E "result" "$L/probe-plain.log" | tr '\n' ' '; echo
      T 90 compute-sanitizer --tool memcheck $P > "$L/probe-memcheck.log" 2>&1
      echo "probe memcheck: $(grep -E 'result=|ERROR SUMMARY' "$L/probe-memcheck.log" | cut -c1-60 | tr '\n' ' ')"
      grep -m3 -E "Invalid|Access to" "$L/probe-memcheck.log"
      T 90 compute-sanitizer --tool memcheck --check-bulk-copy no $P > "$L/probe-memcheck-nobulk.log" 2>&1
      echo "probe memcheck nobulk: $(grep -E 'result=|ERROR SUMMARY' "$L/probe-memcheck-nobulk.log" | cut -c1-60 | tr '\n' ' ')"
      T 90 compute-sanitizer --tool racecheck $P > "$L/probe-racecheck.log" 2>&1
      echo "probe racecheck: $(grep -E 'RACECHECK SUMMARY' "$L/probe-racecheck.log")"
      local S=1x1024x4096,16x1000x4104,200x512x4096
      T 120 compute-sanitizer --tool memcheck --check-bulk-copy no --error-exitcode 9 "$B/ladder" check --steps h12,best --shapes $S --seeds 1 > "$L/mem-nobulk.log" 2>&1
      echo "ours memcheck nobulk: $(grep -E 'ERROR SUMMARY|passed' "$L/mem-nobulk.log" | tr '\n' ' ')"
      LADDER_TUNE=relax=0,post=1 T 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/ladder" check --steps h12,best --shapes $S --seeds 1 > "$L/mem-pull.log" 2>&1
      echo "ours memcheck pull: $(grep -E 'ERROR SUMMARY|passed' "$L/mem-pull.log" | tr '\n' ' ')" ;;
    defab)  # the new defaults against the old (relax=0,post=1) in one process, two rounds; predicted from the H100: the
            # 1024-row layers at 1-16 tokens 0.5-1.3 µs less, the split rows 0.3-0.6 µs less, the 64-128-token tiles unchanged
      ab defaults "$SHORT,$REG,$MID" ";relax=0,post=1" ;;
    modelab)  # the Llama model's fp16 decode and prefill (graphs) under the new defaults (a), the old (b: relax=0,post=1)
              # and every GEMM's weights loaded before the wait (c: bstatic=1), a b c c b a
      local t i=0
      for t in "" relax=0,post=1 bstatic=1 bstatic=1 relax=0,post=1 ""; do
        i=$((i + 1))
        LADDER_TUNE=$t T 100 python3 scripts/llama_model.py --parts fp16 --out "$L/model-$i.json" > "$L/model-$i.log" 2>&1
        echo "[$t] $(grep -E 'ladder(_fused)? +(decode_b(1|8|32)|prefill512_graph)_speedup' "$L/model-$i.log" | awk '{print $2":"$3"="$4}' | sort -u | tr '\n' ' ')"
      done ;;
    *) common_group "$1" ;;
  esac
}
run_groups
