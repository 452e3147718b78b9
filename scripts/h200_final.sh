#!/usr/bin/env bash
# The publishing run on the H200: every artifact under $OUT, from prebuilt binaries in $B.
#   tests, check (ladder + sweep), fault injection, bench (ladder at 4096³/8192³, h10/best on the standard set),
#   python tests, compute-sanitizer, SASS HGMMA counts.
set -uo pipefail
B=${B:-build/final}
OUT=${OUT:-/tmp/ladder-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
L=$B/ladder
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$OUT/gpu.txt"
"$B/tests/ladder_tests" > "$OUT/tests.log" 2>&1; echo "gtest: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/tests.log" | tr '\n' ' ')"
$L bench --steps hopper --suite bench --csv "$OUT/bench-ladder.csv" > "$OUT/bench-ladder.log" 2>&1; echo "bench ladder rc=$?"
$L bench --steps h10,best --suite standard --csv "$OUT/bench-standard.csv" > "$OUT/bench-standard.log" 2>&1; echo "bench standard rc=$?"
$L check --steps hopper --suite check > "$OUT/check-ladder.log" 2>&1; echo "check ladder: $(tail -1 "$OUT/check-ladder.log")"
{ $L check --steps best,h08-h10 --suite standard --seeds 1; $L check --steps best --suite sweep --seeds 1,2; } > "$OUT/check-standard-sweep.log" 2>&1
echo "check standard+sweep: $(grep -c ' pass ' "$OUT/check-standard-sweep.log") pass, $(grep -c ' FAIL ' "$OUT/check-standard-sweep.log") FAIL"
# stream-K (h11) with every partial wave split (LADDER_TUNE=fixup=0), at small K: many pieces per worker
LADDER_TUNE=fixup=0 timeout 300 $L check --steps h11 --shapes 2304x2304x256,2300x2250x200,4096x4096x4096,3000x5000x2000,4000x4000x4000 --seeds 1,2 > "$OUT/check-streamk.log" 2>&1
echo "check stream-K forced: $(grep -c ' pass ' "$OUT/check-streamk.log") pass, $(grep -c ' FAIL ' "$OUT/check-streamk.log") FAIL"
$L check --steps h04 --shapes 512x512x4096,1024x1024x1024 --inject forget-phase-toggle > "$OUT/inject.log" 2>&1; echo "inject rc=$? $(tail -1 "$OUT/inject.log")"
timeout 120 $L check --steps h04 --shapes 256x256x256 --seeds 1 --inject lost-arrival > "$OUT/lost-arrival.log" 2>&1; echo "lost-arrival rc=$? $(grep -m1 'timed out' "$OUT/lost-arrival.log")"
{ python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q --no-index --find-links .whl --target /tmp/pyt pytest; } > /dev/null 2>&1
PYTHONPATH=/tmp/pyt LADDER_LIBRARY=$PWD/$B/libladder.so python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$OUT/python.log" 2>&1; echo "python: $(tail -1 "$OUT/python.log")"
for s in h04 h05 h06 h07 h08 h09 h10 best; do for t in memcheck racecheck synccheck; do
  r=$(compute-sanitizer --tool $t --error-exitcode 9 $L check --steps $s --shapes 384x256x192,1000x1000x1000 --seeds 1 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')
  echo "$s $t: $r"; done; done > "$OUT/sanitizer.log"
for t in memcheck racecheck synccheck; do  # the stream-K path (flags, partials, fix-up), forced at small K
  r=$(LADDER_TUNE=fixup=0 timeout 300 compute-sanitizer --tool $t --error-exitcode 9 $L check --steps h11 --shapes 2304x2304x256 --seeds 1 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')
  echo "h10-stream-K $t: $r"; done >> "$OUT/sanitizer.log"; echo "sanitizer: $(grep -vc ' 0 errors\| 0 hazards' "$OUT/sanitizer.log") lines with findings"
for o in $B/CMakeFiles/ladder_hopper_steps.dir/src/hopper/*.o; do echo "$(basename $o .cu.o): $(cuobjdump --dump-sass $o | grep -c HGMMA) HGMMA, $(cuobjdump --dump-sass $o | grep -cE 'LDL|STL') LDL/STL"; done > "$OUT/sass.txt"
cat "$OUT/bench-ladder.log" "$OUT/bench-standard.log" | grep -E "hopper|best" | cut -c1-100
grep -v " 0 errors\| 0 hazards" "$OUT/sanitizer.log"; grep -E "FAIL|failed" "$OUT/python.log" | head -5
# At most 8 files come back from the device: the logs travel as one archive.
(cd "$OUT" && tar czf logs.tgz *.log *.txt && rm -f *.log *.txt)
