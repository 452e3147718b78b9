#!/usr/bin/env bash
# The twenty-ninth session's device calls (docs/notes.md, "Twenty-ninth session"); other groups run through
# h200_s28.sh (GROUPS_ as there, one at a time):
#   GROUPS_=pctx   the prefill's short linears in the model's context (prefill_gemms.py --context model, call 2 of this
#                  session reproduced the model's profile there: k/v 17.6 against cuBLAS's 12.3 µs, q/o 30.8 against
#                  28.2 on an H100) under each LADDER_TUNE in $PCTX (";"-separated; "" = best's pick), one process each
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    pctx)
      local t i=0
      IFS=';' read -ra tunes <<< "${PCTX:-}"
      for t in "${tunes[@]}"; do
        i=$((i + 1))
        LADDER_TUNE=$t T 60 python3 scripts/prefill_gemms.py --context model --layers "${PLAYERS:-q/o,k/v}" \
          --out "$L/csv/pctx-$i.csv" > "$L/pctx-$i.log" 2>&1
        grep -E "model" "$L/pctx-$i.log" | sed "s/^/[${t:-auto}] /" | cut -c1-120
      done ;;
    cncu)  # ncu (no cache control, no clock control) of cuBLAS's and ladder's k/v linear in the model's context and
           # after a 256 MB write (the suites' context): matching launches 13-28 = ladder 4, torch 8, ladder 4
      local c
      for c in model flush; do
        PYTHONPATH=$PWD/python T 200 ncu --cache-control none --clock-control none --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats -k "regex:nvjet|small_m" \
          --launch-skip 12 --launch-count 16 -f -o "$L/cncu-$c" python3 scripts/context_gemm.py \
          $([ $c = flush ] && echo --flush) > "$L/cncu-$c.log" 2>&1
        ncu -i "$L/cncu-$c.ncu-rep" --page details --print-details all > "$L/cncu-$c-details.txt" 2>&1
        ncu -i "$L/cncu-$c.ncu-rep" --page raw --csv 2>/dev/null | gzip > "$L/cncu-$c-raw.csv.gz"
        rm -f "$L/cncu-$c.ncu-rep"
        python3 - "$L/cncu-$c-details.txt" "$c" <<'P'
import re, sys
kern, rows = None, {}
for line in open(sys.argv[1]):
    if re.match(r"^  \S", line) and ("nvjet" in line or "small_m" in line):
        kern = "cublas" if "nvjet" in line else "ladder"
    m = re.match(r"^\s+(Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit Rate|L2 Hit Rate|Memory Throughput|Compute \(SM\) Throughput|SM Frequency)\s+(\S+)\s+([\d.,]+)", line)
    if kern and m:
        rows.setdefault((kern, m.group(1)), []).append(float(m.group(3).replace(",", "")))
for (kern, name), v in sorted(rows.items()):
    v = sorted(v)
    print(f"{sys.argv[2]:5s} {kern:6s} {name:28s} median {v[len(v) // 2]:.2f} ({len(v)}: {v[0]:.2f}-{v[-1]:.2f})")
P
      done ;;
    csrc)  # ncu source counters and memory tables of the k/v linear in the model's context: ladder's small-M and cuBLAS
      PYTHONPATH=$PWD/python T 200 ncu --cache-control none --clock-control none --section SourceCounters \
        --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis_Chart \
        --import-source yes -k "regex:nvjet|small_m" --launch-skip 14 --launch-count 4 -f -o "$L/csrc" \
        python3 scripts/context_gemm.py > "$L/csrc.log" 2>&1
      ncu -i "$L/csrc.ncu-rep" --page details --print-details all > "$L/csrc-details.txt" 2>&1
      ncu -i "$L/csrc.ncu-rep" --page raw --csv 2>/dev/null | gzip > "$L/csrc-raw.csv.gz"
      ncu -i "$L/csrc.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$L/csrc-sass.csv.gz"
      rm -f "$L/csrc.ncu-rep"; ls -la "$L"/csrc* ;;
    mc)  # small-M's weights multicast to two token tiles (the 128x64 tile by default; mc=1 off, mc=2 wherever it can):
         # GPU tests of the family, the check suites under mc=2, the model's context and the suites' rows, a b b a.
         # Predicted: k/v 512x1024x4096 in the model's context 17.5 -> ~13 us (L2's output 88 -> ~60 MB at ~5 TB/s)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Pdl.*:CoopFit.*:Determinism*:*Split*' > "$L/mc-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/mc-tests.log" | head -12
      LADDER_TUNE=mc=2 T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 2 > "$L/mc-check-smallm.log" 2>&1
      echo "mc=2 smallm: $(tail -1 "$L/mc-check-smallm.log")"
      LADDER_TUNE=mc=2 T 100 "$B/ladder" check --steps best --suite sweep --seeds 2 > "$L/mc-check-sweep.log" 2>&1
      echo "mc=2 sweep: $(tail -1 "$L/mc-check-sweep.log")"
      PCTX=";mc=1;;mc=1" PLAYERS=k/v session_group pctx
      ab mc "512x1024x4096,500x1000x4000,384x1024x4096,256x1024x4096,512x1024x8192,256x1024x8192,128x1024x8192,512x2048x4096,256x4096x4096,128x4096x4096,512x4096x4096" \
        ";mc=1;tok=64,mc=2;tok=128,mc=2;tok=128,mc=1" ;;
    mc2)  # the multicast by default wherever every cluster is resident: the GPU suite, best's check suites, the decode
          # suite's rows at 128-512 tokens against mc=1 (two rounds), the k/v linear in the model's context at 2 CTAs an SM
      gpu_tests 200
      check_suites
      ab mc2 "$(shapes "128 256 512")" ";mc=1"
      PCTX=";mc=1;tok=64,split=2,mc=2,cps=2;tok=128,mc=2;tok=64,split=2,mc=2,cps=2" PLAYERS=k/v session_group pctx ;;
    mcsan)  # compute-sanitizer on the multicast path (forced: mc=2 with the 128-row 64-token tiles of h12 and best; a
            # last token tile of fewer rows, splits 1-2), then the suites benched
      LADDER_TUNE=mc=2,tok=64 sanitize mc "256x1024x2048,250x2048x1032,128x1024x4096"
      bench_suites ${TMS:-60} ;;
    pytest)
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log" ;;
    last)  # the session's last call: on an H200 the published set (suites, model, checks); else the model and issue
           # 12's benchmark at HEAD as development results; the Python GPU tests either way
      if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
        bench_suites ${TMS:-60}; llama_model | tail -12; check_suites
      else
        echo "not an H200"; llama_model | tail -12; session_group torch
      fi
      session_group pytest ;;
    preab)  # the kernel before the multicast (build/ab/ladder-pre, 3c67e05: small_m.cu.o 556 KB larger) against HEAD's,
            # a b b a: small-M's single-token-tile rows (no multicast) and three split 128-row tiles
      AB_A=build/ab/ladder-pre abx pre "$(LAYERS="4096x4096 1024x4096 14336x4096 4096x14336 1024x8192" shapes "1 8 16 32 64"),512x1024x8192,512x1024x4096,256x1024x4096" "" ;;
    mcfix)  # the multicast as a compile-time Config parameter (the other kernels as before it): small-M's check suite under
            # the default and with the multicast forced, then preab again (predicted: b = a on the single-tile rows)
      T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 2 > "$L/check-smallm.log" 2>&1; echo "smallm: $(tail -1 "$L/check-smallm.log")"
      LADDER_TUNE=mc=2 T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 2 > "$L/mc-check-smallm.log" 2>&1
      echo "mc=2 smallm: $(tail -1 "$L/mc-check-smallm.log")"
      session_group preab ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s28.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
