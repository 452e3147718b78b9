#!/usr/bin/env bash
# The twenty-second session's device calls (docs/notes.md, "Twenty-second session").
#   GROUPS_=boxes     small-M's weight boxes a stage (wbox=1|2) and its token maps' L2 promotion (xpromo: 9f0eb67's key,
#                     removed after call 2 measured nothing), the 64x64
#                     decomposition (wg=1) on the mid-M rows best loses and on decode rows: checks, then interleaved A/Bs
#   GROUPS_=prodab    small-M's whole-warp producer, one weight box and descriptors advanced by adds (and the tile
#                     families' ring descriptors) against the build before (build/ab/ladder-a, 9f0eb67): both
#                     binaries benched in turn; the SASS of each family's kernels
#   GROUPS_=prodcheck best's check suites and the small-M suite with the two weight boxes
#   GROUPS_=sanit     memcheck, racecheck, synccheck on small-M's shapes
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
TILES="512x4096x4096,1536x1536x4096,256x8192x8192,2048x16384x4096,4096x4096x4096,2048x28672x4096,2048x4096x14336,128x14336x4096"
DECODE="1x4096x4096,1x1024x4096,1x28672x8192,8x14336x4096,16x14336x4096,16x4096x4096,32x4096x14336,64x4096x4096,1x128256x4096"
session_group() {
  case $1 in
    boxes)
      for tune in ${CHECK_TUNES-wbox=1 xpromo=128 wg=1,wbox=1}; do
        LADDER_TUNE=$tune T 100 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/check-smallm-$tune.log" 2>&1
        echo "check smallm $tune: $(tail -1 "$L/check-smallm-$tune.log")"
      done
      ab midm "$MIDM" ";wbox=1;xpromo=128;wbox=1,xpromo=128;wg=1;wg=1,wbox=1;wg=1,wbox=1,xpromo=128"
      ab decode "$DECODE" ";wbox=1;xpromo=128;wbox=1,xpromo=128" ;;
    prodab)  # the A/B first: both binaries in turn on the mid-M and decode rows (small-M) and on tile shapes
      abx prod "$MIDM,$DECODE" ";wg=1"
      abx tiles "$TILES" ""
      for bin in build/ab/ladder-a $B/ladder; do  # the kernels' SASS: what each K-tile's loop issues
        cuobjdump -sass "$bin" > "$L/sass-$(basename $bin).txt" 2>/dev/null
        for fam in small_m pingpong cooperative; do
          awk -v f=$fam '/Function : /{on = index($0, f) > 0} on' "$L/sass-$(basename $bin).txt" > "$L/sass-$fam.tmp"
          echo "$(basename $bin) $fam: $(grep -c UTMALDG "$L/sass-$fam.tmp") UTMALDG, $(grep -c ELECT "$L/sass-$fam.tmp") ELECT, $(grep -c R2UR "$L/sass-$fam.tmp") R2UR, $(grep -c S2UR "$L/sass-$fam.tmp") S2UR, $(grep -c HGMMA "$L/sass-$fam.tmp") HGMMA"
        done
        rm -f "$L"/sass-*.tmp
      done
      rm -f "$L"/sass-*.txt ;;  # 8 MB each: the counts above are the record
    prodcheck)
      check_suites
      LADDER_TUNE=wbox=2 T 100 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-wbox2.log" 2>&1; echo "wbox=2: $(tail -1 "$L/check-smallm-wbox2.log")" ;;
    sanit)
      for tool in memcheck racecheck synccheck; do
        T 150 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h12,best \
          --shapes 64x8192x256,1x1024x4096,8x4096x4096,40x344x1032,100x1000x520,512x1024x4096,512x4096x1024 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
    ctx)
      T 200 python3 scripts/prefill_gemms.py --out "$L/csv/prefill-gemms-fp16.csv" > "$L/prefill-gemms.log" 2>&1; tail -14 "$L/prefill-gemms.log" ;;
    smoke)
      T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      T 200 "$B/tests/ladder_tests" --gtest_filter='*Small*:*small*' > "$L/tests-smallm.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-smallm.log" | head ;;
    retest)  # the small-M GPU tests alone
      T 100 "$B/tests/ladder_tests" --gtest_filter='SmallM.*' > "$L/tests-smallm.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-smallm.log" | head ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
