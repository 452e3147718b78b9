#!/usr/bin/env bash
# One call on the GPU machine: run the prebuilt binaries (built here, carried as build/release),
# write logs and CSVs under $OUT. Usage: bash scripts/h200.sh [what...]  (tests check bench sanitize sass
# pytest torch_bench llama: the Python package, its GPU tests and the torch benchmarks; they need torch)
set -uo pipefail
B=${LADDER_BUILD:-build/release}
OUT=${OUT:-/tmp/ladder-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
for what in "${@:-tests check bench}"; do
  for w in $what; do
    case $w in
      tests) "$B/tests/ladder_tests" 2>&1 | tee "$OUT/tests.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|tests ran" ;;
      check) "$B/ladder" check --steps ${STEPS:-hopper} 2>&1 | tee "$OUT/check.log" | tail -40 ;;
      bench) "$B/ladder" bench --steps ${STEPS:-hopper} ${SHAPES:---suite bench} --csv "$OUT/bench.csv" 2>&1 | tee "$OUT/bench.log" ;;
      pytest) LADDER_LIBRARY=$PWD/$B/libladder.so python3 -m pytest -q -rs -p no:cacheprovider python/tests 2>&1 \
                | tee "$OUT/pytest.log" | tail -25 ;;
      torch_bench) LADDER_LIBRARY=$PWD/$B/libladder.so python3 scripts/torch_bench.py --out "$OUT/torch-bench.json" \
                     2>&1 | tee "$OUT/torch-bench.log" | tail -30 ;;
      llama) LADDER_LIBRARY=$PWD/$B/libladder.so python3 scripts/llama_model.py --out "$OUT/llama-model.json" \
               2>&1 | tee "$OUT/llama-model.log" | tail -80 ;;
      sass) for s in "$B"/CMakeFiles/ladder_hopper_steps.dir/src/hopper/*.o; do
              echo "$s: $(cuobjdump --dump-sass "$s" | grep -c HGMMA) HGMMA"; done | tee "$OUT/sass.txt" ;;
      *) echo "unknown: $w" ;;
    esac
  done
done
