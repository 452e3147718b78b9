#!/usr/bin/env bash
# The twentieth session's device calls (docs/notes.md, "Twentieth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=ncukv      ncu (source counters, warp states, memory) at 512x1024x4096: small-M's 64x64 tiles (wg=1: 128 CTAs,
#                      no split, cuBLAS's decomposition), its default plan (128x128, split 3) and cuBLAS's kernel
#   GROUPS_=ncu1w      the same at 1536x1536x4096: best's 2-CTA fitted 128x144 tile (132 CTAs, one tile each) and cuBLAS's
#                      144x128 kernel (the same decomposition): where the fitted tile's fixed cost goes
#   GROUPS_=epicost    scripts/epilogue_cost.py (fp16, 2048x16384x4096) through the cooperative kernels (coop, coop192):
#                      what each fused epilogue adds to the plain GEMM, cuBLAS and torch's GELU beside it
#   GROUPS_=pytest     the Python package's tests on the GPU
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    ncukv)
      mkdir -p "$L/ncukv"
      for v in "wg1:kernel=small_m,wg=1:regex:small_m" "auto::regex:small_m" "cublas::regex:nvjet"; do
        IFS=: read -r name tune kfilt kre <<< "$v"
        d="$L/ncukv/$name"
        LADDER_TUNE=$tune T 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section LaunchStats -k "$kfilt:$kre" --launch-skip 2 --launch-count 1 -f -o "$d" \
          "$B/ladder" bench --steps best --shapes 512x1024x4096 --target-ms 1 --warmup-ms 1 > "$d.log" 2>&1
        ncu -i "$d.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip > "$d-sass.csv.gz"
        ncu -i "$d.ncu-rep" --page details --print-details all > "$d-details.txt" 2>&1
        echo "$name: $(grep -E 'Duration|Grid Size|DRAM Throughput|L2 Cache Throughput|Warp Cycles Per Issued' "$d-details.txt" | head -5 | tr -s ' ' | tr '\n' '|')"
        rm -f "$d.ncu-rep"
      done ;;
    ncu1w)
      mkdir -p "$L/ncu1w"
      for v in "fit::regex:cooperative" "cublas::regex:nvjet"; do
        IFS=: read -r name tune kfilt kre <<< "$v"
        d="$L/ncu1w/$name"
        LADDER_TUNE=$tune T 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section LaunchStats -k "$kfilt:$kre" --launch-skip 2 --launch-count 1 -f -o "$d" \
          "$B/ladder" bench --steps best --shapes 1536x1536x4096 --target-ms 1 --warmup-ms 1 > "$d.log" 2>&1
        ncu -i "$d.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip > "$d-sass.csv.gz"
        ncu -i "$d.ncu-rep" --page details --print-details all > "$d-details.txt" 2>&1
        echo "$name: $(grep -E 'Duration|Grid Size|DRAM Throughput|L2 Cache Throughput|Warp Cycles Per Issued' "$d-details.txt" | head -5 | tr -s ' ' | tr '\n' '|')"
        rm -f "$d.ncu-rep"
      done ;;
    epicost)
      for k in coop coop192; do
        PYTHONPATH=$PWD/python LADDER_TUNE=kernel=$k T 200 python3 scripts/epilogue_cost.py --out "$L/csv/epicost-$k.csv" \
          --dtypes float16 --shapes 2048x16384x4096 \
          --impls cublas,cublas_bias,torch_gelu,plain,bias,gelu_tanh,gelu,silu,residual > "$L/epicost-$k.log" 2>&1
        tail -14 "$L/epicost-$k.log"
      done ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
