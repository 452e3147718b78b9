#!/usr/bin/env bash
# One H200 call: everything that verifies and measures the library. Prebuilt binaries (carried build/release);
# logs and CSVs under $OUT, tarred at the end (at most 8 files come back). SECTIONS picks parts (default: all).
#   verify: GPU tests, check suites (ladder, standard, sweep, small-M sweep), the v2/torch check, pytest
#   bench:  decode, few-tile, standard and ladder benchmarks with the same-run read floor
#   torch:  the torch-op benchmark (MLP, Linear+GELU) and the Llama model (decode graphs, prefill, bf16 patch)
#   v2-families: the v2/torch epilogue check once per family of best's (LADDER_TUNE kernel=…)
#   epi:    the torch-op benchmark per kernel family (KERNELS), without torch.compile
#   sanitize: compute-sanitizer memcheck / racecheck / synccheck on the new kernels
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
for s in ${SECTIONS:-verify bench}; do
  echo "== $s $(date -u +%T)"
  case $s in
    verify)
      T 120 "$B/tests/ladder_tests" > "$L/tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests.log" | head -12
      T 120 "$B/ladder" check --steps hopper --suite check --seeds 1 > "$L/check-ladder.log" 2>&1; tail -1 "$L/check-ladder.log"
      T 100 "$B/ladder" check --steps h09-h13,best --suite standard --seeds 1 > "$L/check-standard.log" 2>&1; tail -1 "$L/check-standard.log"
      T 120 "$B/ladder" check --steps h09-h13,best --suite sweep --seeds 1 > "$L/check-sweep.log" 2>&1; tail -1 "$L/check-sweep.log"
      T 120 "$B/ladder" check --steps h12,best --suite smallm --seeds 2 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      T 60 python3 scripts/check_v2_torch.py --csv "$OUT/v2.csv" > "$L/v2.log" 2>&1; tail -1 "$L/v2.log"
      T 240 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -3 "$L/pytest.log" ;;
    final)  # after a last change: GPU tests, the fused epilogues (v2/torch, pytest), best's sweeps
      T 120 "$B/tests/ladder_tests" > "$L/tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests.log" | head -12
      T 60 python3 scripts/check_v2_torch.py --csv "$OUT/v2.csv" > "$L/v2.log" 2>&1; tail -1 "$L/v2.log"
      T 150 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log"
      T 60 "$B/ladder" check --steps best --suite sweep --seeds 3 > "$L/check-sweep.log" 2>&1; tail -1 "$L/check-sweep.log"
      T 60 "$B/ladder" check --steps best --suite decode --seeds 3 > "$L/check-decode.log" 2>&1; tail -1 "$L/check-decode.log"
      T 60 "$B/ladder" check --steps best --suite standard --seeds 3 > "$L/check-standard.log" 2>&1; tail -1 "$L/check-standard.log"
      T 30 "$B/ladder" check --steps best --suite fewtile --seeds 3 > "$L/check-fewtile.log" 2>&1; tail -1 "$L/check-fewtile.log" ;;
    torchbench)
      T 200 python3 scripts/torch_bench.py --out "$OUT/torch-bench.json" > "$L/torch-bench.log" 2>&1; tail -16 "$L/torch-bench.log" ;;
    v2)  # the C ABI's descriptor entry point and the fused epilogues against torch (GPU)
      T 60 python3 scripts/check_v2_torch.py --csv "$OUT/v2.csv" > "$L/v2.log" 2>&1; tail -1 "$L/v2.log" ;;
    v2-families)  # the same cases through each of best's families (each compiles its own epilogue copies)
      for k in ${FAMILIES:-pingpong pingpong_narrow coop coop192 coop_regs small_m}; do
        LADDER_TUNE=kernel=$k T 60 python3 scripts/check_v2_torch.py --csv "$L/v2-$k.csv" > "$L/v2-$k.log" 2>&1
        echo "kernel=$k: $(tail -1 "$L/v2-$k.log")"; grep FAIL "$L/v2-$k.log" | head -3
      done ;;
    epi)  # the fused epilogues per kernel family (LADDER_TUNE kernel=...), torch eager in the same run
      for k in ${KERNELS:-best pingpong coop}; do  # best: the cost model's choice
        LADDER_TUNE=$([ "$k" = best ] || echo "kernel=$k") T 150 python3 scripts/torch_bench.py --no-compile --cases ${CASES:-mlp,gelu} --out "$OUT/epi-$k.json" \
          > "$L/epi-$k.log" 2>&1; echo "kernel=$k"; tail -14 "$L/epi-$k.log" | cut -c1-150
      done ;;
    bench)
      O="--target-ms ${TMS:-100} --warmup-ms 30"
      T 150 "$B/ladder" bench --steps best --suite decode $O --csv "$OUT/bench-decode.csv" > "$L/bench-decode.log" 2>&1
      T 60 "$B/ladder" bench --steps best --suite fewtile $O --csv "$OUT/bench-fewtile.csv" > "$L/bench-fewtile.log" 2>&1
      T 100 "$B/ladder" bench --steps best --suite standard $O --csv "$OUT/bench-standard.csv" > "$L/bench-standard.log" 2>&1
      T 100 "$B/ladder" bench --steps h03-h13,best --suite bench $O --csv "$OUT/bench-ladder.csv" > "$L/bench-ladder.log" 2>&1
      tail -16 "$L/bench-ladder.log" | cut -c1-100 ;;
    bench-s6)  # bench without the ladder suite (its steps did not change)
      bench_suites ${TMS:-100} ;;
    torch)
      T 200 python3 scripts/torch_bench.py --out "$OUT/torch-bench.json" > "$L/torch-bench.log" 2>&1; tail -22 "$L/torch-bench.log"
      T 220 python3 scripts/llama_model.py --out "$OUT/llama-model.json" > "$L/llama-model.log" 2>&1; tail -30 "$L/llama-model.log" ;;
    tune-mid)  # every family on the decode suite's M >= 64 rows and the few-tile shapes: the cost model's data
      T 280 "$B/ladder" bench --steps best --shapes $(for m in 64 128 256 512; do for nk in 4096x4096 1024x4096 14336x4096 \
        4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672; do printf "%sx%s," $m $nk; done; done)256x8192x8192,1536x1536x4096,2560x2560x2560 \
        --tune "${TUNES:-;kernel=small_m;kernel=pingpong;kernel=pingpong_narrow;kernel=coop;kernel=coop192}" \
        --target-ms ${TMS:-40} --warmup-ms 10 --csv "$OUT/tune-mid.csv" > "$L/tune-mid.log" 2>&1; tail -3 "$L/tune-mid.log" ;;
    bench-mid)  # the decode suite's M >= 64 rows and the few-tile shapes: where the cost model picks among families
      O="--target-ms ${TMS:-80} --warmup-ms 20"
      T 90 "$B/ladder" bench --steps best --shapes $(for m in 64 128 256 512; do for nk in 4096x4096 1024x4096 14336x4096 \
        4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672; do printf "%sx%s," $m $nk; done; done | sed 's/,$//') \
        $O --csv "$OUT/bench-mid.csv" > "$L/bench-mid.log" 2>&1
      T 60 "$B/ladder" check --steps best --shapes 256x4096x4096,512x1024x4096,128x8192x8192,256x8192x28672 --seeds 4 \
        > "$L/check-mid.log" 2>&1; tail -1 "$L/check-mid.log"
      T 40 "$B/ladder" bench --steps best --suite fewtile $O --csv "$OUT/bench-fewtile.csv" > "$L/bench-fewtile.log" 2>&1
      tail -7 "$L/bench-fewtile.log" | cut -c1-110 ;;
    sanitize)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        T 150 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h09-h13,best \
          --shapes 1x4096x512,7x1000x520,33x777x1024,130x300x256,64x256x4104,300x520x1000 --seeds 1 > "$L/sanitize-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
    sanitize-few)  # stream-K's few-tile pieces (h11: 3 and 4 tiles into 8 pieces each) and the 128-token splits (best)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        LADDER_TUNE=fixup=0 T 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h11 --shapes 200x520x4096,256x1000x2048 \
          --seeds 1 > "$L/sanitize-few-$tool.log" 2>&1
        T 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps h12,best --shapes 128x3072x3072,100x2560x4096,64x2048x8192,48x5120x5120 \
          --seeds 1 > "$L/sanitize-128-$tool.log" 2>&1
        echo "$tool: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L"/sanitize-{few,128}-$tool.log | tr '\n' ' ')"
      done ;;
  esac
done
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$L"
ls "$OUT"
