#!/usr/bin/env bash
# The twenty-second session's device calls (docs/notes.md, "Twenty-second session").
#   GROUPS_=boxes     small-M's weight boxes a stage (wbox=1|2) and its token maps' L2 promotion (xpromo), the 64x64
#                     decomposition (wg=1) on the mid-M rows best loses and on decode rows: checks, then interleaved A/Bs
#   GROUPS_=ctx       scripts/prefill_gemms.py in both contexts (hot chain; the model's cold weights), fp16
#   GROUPS_=smoke     the small-M checks and the GPU tests' small-M cases only
#   GROUPS_=pytest    the Python package's tests on the GPU
#   GROUPS_=tests / final / model  the GPU suite; check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
MIDM="128x4096x4096,128x4096x14336,128x8192x8192,256x4096x4096,256x1024x8192,256x1024x4096,512x1024x4096,512x1024x8192"
DECODE="1x4096x4096,1x1024x4096,1x28672x8192,8x14336x4096,16x14336x4096,16x4096x4096,32x4096x14336,64x4096x4096,1x128256x4096"
session_group() {
  case $1 in
    boxes)
      for tune in wbox=1 xpromo=128 wg=1,wbox=1; do
        LADDER_TUNE=$tune T 100 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/check-smallm-$tune.log" 2>&1
        echo "check smallm $tune: $(tail -1 "$L/check-smallm-$tune.log")"
      done
      ab midm "$MIDM" "auto;wbox=1;xpromo=128;wbox=1,xpromo=128;wg=1;wg=1,wbox=1;wg=1,wbox=1,xpromo=128"
      ab decode "$DECODE" "auto;wbox=1;xpromo=128;wbox=1,xpromo=128" ;;
    ctx)
      T 200 python3 scripts/prefill_gemms.py --out "$L/csv/prefill-gemms-fp16.csv" > "$L/prefill-gemms.log" 2>&1; tail -14 "$L/prefill-gemms.log" ;;
    smoke)
      T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      T 200 "$B/tests/ladder_tests" --gtest_filter='*Small*:*small*' > "$L/tests-smallm.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-smallm.log" | head ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
