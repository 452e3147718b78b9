#!/usr/bin/env bash
# The nineteenth session's device calls (docs/notes.md, "Nineteenth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=coop1san   compute-sanitizer memcheck, racecheck and synccheck on coop1 (forced), its row-synchronous
#                      stream-K split forced too (fixup=0), small shapes of 1, 3 and 5 tile rows
#   GROUPS_=midm       the 96-640-token shapes best loses (bench-offsuite.csv, ratio < 0.95) and the decode suite's
#                      128-512-token losers: auto against coop1 at three fix-up estimates, small-M at splits 2 and 4,
#                      the 2-CTA cooperative kernel with a small fix-up estimate; two interleaved rounds
#   GROUPS_=ncusk      ncu source counters on coop1 with every tile split (fixup=0) and unsplit, 128x4096x4096 and
#                      384x3584x3584: where the split's ~15 us go (logs/ncusk/*-sass.csv.gz, *-details.txt)
#   GROUPS_=cublasnames  the kernels cuBLAS runs on mid-M shapes (ncu launch statistics)
#   GROUPS_=fix8       coop1 at a fix-up estimate of 8 K-tiles against auto (20) on the shapes best gives coop1
#   GROUPS_=tok        small-M's token tile above 64 tokens (fitted_tokens): 96 and 64 forced checked (check, the
#                      v2/torch check of the fused copies), then auto against small-M at tok=64, 96 and 128
#   GROUPS_=rule19     this session's rules (fitted_tokens up to 288 tokens, coop1's fix-up 8 at 2+ tile rows): check,
#                      then auto against tok=128 and fixup=20 (the rules before) on the off-suite shapes at 80-640 tokens
#   GROUPS_=offsuite   the off-suite shapes ($MS tokens) through best alone, one CSV (docs/results/bench-offsuite.csv)
#   GROUPS_=narrowmid  the narrow layers (1024-4096 rows) at 128-512 tokens: auto against small-M's 64x64 tiles (wg=1,
#                      at one and two CTAs an SM), its 128x64 and 128x96 tiles, and the 128x64 ping-pong
#   GROUPS_=toksan     compute-sanitizer memcheck, racecheck and synccheck on small-M's 128x96 and 128x64 tiles above 64
#                      tokens (forced), and the GPU tests of the small-M family, stream-K and the 1-CTA tile
#   GROUPS_=wshare     small-M's weight sharing (LADDER_TUNE wshare=2: two token tiles a cluster, the weights multicast):
#                      check and the sanitizers forced, then each token tile with and without it at 128-512 tokens.
#                      Needs the build of 67028d7/e75ab5a (branch wip/s19-wshare): the sharing lost (call 9), reverted on main.
#   GROUPS_=prefill    scripts/prefill_gemms.py: the 512-token prefill's linears, torch's F.linear against ladder.linear,
#                      back to back in CUDA graphs (fp16 and bf16; CSVs in $OUT)
#   GROUPS_=ncukv      ncu (source counters, warp states, memory) at 512x1024x4096: small-M's 64x64 tiles (wg=1: 128 CTAs,
#                      no split, cuBLAS's decomposition), its default plan (128x128, split 3) and cuBLAS's kernel
#   GROUPS_=pytest     the Python package's tests on the GPU
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
# Other models' linear layers (N x K): Qwen2.5-7B, Llama-2-13B, Phi-3-mini, a fused q/k/v (as h200_s18.sh).
OFF_LAYERS="3584x3584 512x3584 37888x3584 3584x18944 5120x5120 13824x5120 5120x13824 9216x3072 16384x3072 3072x8192 6144x4096"
mkdir -p "$L/csv"
# best's losers at 96-640 tokens in docs/results/bench-offsuite.csv (4972091), and the decode suite's at 128-512.
MIDM="96x37888x3584,96x5120x5120,96x13824x5120,96x5120x13824,96x9216x3072,96x16384x3072,96x6144x4096,\
192x3584x3584,192x3584x18944,192x5120x5120,192x13824x5120,192x5120x13824,192x16384x3072,192x3072x8192,192x6144x4096,\
384x3584x3584,384x37888x3584,384x3584x18944,384x5120x5120,384x13824x5120,384x5120x13824,384x16384x3072,384x3072x8192,\
384x6144x4096,384x9216x3072,640x3584x3584,640x9216x3072,640x16384x3072,640x3072x8192,640x13824x5120,\
128x4096x4096,128x8192x8192,128x4096x14336,128x1024x8192,256x4096x4096,256x1024x8192,512x1024x4096,512x1024x8192"
# Shapes best gives coop1 (4972091): 65-128 tokens with a wave of its tiles, 3 or 5 blocks of 128 rows.
RULE1="128x128256x4096,96x128256x4096,80x128256x4096,128x152064x3584,100x37888x3584,128x37888x3584,72x57344x8192,\
640x28672x8192,600x14336x4096,520x13824x5120,640x14336x4096,640x6144x4096,560x9216x3072,640x37888x3584,600x128256x4096"
ODD="384x128256x4096,384x14336x4096,640x4096x14336,640x8192x28672,384x8192x28672,384x5120x13824,640x3584x18944,\
384x13824x5120,640x5120x13824,320x14336x4096"
OFF1="96x37888x3584,384x37888x3584,384x16384x3072,640x13824x5120,640x9216x3072,640x16384x3072,384x3584x18944"
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
    ncusk)
      mkdir -p "$L/ncusk"
      for shape in 128x4096x4096 384x3584x3584; do
        for f in 0 1000000; do
          d="$L/ncusk/$shape-f$f"
          LADDER_TUNE=kernel=coop1,fixup=$f T 200 ncu --clock-control none --section SourceCounters --section WarpStateStats \
            --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:cooperative --launch-skip 1 --launch-count 1 \
            -f -o "$d" "$B/ladder" check --steps best --shapes $shape --seeds 1 > "$d.log" 2>&1
          ncu -i "$d.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip > "$d-sass.csv.gz"
          ncu -i "$d.ncu-rep" --page details --print-details all > "$d-details.txt" 2>&1
          echo "$shape fixup=$f: $(grep -E 'Duration|DRAM Throughput|Warp Cycles Per Issued' "$d-details.txt" | head -3 | tr -s ' ' | tr '\n' '|')"
          rm -f "$d.ncu-rep"
        done
      done ;;
    cublasnames)  # the kernel cuBLAS runs (name, grid) on mid-M shapes best loses, from ncu's launch statistics
      for shape in 384x3584x3584 192x5120x5120 384x3072x8192 96x5120x5120 640x9216x3072 384x16384x3072 192x5120x13824; do
        T 100 ncu --clock-control none --section LaunchStats --metrics gpu__time_duration.sum -k regex:nvjet --launch-skip 2 \
          --launch-count 1 "$B/ladder" bench --steps best --shapes $shape --target-ms 1 --warmup-ms 1 > "$L/cublas-$shape.txt" 2>&1
        echo "$shape: $(grep -E 'nvjet|Duration|Grid Size|Block Size|Cluster Size' "$L/cublas-$shape.txt" | tr -s ' ' | tr '\n' '|' | cut -c1-400)"
      done ;;
    tok)
      for t in 96 64; do
        LADDER_TUNE=kernel=small_m,tok=$t T 150 "$B/ladder" check --steps best --seeds 2 \
          --shapes 65x1000x520,96x5120x5120,97x4096x4104,192x5120x5120,200x777x2056,288x3584x3584,385x3072x8192,500x1000x1000,130x2000x4100 \
          > "$L/check-tok$t.log" 2>&1
        echo "check tok=$t: $(tail -1 "$L/check-tok$t.log")"
      done
      LADDER_TUNE=kernel=small_m,tok=96 T 150 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-tok96.csv" > "$L/check-v2-tok96.log" 2>&1
      echo "v2 tok=96: $(tail -1 "$L/check-v2-tok96.log")"; grep FAIL "$L/check-v2-tok96.log" | head -5
      ab tok "$MIDM,80x14336x4096,100x8192x8192,160x4096x4096,288x4096x4096,288x14336x4096,320x5120x5120,448x3584x3584,96x4096x4096,96x14336x4096" \
        ";kernel=small_m,tok=64;kernel=small_m,tok=96;kernel=small_m,tok=128" ;;
    rule19)
      T 150 "$B/ladder" check --steps best --seeds 2 \
        --shapes 65x1000x520,96x5120x5120,97x4096x4104,192x5120x5120,200x777x2056,288x3584x3584,385x3072x8192,130x2000x4100,160x4096x4096,384x16384x3072,640x9216x3072 \
        > "$L/check-rule19.log" 2>&1
      echo "check rule19: $(tail -1 "$L/check-rule19.log")"
      T 150 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2.csv" > "$L/check-v2.log" 2>&1
      echo "v2: $(tail -1 "$L/check-v2.log")"; grep FAIL "$L/check-v2.log" | head -5
      ab rule19 "$(LAYERS="$OFF_LAYERS" shapes "96 192 288 384 640"),80x14336x4096,160x4096x4096,120x8192x8192,250x14336x4096" ";tok=128;fixup=20" ;;
    offsuite)
      T 200 "$B/ladder" bench --steps best --shapes "$(LAYERS="$OFF_LAYERS" shapes "${MS:-96 192 384 640 1000 2048}")" \
        --target-ms ${TMS:-60} --warmup-ms 30 --csv "$OUT/bench-offsuite.csv" > "$L/offsuite.log" 2>&1; tail -3 "$L/offsuite.log" ;;
    narrowmid)
      ab narrowmid "$(LAYERS="1024x4096 1024x8192 1024x14336 2048x4096 4096x4096" shapes "128 192 256 384 512")" \
        ";kernel=small_m,wg=1;kernel=small_m,wg=1,cps=2;kernel=small_m,tok=64;kernel=small_m,tok=96;kernel=pingpong_narrow" ;;
    toksan)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        for t in kernel=small_m,tok=96 kernel=small_m,tok=64 kernel=coop1,fixup=8; do
          LADDER_TUNE=$t T 80 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
            --shapes 97x1000x1032,200x777x520,288x512x1024 --seeds 1 > "$L/sanitize-$tool-${t//[=,]/-}.log" 2>&1
          echo "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|nvjet' "$L/sanitize-$tool-${t//[=,]/-}.log" | sort | uniq -c | tr -s ' ' | tr '\n' ' ' | cut -c1-300)"
        done
      done
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM*:StreamK.*:CoopFit.*:Pdl.*' > "$L/tests-tok.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-tok.log" | head ;;
    wshare)
      for t in 96 128 64; do
        LADDER_TUNE=kernel=small_m,tok=$t,wshare=2,trace=1 T 150 "$B/ladder" check --steps best --seeds 2 \
          --shapes 192x5120x5120,200x2056x2056,256x4096x4104,384x3584x3584,385x3000x8192,130x2000x4100,512x1000x1000 \
          > "$L/check-wshare$t.log" 2>&1
        echo "check tok=$t wshare=2: $(grep -E 'passed' "$L/check-wshare$t.log") shared launches: $(grep -c 'share 2' "$L/check-wshare$t.log")"
      done
      for tool in memcheck racecheck synccheck; do
        LADDER_TUNE=kernel=small_m,tok=96,wshare=2 T 80 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
          --shapes 192x1000x1032,384x512x520 --seeds 1 > "$L/sanitize-$tool-wshare.log" 2>&1
        echo "$tool wshare: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool-wshare.log" | tr '\n' ' ')"
      done
      ab wshare "192x3584x3584,192x5120x5120,192x3584x18944,192x3072x8192,192x6144x4096,192x13824x5120,384x3584x3584,384x5120x5120,384x3584x18944,384x3072x8192,384x6144x4096,384x16384x3072,256x4096x4096,256x14336x4096,256x5120x5120,128x4096x4096,512x4096x4096,512x1024x4096" \
        ";kernel=small_m,tok=96;kernel=small_m,tok=96,wshare=2;kernel=small_m,tok=128;kernel=small_m,tok=128,wshare=2;kernel=small_m,tok=64;kernel=small_m,tok=64,wshare=2" ;;
    prefill)
      for d in fp16 bf16; do
        T 120 python3 scripts/prefill_gemms.py --dtype $d --out "$OUT/prefill-gemms-$d.csv" > "$L/prefill-$d.log" 2>&1; cat "$L/prefill-$d.log"
      done ;;
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
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    fix8)
      ab fix8 "$RULE1,$ODD,$OFF1" ";kernel=coop1,fixup=8" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
