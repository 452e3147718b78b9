#!/usr/bin/env bash
# The twenty-seventh session's device calls (docs/notes.md, "Twenty-seventh session"):
#   GROUPS_="final model"  publish the defaults of c2175a5 on the H200 (check suites, the three suites benched, the model)
#   GROUPS_=sweep          every decode row below 1.0x (H200, call 1) and the 1024-row layers under best's other
#                          kernels and small-M's splits and tiles (ladder bench --tune, one process, two rounds)
#   GROUPS_=old            26d3c3b's binary ($OLD, build/ab/ladder-26d) against HEAD's, a b b a, on the rows that moved
#                          between the two published passes (512x1024x4096 14.2 -> 16.1 us) and their neighbours
#   GROUPS_=dres           the deferred residual (LADDER_TUNE defer=2): the cooperative GPU tests, the v2/torch check of the
#                          deferred set and of every case under it, the residual's cost over the plain GEMM (defer 1 2 2 1)
#                          and issue 12's MLP under each (no compile baselines)
#   GROUPS_=dverify        the deferred residual as the default: the GPU suite, the Python GPU tests, and compute-sanitizer
#                          on the cooperative tile's deferred copies (scripts/sanitize_epilogue.py --deferred)
#   GROUPS_=torch          issue 12's MLP and Linear+bias+GELU (no compile baselines) at HEAD
#   GROUPS_=pdl            the PDL and small-M GPU tests (the chain's push trace check and 32-token case, unrun on a GPU
#                          until now) and the rewritten probe's push variant, plain
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    pdl)
      T 120 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Pdl.*' > "$L/tests-pdl.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-pdl.log" | head -8
      T 30 "$B/ladder_cluster_probe" --sizes 1,2,4,8 --variants dsmem,push > "$L/probe-plain.log" 2>&1
      echo "probe: $(grep -c "result=ok" "$L/probe-plain.log") ok, $(grep -c "result=WRONG" "$L/probe-plain.log") wrong"; grep "result=" "$L/probe-plain.log" | cut -c1-80 | head -8 ;;
    sweep)  # predicted: most rows within 3 % of auto; a win only where a tile the rules exclude is faster
      local LOW="32x14336x4096,64x14336x4096,128x4096x4096,128x14336x4096,128x4096x14336,128x8192x8192,128x1024x8192,256x4096x4096,256x8192x8192,256x1024x8192,512x1024x4096,512x1024x8192,512x4096x14336"
      ab low "$LOW" ";relax=0,post=1;tok=128;tok=128,split=2;tok=128,split=4;tok=64;wg=1;kernel=pingpong;kernel=pingpong_narrow;kernel=coop;kernel=coop1;kernel=coop_fit"
      ab kv "16x1024x4096,16x1024x8192,8x1024x4096,1x1024x4096,8x14336x4096,16x14336x4096" ";split=2;split=4;split=8;split=16;stages=8;cps=2;wbox=2;l2promo=256" ;;
    old)  # predicted: 512x1024x4096 16 us in both if the change is the run's, 14 against 16 if it is the code's
      AB_A=${OLD:-build/ab/ladder-26d} abx old "512x1024x4096,256x1024x4096,128x4096x4096,512x1024x8192,1x1024x4096,16x1024x4096,16x14336x4096,32x14336x4096,1x4096x14336" "" ;;
    dres)  # predicted: the residual's cost at 2048x16384x4096 from +4.3-4.8 % to ~+1 % (the deferred SwiGLU's +0.7 %), the
           # MLP +1-1.5 % at 2048 and 8192 tokens (its down GEMM a third of it), 512 tokens unchanged (the ping-pong)
      T 150 "$B/tests/ladder_tests" --gtest_filter='Cooperative.*' > "$L/tests-coop.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-coop.log" | head -6
      LADDER_TUNE=kernel=coop,defer=2 T 150 python3 scripts/check_v2_torch.py --set deferred --csv "$L/csv/check-v2-dres.csv" > "$L/check-v2-dres.log" 2>&1
      echo "v2 deferred set, defer=2: $(tail -1 "$L/check-v2-dres.log")"; grep -E "^FAIL" "$L/check-v2-dres.log" | head -3
      LADDER_TUNE=defer=2 T 150 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-all-dres.csv" > "$L/check-v2-all-dres.log" 2>&1
      echo "v2 all, defer=2: $(tail -1 "$L/check-v2-all-dres.log")"
      knob_ab defer 1 2 2048x16384x4096 100 ;;
    dverify)
      gpu_tests 240
      PYTHONPATH=$PWD/python T 200 python3 -m pytest -q -x python/tests/test_gpu_ops.py python/tests/test_gpu_torch.py \
        > "$L/pytest-gpu.log" 2>&1; tail -3 "$L/pytest-gpu.log"
      local tool
      for tool in memcheck racecheck synccheck; do
        LADDER_TUNE=kernel=coop T 240 compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sanitize_epilogue.py \
          --deferred > "$L/sanitize-deferred-$tool.log" 2>&1
        echo "deferred $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-deferred-$tool.log" | tr '\n' ' ')"
      done ;;
    torch)
      T 200 python3 scripts/torch_bench.py --no-compile --out "$OUT/torch-bench.json" > "$L/torch.log" 2>&1
      tail -24 "$L/torch.log" | cut -c1-150 ;;
    *) common_group "$1" ;;
  esac
}
run_groups
