#!/usr/bin/env bash
# The twenty-fifth session's device calls: the twenty-fourth session's knobs timed first (their A/B runs are short),
# then their checks (docs/notes.md, "Twenty-fifth session"). The groups of h200_s24.sh, in fewer, shorter calls:
#   GROUPS_=knobs   post=3, relax=1 and both against the default, one process (small-M's push and relaxed barrier);
#                   bstatic=1 against the default; the maps' prefetch: ladder-p0 (a) against HEAD (b), a b b a
#                   (carry build/release/ladder, build/ab/ladder-p0)
#   GROUPS_=resc2   resc=1: its GPU test, the residual's cost at 2048x16384x4096 and the MLP against resc=0
#                   (carry build/release/tests/ladder_tests, build/release/libladder.so*)
#   GROUPS_=verify  as h200_s24.sh, plus the push's GPU test and the PDL chains (carry ladder, tests/ladder_tests)
#   GROUPS_=newdef  after the knobs call: relax=1 and the push at token tiles <= 16 made the default; the GPU suite, the
#                   check suites, the sanitizers, and HEAD against ladder-p0 (carry ladder, tests/ladder_tests, ladder-p0)
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
MID="128x4096x4096,512x1024x4096,128x4096x14336,4x8192x8192,128x8192x8192,256x4096x4096,256x1024x8192,128x1024x8192,512x1024x8192"
REG="1x4096x14336,8x4096x14336,32x4096x14336,1x14336x4096,16x4096x4096,32x1024x8192,64x1024x8192"
FAM="1024x1024x1024,512x4096x4096,4096x4096x4096,1536x1536x4096"
SHORT="1x1024x4096,8x1024x4096,16x1024x4096,64x1024x4096,1x1024x8192,16x1024x8192,1x4096x4096,128x1024x4096,256x1024x4096"
session_group() {
  case $1 in
    knobs)
      # predicted: post=3 0.3-0.8 µs on the k/v layers at 1-16 tokens, 1-2 µs on the split mid-M rows; relax=1 0.1-0.5 µs
      # where split > 1; bstatic=1: the weights' stream overlapping the launch (back-to-back bench calls); the prefetch up
      # to ~0.5 µs on the short GEMMs
      ab push "$SHORT,$REG,$MID" ";post=3;relax=1;post=3,relax=1"
      ab bstatic "$SHORT,$REG" ";bstatic=1"
      AB_A=build/ab/ladder-p0 abx pf "$SHORT,$REG,$FAM" "" ;;
    pushtests)
      T 120 "$B/tests/ladder_tests" --gtest_filter='SmallM.PushedPartialsGiveThePulledBits:Pdl.*' > "$L/tests-push.log" 2>&1; grep -E "OK|FAILED|PASSED" "$L/tests-push.log" | tail -6
      LADDER_TUNE=post=3,relax=1 T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-push.log" 2>&1; echo "post=3,relax=1 smallm: $(tail -1 "$L/check-smallm-push.log")" ;;
    newdef)  # the new defaults (relax on, the push at token tiles <= 16): the GPU suite, the small-M and decode check
             # suites, the sanitizers on small-M shapes that push and pull, then HEAD against ladder-p0 (a b b a)
      gpu_tests 200
      T 120 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; echo "smallm: $(tail -1 "$L/check-smallm.log")"
      T 80 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode.log" 2>&1; echo "decode: $(tail -1 "$L/check-decode.log")"
      sanitize newdef 1x1024x4096,16x1000x4104,200x512x4096
      AB_A=build/ab/ladder-p0 abx newdef "$SHORT,$REG,128x1024x8192,256x4096x4096" "" ;;
    newdef2)  # the candidate defaults (relax=1,post=4) in under 300 s: the small-M and PDL GPU tests (they set their own
              # tunings), the small-M check suite, racecheck and synccheck, under LADDER_TUNE=relax=1,post=4
      export LADDER_TUNE=relax=1,post=4
      T 110 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Pdl.*:*Determin*:*BitIdentical*' > "$L/tests-newdef.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-newdef.log" | head -8
      T 90 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; echo "smallm: $(tail -1 "$L/check-smallm.log")"
      local tool
      for tool in racecheck synccheck; do
        T 50 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best --shapes 1x1024x4096,16x1000x4104,200x512x4096 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ' | cut -c1-200)"
      done
      unset LADDER_TUNE ;;
    *) common_group "$1" ;;  # tests, verify, final, model
  esac
}
run_groups
