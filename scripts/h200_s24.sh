#!/usr/bin/env bash
# The twenty-fourth session's device calls (docs/notes.md, "Twenty-fourth session"). The session had no machine: these
# are prepared for the next one. Builds: build/release (HEAD), build/ab/ladder-p0 (HEAD before the maps' prefetch:
# b294bb0's kernels = 1d4860c's), build/ab/ladder-h (fb1244b: the whole-warp producer for every tile). Rebuild the
# two under build/ab/ with `git worktree add /tmp/w <commit>` and a release build there (build/ab/ is not kept).
#   GROUPS_=verify    best's check suites, small-M with wbox=2, the sanitizers on small-M shapes, the GPU tests
#                     (carry build/release/ladder and build/release/tests/ladder_tests)
#   GROUPS_=pf        the maps' prefetch: ladder-p0 (a) against HEAD (b), a b b a, on the short decode GEMMs where a
#                     fixed cost shows (the 1024-row layers, 4096x4096), the regression set and the tile families'
#                     shapes (their kernels prefetch A's and B's maps too) (carry ladder, ladder-p0)
#                     then LADDER_TUNE relax=1 (the last cluster barrier without its release fence), checked and
#                     timed against HEAD's default in one process
#   GROUPS_=push      LADDER_TUNE post=3 (small-M's partials pushed to their owners by bulk copy): its GPU test and the
#                     PDL chains, the small-M and decode check suites and the sanitizers under it, then timed against
#                     the default in one process (carry ladder and tests/ladder_tests)
#   GROUPS_=resc      LADDER_TUNE resc=1 (best's cooperative residual GEMM loads its whole C before the mainloop):
#                     the GPU test, the v2/torch check (coop forced and through best), the residual's cost and the
#                     MLP against resc=0 (carry ladder_tests, libladder.so*)
#   GROUPS_=ncukv     ncu of one launch at 1x1024x4096 and 16x1024x8192: default, post=3, relax=1, cuBLAS (carry ladder)
#   GROUPS_=bstatic   LADDER_TUNE bstatic=1 (every GEMM's B static: the weights' first stages before griddepcontrol.wait),
#                     the short decode rows in one process and the Llama model's decode against bstatic=0 (carry
#                     ladder, libladder.so*)
#   GROUPS_=prodrev   the twenty-third session's producer split: ladder-h (a) against ladder-p0 (b); then wbox=2 on
#                     ladder-p0 at 32x1024x8192 and its neighbours (carry ladder-h and ladder-p0 only)
#   GROUPS_=tests / final / model  the GPU suite; check suites and the three suites re-benched; the Llama model
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
MID="128x4096x4096,512x1024x4096,128x4096x14336,4x8192x8192"
REG="1x4096x14336,8x4096x14336,32x4096x14336,1x14336x4096,16x4096x4096,32x1024x8192,64x1024x8192,512x1024x8192"
FAM="1024x1024x1024,512x4096x4096,2048x2048x2048,4096x4096x4096,1536x1536x4096,512x14336x4096"
SHORT="1x1024x4096,8x1024x4096,16x1024x4096,64x1024x4096,1x1024x8192,16x1024x8192,1x4096x4096,128x1024x4096,256x1024x4096"
session_group() {
  case $1 in
    pf)  # predicted: up to ~0.5 µs less a GEMM where the kernel is short (5-10 µs), nothing measurable on the long ones
      T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      AB_A=build/ab/ladder-p0 abx pf "$SHORT,$REG,$FAM" ""
      # the last cluster barrier arriving relaxed, in one process (predicted: 0.1-0.5 µs less where split > 1)
      LADDER_TUNE=relax=1 T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-relax.log" 2>&1; echo "relax=1: $(tail -1 "$L/check-smallm-relax.log")"
      ab relax "$SHORT,$REG" ";relax=1" ;;
    push)  # post=3: the partials pushed to their owners by bulk copy. Checked (GPU test, check suites, sanitizers), then timed
      T 120 "$B/tests/ladder_tests" --gtest_filter='SmallM.PushedPartialsGiveThePulledBits:Pdl.*' > "$L/tests-push.log" 2>&1; grep -E "OK|FAILED|PASSED" "$L/tests-push.log" | tail -4
      LADDER_TUNE=post=3 T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-push.log" 2>&1; echo "post=3 smallm: $(tail -1 "$L/check-smallm-push.log")"
      LADDER_TUNE=post=3 T 100 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode-push.log" 2>&1; echo "post=3 decode: $(tail -1 "$L/check-decode-push.log")"
      export LADDER_TUNE=post=3; sanitize push 1x1024x4096,16x1000x4104,40x2048x4096,100x1024x8192,200x512x4096; unset LADDER_TUNE
      ab push "$SHORT,$REG,$MID,128x8192x8192,256x4096x4096,256x1024x8192,128x1024x8192" ";post=3" ;;
    resc)  # the residual's whole C before the mainloop (resc=1): checked, then the down GEMM and the MLP against resc=0
      T 120 "$B/tests/ladder_tests" --gtest_filter='Cooperative.WholeResidualEarlyGivesTheSameBits' > "$L/tests-resc.log" 2>&1; grep -E "OK|FAILED|PASSED" "$L/tests-resc.log" | tail -3
      LADDER_TUNE=kernel=coop,resc=1 T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-coop-resc.csv" > "$L/check-v2-coop-resc.log" 2>&1; tail -1 "$L/check-v2-coop-resc.log"
      LADDER_TUNE=resc=1 T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-resc.csv" > "$L/check-v2-resc.log" 2>&1; tail -1 "$L/check-v2-resc.log"
      knob_ab resc 0 1 2048x16384x4096,2048x4096x14336,8192x4096x14336 200 ;;
    ncukv)  # where a short decode GEMM's time goes, one launch each under ncu (no PDL overlap): default, post=3,
            # relax=1, and cuBLAS's kernel; read with dev/2026-12-03-s20/call1/analysis/ (regions.py, metrics_table.py)
      ncu_compare ncukv1 1x1024x4096 "auto::regex:small_m" "push:post=3:regex:small_m" "relax:relax=1:regex:small_m" "cublas::regex:nvjet|gemv|gemm"
      ncu_compare ncukv16 16x1024x8192 "auto::regex:small_m" "push:post=3:regex:small_m" "cublas::regex:nvjet|gemv|gemm" ;;
    bstatic)  # every GEMM's weights taken as static (bstatic=1: small-M fills its ring with weights before the wait):
              # the short decode rows in one process (the bench's B is never written), then the model's decode
      LADDER_TUNE=bstatic=1 T 150 "$B/ladder" check --steps h13,best --suite smallm --seeds 1 > "$L/check-smallm-bstatic.log" 2>&1; echo "bstatic=1: $(tail -1 "$L/check-smallm-bstatic.log")"
      ab bstatic "$SHORT,$REG" ";bstatic=1"
      local b
      for b in 0 1; do
        LADDER_TUNE=bstatic=$b T 280 python3 scripts/llama_model.py --parts fp16 --out "$L/llama-bstatic$b.json" > "$L/llama-bstatic$b.log" 2>&1
        echo "model bstatic=$b"; tail -12 "$L/llama-bstatic$b.log" | cut -c1-150
      done ;;
    prodrev)
      AB_A=build/ab/ladder-h AB_B=build/ab/ladder-p0 abx prodrev "$REG,$MID,256x4096x4096,2x4096x4096,64x4096x4096,256x1024x4096,128x8192x8192,16x14336x4096,64x28672x8192" ""
      AB_BIN=build/ab/ladder-p0 ab prodwbox "32x1024x8192,64x1024x8192,1x1024x8192,16x1024x8192,32x1024x4096,1x4096x14336,128x4096x4096" ";wbox=2" ;;
    *) common_group "$1" ;;  # tests, verify, final, model
  esac
}
run_groups
