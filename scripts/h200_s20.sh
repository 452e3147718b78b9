#!/usr/bin/env bash
# The twentieth session's device calls (docs/notes.md, "Twentieth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=ncukv      ncu (source counters, warp states, memory) at 512x1024x4096: small-M's 64x64 tiles (wg=1: 128 CTAs,
#                      no split, cuBLAS's decomposition), its default plan (128x128, split 3) and cuBLAS's kernel
#   GROUPS_=ncu1w      the same at 1536x1536x4096: best's 2-CTA fitted 128x144 tile (132 CTAs, one tile each) and cuBLAS's
#                      144x128 kernel (the same decomposition): where the fitted tile's fixed cost goes
#   GROUPS_=epicost    scripts/epilogue_cost.py (fp16, 2048x16384x4096) through the cooperative kernels (coop, coop192):
#                      what each fused epilogue adds to the plain GEMM, cuBLAS and torch's GELU beside it
#   GROUPS_=defer      the cooperative tile's deferred activation: check_v2_torch --set deferred (coop forced) and the full
#                      v2 check through best, the pytest case, epilogue_cost and torch_bench (no compile) at defer=1 and 0
#   GROUPS_=defer2     epilogue_cost at defer=1, 0 (and 3, the 3-stage copy's bias: a diagnostic since removed)
#   GROUPS_=verify     the deferred activation: check_v2_torch (deferred set, coop forced; the full set through best and
#                      coop), compute-sanitizer on scripts/sanitize_epilogue.py --deferred, GPU tests, pytest
#   GROUPS_=torch      scripts/torch_bench.py (issue 12's benchmark, with torch.compile): torch-bench.{json,csv} in $OUT
#   GROUPS_=wb         the register writeback's 8-byte stores (fitted tiles, coop_regs): checks through each fitted width,
#                      the v2 check (fit 144, coop_regs), memcheck, best's few-tile and decode checks, then auto against wb=0
#   GROUPS_=offsuite   other models' layers (96-2048 tokens) through best alone: $OUT/bench-offsuite.csv
#   GROUPS_=fitwb      auto against the fitted tiles forced (model's width, 144, 208, 224 with 2-CTA clusters) where the rule
#                      does not take them, with the 8-byte writeback
#   GROUPS_=rule20     the fitted tile's wider rule (K >= 2048 at even blocks, two full waves at any M) against the rule
#                      before (build/ab/ladder-a, 7a8f8f5's binary): off-suite rows at 640-2048 tokens and squares, two rounds
#   GROUPS_=pytest     the Python package's tests on the GPU
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
# Other models' linear layers (N x K): Qwen2.5-7B, Llama-2-13B, Phi-3-mini, a fused q/k/v (as h200_s18.sh, h200_s19.sh).
OFF_LAYERS="3584x3584 512x3584 37888x3584 3584x18944 5120x5120 13824x5120 5120x13824 9216x3072 16384x3072 3072x8192 6144x4096"
session_group() {
  case $1 in
    ncukv) ncu_compare ncukv 512x1024x4096 "wg1:kernel=small_m,wg=1:regex:small_m" "auto::regex:small_m" "cublas::regex:nvjet" ;;
    ncu1w) ncu_compare ncu1w 1536x1536x4096 "fit::regex:cooperative" "cublas::regex:nvjet" ;;
    epicost)
      for k in coop coop192; do
        PYTHONPATH=$PWD/python LADDER_TUNE=kernel=$k T 200 python3 scripts/epilogue_cost.py --out "$L/csv/epicost-$k.csv" \
          --dtypes float16 --shapes 2048x16384x4096 \
          --impls cublas,cublas_bias,torch_gelu,plain,bias,gelu_tanh,gelu,silu,residual > "$L/epicost-$k.log" 2>&1
        tail -14 "$L/epicost-$k.log"
      done ;;
    defer)  # the deferred activation: checked (forced coop, then best), timed against defer=0, the torch cases
      LADDER_TUNE=kernel=coop T 200 python3 scripts/check_v2_torch.py --set deferred --csv "$L/csv/check-deferred-coop.csv" > "$L/check-deferred-coop.log" 2>&1; tail -1 "$L/check-deferred-coop.log"
      T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-best.csv" > "$L/check-v2-best.log" 2>&1; tail -1 "$L/check-v2-best.log"
      grep -c deferred "$L/csv/check-deferred-coop.csv"
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_gpu_ops.py -k defers > "$L/pytest-defer.log" 2>&1; tail -1 "$L/pytest-defer.log"
      for d in 1 0; do
        LADDER_TUNE=defer=$d T 200 python3 scripts/epilogue_cost.py --out "$L/csv/epicost-defer$d.csv" \
          --dtypes float16,bfloat16 --shapes 2048x16384x4096,8192x16384x4096,2048x28672x4096 \
          --impls cublas,torch_gelu,torch_swiglu,plain,bias,gelu_tanh,gelu,silu,swiglu > "$L/epicost-defer$d.log" 2>&1
        echo "defer=$d"; grep -E "x16384x4096|x28672" "$L/epicost-defer$d.log" | grep -E "float16 " | cut -c1-70
      done
      for d in 1 0; do
        LADDER_TUNE=defer=$d T 200 python3 scripts/torch_bench.py --no-compile --out "$L/torch-nc-defer$d.json" > "$L/torch-nc-defer$d.log" 2>&1
        echo "torch defer=$d"; tail -16 "$L/torch-nc-defer$d.log" | cut -c1-150
      done ;;
    defer2)  # the slices after the stage's release (defer=1), the epilogue after the mainloop (0), the 3-stage copy's bias (3)
      for d in 1 0 3; do
        LADDER_TUNE=defer=$d T 200 python3 scripts/epilogue_cost.py --out "$L/csv/epicost2-defer$d.csv" \
          --dtypes float16 --shapes 2048x16384x4096,8192x16384x4096 \
          --impls cublas,torch_gelu,plain,bias,gelu_tanh,gelu,swiglu > "$L/epicost2-defer$d.log" 2>&1
        echo "defer=$d"; grep -E "float16 " "$L/epicost2-defer$d.log" | cut -c1-70
      done ;;
    verify)  # the deferred activation: checks, the sanitizers, the GPU tests and pytest
      LADDER_TUNE=kernel=coop T 200 python3 scripts/check_v2_torch.py --set deferred --csv "$L/csv/check-deferred-coop.csv" > "$L/check-deferred-coop.log" 2>&1; tail -1 "$L/check-deferred-coop.log"
      T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-best.csv" > "$L/check-v2-best.log" 2>&1; tail -1 "$L/check-v2-best.log"
      LADDER_TUNE=kernel=coop T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-coop.csv" > "$L/check-v2-coop.log" 2>&1; tail -1 "$L/check-v2-coop.log"
      for tool in memcheck racecheck synccheck; do
        LADDER_TUNE=kernel=coop T 240 compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sanitize_epilogue.py --deferred > "$L/sanitize-deferred-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-deferred-$tool.log" | tr '\n' ' ')"
      done
      gpu_tests 240
      T 300 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    torch)  # issue 12's benchmark, published
      T 400 python3 scripts/torch_bench.py --out "$OUT/torch-bench.json" > "$L/torch-bench.log" 2>&1; tail -16 "$L/torch-bench.log" | cut -c1-170 ;;
    wb)  # the register writeback's 8-byte stores: checks through each fitted width, the v2 check, memcheck, then the A/B
      for t in "width=144,fitcl=2" "width=224,fitcl=1" "width=112,fitcl=1" "width=64,fitcl=2" "width=208,fitcl=2" "width=224,fitcl=2" "width=64,fitcl=1"; do
        LADDER_TUNE=kernel=coop_fit,$t T 100 "$B/ladder" check --steps best --shapes 1536x1536x4096,1000x1000x1032,300x777x520,640x5000x264,130x4096x2048,2560x2560x2560 --seeds 2 > "$L/check-wb-${t//[=,]/-}.log" 2>&1
        echo "check $t: $(tail -1 "$L/check-wb-${t//[=,]/-}.log")"
      done
      LADDER_TUNE=kernel=coop_fit,width=144,fitcl=2 T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-fit144.csv" > "$L/check-v2-fit144.log" 2>&1; tail -1 "$L/check-v2-fit144.log"
      LADDER_TUNE=kernel=coop_regs T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-regs.csv" > "$L/check-v2-regs.log" 2>&1; tail -1 "$L/check-v2-regs.log"
      LADDER_TUNE=kernel=coop_fit,width=144,fitcl=2 T 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/ladder" check --steps best --shapes 300x777x520,1000x1000x1032 --seeds 1 > "$L/sanitize-wb-memcheck.log" 2>&1
      echo "memcheck: $(grep -E 'ERROR SUMMARY|passed' "$L/sanitize-wb-memcheck.log" | tr '\n' ' ')"
      T 100 "$B/ladder" check --steps best --suite fewtile --seeds 2 > "$L/check-fewtile.log" 2>&1; echo "check fewtile: $(tail -1 "$L/check-fewtile.log")"
      T 100 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode.log" 2>&1; echo "check decode: $(tail -1 "$L/check-decode.log")"
      ab wb "1536x1536x4096,2560x2560x2560,256x8192x8192,512x4096x4096,512x14336x4096,1536x1536x8192,2560x2560x8192,256x28672x8192,512x14336x8192,448x14336x4096,200x28672x8192,128x14336x4096,100x37888x3584,128x37888x3584,640x14336x4096,520x13824x5120,384x4096x4096,1536x1536x2048" ";wb=0" ;;
    offsuite)
      T 200 "$B/ladder" bench --steps best --shapes "$(LAYERS="$OFF_LAYERS" shapes "${MS:-96 192 384 640 1000 2048}")" \
        --target-ms ${TMS:-60} --warmup-ms 30 --csv "$OUT/bench-offsuite.csv" > "$L/offsuite.log" 2>&1; tail -3 "$L/offsuite.log" ;;
    fitwb)  # with the 8-byte writeback, the fitted tiles where best's rule does not take them
      ab fitwb "2560x2560x2560,2560x2560x4096,1536x1536x2048,2048x2048x2048,3000x5000x2000,256x20480x4096,384x4096x4096,768x4096x4096,1024x4096x4096,256x8192x8192,200x14336x4096,2048x4096x4096" \
        ";kernel=coop_fit;kernel=coop_fit,width=144,fitcl=2;kernel=coop_fit,width=208,fitcl=2;kernel=coop_fit,width=224,fitcl=2" ;;
    rule20)  # the fitted tile's wider rule (this build) against the rule before (build/ab/ladder-a): the same shapes, two
      # rounds each in turn, then the rows whose kernel differs
      RS="$(LAYERS="$OFF_LAYERS" shapes "640 1000 2048"),$(shapes "256 512"),2560x2560x2560,2560x2560x4096,2560x2560x8192,1536x1536x2048,1536x1536x3072,2048x2048x2048,3000x5000x2000,2048x4096x4096,1024x4096x4096,768x4096x4096,256x8192x8192,1536x1536x4096,4096x4096x4096"
      for r in 1 2; do
        for b in new old; do
          bin="$B/ladder"; [ $b = old ] && bin=build/ab/ladder-a
          T 200 "$bin" bench --steps best --shapes "$RS" --target-ms 15 --warmup-ms 10 --csv "$L/csv/rule20-$b-$r.csv" > "$L/rule20-$b-$r.log" 2>&1
        done
      done
      python3 - "$L"/csv/rule20-{new,old}-{1,2}.csv <<'P' | tee "$L/rule20-summary.txt"
import csv, sys
rows = {}
for path in sys.argv[1:]:
    tag = path.rsplit('/', 1)[1][7:-4]
    for r in csv.DictReader(open(path)):
        rows.setdefault((r['m'], r['n'], r['k']), {})[tag] = (float(r['median_ms']) * 1e3, float(r['cublas_median_ms']) * 1e3, r['kernel'][8:40])
for key, d in rows.items():
    if d['new-1'][2] != d['old-1'][2]:
        print('x'.join(key), ' new', d['new-1'][2], round(d['new-1'][0], 1), round(d['new-2'][0], 1), ' old', d['old-1'][2], round(d['old-1'][0], 1), round(d['old-2'][0], 1), ' cublas', round(d['new-1'][1], 1))
P
      ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
