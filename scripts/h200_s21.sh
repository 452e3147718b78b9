#!/usr/bin/env bash
# The twenty-first session's device calls (docs/notes.md, "Twenty-first session").
#   GROUPS_=residual   beta*C in the deferred copy's epilogue warps: checks, sanitizers (the residual cases of
#                      sanitize_epilogue.py through coop), pytest, epilogue_cost and the MLP at defer=1 and 0
#   GROUPS_=fewtile    best's few-tile check and bench (CSV in $OUT)
#   GROUPS_=prefill    the model's 512-token prefill graph under torch.profiler (scripts/prefill_profile.py) and each of its
#                      linears alone (scripts/prefill_gemms.py)
#   GROUPS_=pytest     the Python package's tests on the GPU
#   GROUPS_=tests / final / model  the GPU suite; check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    residual)  # branch wip/s21-residual only (lost, s21 call 2): beta·C in the epilogue warps; checks, sanitizers, A/B, MLP
      LADDER_TUNE=kernel=coop T 90 python3 scripts/check_v2_torch.py --set deferred --csv "$L/csv/check-deferred-coop.csv" > "$L/check-deferred-coop.log" 2>&1; tail -1 "$L/check-deferred-coop.log"
      T 90 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-best.csv" > "$L/check-v2-best.log" 2>&1; tail -1 "$L/check-v2-best.log"
      for tool in memcheck racecheck synccheck; do
        LADDER_TUNE=kernel=coop T 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sanitize_epilogue.py > "$L/sanitize-res-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-res-$tool.log" | tr '\n' ' ')"
      done
      T 120 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_gpu_ops.py -k defers > "$L/pytest-defer.log" 2>&1; tail -1 "$L/pytest-defer.log"
      for d in 1 0; do
        LADDER_TUNE=defer=$d T 100 python3 scripts/epilogue_cost.py --out "$L/csv/epires-defer$d.csv" --dtypes float16 \
          --shapes 2048x16384x4096,2048x4096x14336 --impls cublas,plain,bias,residual > "$L/epires-defer$d.log" 2>&1
        echo "defer=$d"; grep -E "float16 " "$L/epires-defer$d.log" | cut -c1-70
        LADDER_TUNE=defer=$d T 100 python3 scripts/torch_bench.py --no-compile --cases mlp --out "$L/torch-mlp-defer$d.json" > "$L/torch-mlp-defer$d.log" 2>&1
        tail -7 "$L/torch-mlp-defer$d.log" | cut -c1-120
      done ;;
    fewtile)
      T 100 "$B/ladder" check --steps best --suite fewtile --seeds 2 > "$L/check-fewtile.log" 2>&1; echo "check fewtile: $(tail -1 "$L/check-fewtile.log")"
      T 60 "$B/ladder" bench --steps best --suite fewtile --target-ms ${TMS:-60} --warmup-ms 30 --csv "$OUT/bench-fewtile.csv" > "$L/bench-fewtile.log" 2>&1
      tail -7 "$L/bench-fewtile.log" | cut -c1-110 ;;
    prefill)  # where the model's graph-replayed prefill loses: kernels per replay (torch.profiler), each linear alone
      T 150 python3 scripts/prefill_profile.py --out "$OUT/prefill-profile-fp16.csv" > "$L/prefill-profile.log" 2>&1
      grep -v "^  .*at::\|elementwise\|reduce_kernel\|Copy" "$L/prefill-profile.log" | cut -c1-170 | head -120
      T 100 python3 scripts/prefill_gemms.py --out "$L/csv/prefill-gemms-fp16.csv" > "$L/prefill-gemms.log" 2>&1; tail -8 "$L/prefill-gemms.log" ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
