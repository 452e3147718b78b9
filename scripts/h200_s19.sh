#!/usr/bin/env bash
# The nineteenth session's device calls (docs/notes.md, "Nineteenth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=coop1san   compute-sanitizer memcheck, racecheck and synccheck on coop1 (forced), its row-synchronous
#                      stream-K split forced too (fixup=0), small shapes of 1, 3 and 5 tile rows
#   GROUPS_=midm       the 96-640-token shapes best loses (bench-offsuite.csv, ratio < 0.95) and the decode suite's
#                      128-512-token losers: auto against coop1 at three fix-up estimates, small-M at splits 2 and 4,
#                      the 2-CTA cooperative kernel with a small fix-up estimate; two interleaved rounds
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
# best's losers at 96-640 tokens in docs/results/bench-offsuite.csv (4972091), and the decode suite's at 128-512.
MIDM="96x37888x3584,96x5120x5120,96x13824x5120,96x5120x13824,96x9216x3072,96x16384x3072,96x6144x4096,\
192x3584x3584,192x3584x18944,192x5120x5120,192x13824x5120,192x5120x13824,192x16384x3072,192x3072x8192,192x6144x4096,\
384x3584x3584,384x37888x3584,384x3584x18944,384x5120x5120,384x13824x5120,384x5120x13824,384x16384x3072,384x3072x8192,\
384x6144x4096,384x9216x3072,640x3584x3584,640x9216x3072,640x16384x3072,640x3072x8192,640x13824x5120,\
128x4096x4096,128x8192x8192,128x4096x14336,128x1024x8192,256x4096x4096,256x1024x8192,512x1024x4096,512x1024x8192"
session_group() {
  case $1 in
    coop1san)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        for t in kernel=coop1 kernel=coop1,fixup=0; do
          LADDER_TUNE=$t T 80 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
            --shapes 128x512x1024,300x1000x2056,640x768x520 --seeds 1 > "$L/sanitize-$tool-${t//[=,]/-}.log" 2>&1
          echo "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool-${t//[=,]/-}.log" | tr '\n' ' ')"
        done
      done
      LADDER_TUNE=kernel=coop1,fixup=0,trace=1 T 60 "$B/ladder" check --steps best --shapes 128x512x1024,300x1000x2056,640x768x520 \
        --seeds 1 > "$L/trace-coop1.log" 2>&1; grep -i "stream-K" "$L/trace-coop1.log" | head -6 ;;
    midm)
      ab midm "$MIDM" ";kernel=coop1;kernel=coop1,fixup=8;kernel=coop1,fixup=2;kernel=small_m,split=2;kernel=small_m,split=4;kernel=coop,fixup=4" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
