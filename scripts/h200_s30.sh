#!/usr/bin/env bash
# The thirtieth session's device calls (docs/notes.md, "Thirtieth session"); other groups run through h200_s29.sh and
# h200_s28.sh (GROUPS_ as there, one at a time):
#   GROUPS_=mc64   the 64×64 tile's weights multicast to two token tiles (LADDER_TUNE wg=1,mc=2; cuBLAS's k/v kernel is
#                  this geometry: 64×64 tiles, 128 CTAs, clusters of 2): its GPU test, the check suite forced, the
#                  suite's shapes a b b a against best and the unicast 64×64 tile, and k/v in the model's context.
#                  Predicted (L2's output: 128 → 96 MB read out of L2 at 512×1024×4096): 15.3 → ~12 µs at the 64×64 tile
#   GROUPS_=pdlab  the flushed suite's rows with PDL off (pdl=0) against best: does the flush kernel's overlap flatter
#                  small-M there (the suite's 14.6 µs at 512×1024×4096 against 18.4 under ncu)?
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    mc64)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.Multicast*' > "$L/mc64-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|differ" "$L/mc64-tests.log" | head -12
      LADDER_TUNE=wg=1,mc=2 T 150 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/mc64-check-smallm.log" 2>&1
      echo "wg=1,mc=2 smallm: $(tail -1 "$L/mc64-check-smallm.log")"
      ab mc64 "512x1024x4096,384x1024x4096,256x1024x4096,128x1024x4096,512x1024x2048,128x4096x4096,256x2048x4096,128x2048x4096,512x1024x3072" \
        ";wg=1,mc=1;wg=1,mc=2"
      GROUPS_=pctx PCTX=";wg=1,mc=1;wg=1,mc=2;;wg=1,mc=2" PLAYERS=k/v bash "$(dirname "$0")/h200_s29.sh" | grep -v "^==" ;;
    pdlab)
      ab pdl "512x1024x4096,256x1024x4096,512x1024x8192,1x4096x4096,8x1024x8192,128x4096x4096" ";pdl=0" ;;
    ncu64)  # L2's sectors against the bytes delivered to the SMs, per kernel, for the k/v linear in the model's context:
            # best's pick, the 64×64 tile unicast and multicast (LADDER_TUNE per process), and cuBLAS (nvjet, 64×64 tiles,
            # clusters of 2). ncu at call 6 of the twenty-ninth session: cuBLAS's SMs received 134 MB for 55 MB of L2
            # sectors (2.45×), ours 101 MB for 93 MB: more than a 2-CTA multicast of one operand (1.33×) explains.
      local t i=0 m="gpu__time_duration.sum,lts__t_sectors.sum,lts__t_requests.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,launch__grid_size"
      local tunes; IFS=';' read -ra tunes <<< "${NCU_TUNES:-;wg=1,mc=1;wg=1,mc=2}"
      for t in "${tunes[@]}"; do
        i=$((i + 1))
        LADDER_TUNE=$t PYTHONPATH=$PWD/python T 200 ncu --cache-control none --clock-control none --metrics "$m" \
          -k "regex:nvjet|small_m" --launch-skip 12 --launch-count 16 --csv --page raw python3 scripts/context_gemm.py \
          > "$L/ncu64-$i.csv" 2> "$L/ncu64-$i.err"
        python3 scripts/ncu_raw.py "$L/ncu64-$i.csv" "${t:-auto}" ${m//,/ }
        tail -3 "$L/ncu64-$i.err"
      done ;;
    sweep64)  # the 64×64 tile multicast (wg=1,mc=2) against best and its unicast copy over 256-512 tokens and the
              # narrower layers, two rounds (call 1: 512×2048×4096 19.5-19.8 against best's 22.0; 512×1024×4096 16.4
              # against 14.8): is there a regime for a default?
      ab sweep64 "$(LAYERS="1536x4096 2048x4096 2560x4096 3072x4096 2048x2048 2048x8192 1024x2048" shapes "256 384 512")" \
        ";wg=1,mc=1;wg=1,mc=2" ;;
    tiles)  # best's tile kernels forced against its pick at 128-512 tokens (call 4: at 512×2048×4096 the 128×64 ping-pong
            # tiles ran 18.3 µs where best's small-M 128×128 split ran 21.4 and the model said 24.7 against 18.6; cuBLAS
            # 16.5): where does the cost model misjudge the tiles against small-M? Two rounds
      ab tiles "$(LAYERS="1024x4096 1024x8192 1536x4096 2048x2048 2048x4096 3072x4096 4096x4096 2048x8192" shapes "128 256 384 512"),256x8192x8192,256x4096x14336,384x4096x14336" \
        ";kernel=pingpong_narrow;kernel=pingpong;kernel=coop_fit" ;;
    lrc)  # does an L2 request coalescer explain cuBLAS's 58 MB? The chip's lrc__ / multicast metrics, then each of them
          # (sums) on the k/v linear in the model's context for best's pick, the 64×64 multicast and cuBLAS
      ncu --query-metrics --chip gh100 > "$L/metrics-gh100.txt" 2>&1
      grep -iE "^(lrc|lts__t_(sectors|requests)_srcunit_tex_op_read|.*multicast)" "$L/metrics-gh100.txt" | cut -c1-150 | head -30
      local m; m=$(grep -oE "^lrc__[a-z0-9_]+" "$L/metrics-gh100.txt" | sort -u | grep -vE "average|cycles|ilc" | \
        sed 's/$/.sum/' | paste -sd,)
      echo "metrics: $m"
      local tunes; IFS=';' read -ra tunes <<< "${LRC_TUNES:-;wg=1,mc=2}"
      [ -n "$m" ] && for t in "${tunes[@]}"; do
        LADDER_TUNE=$t PYTHONPATH=$PWD/python T 200 ncu --cache-control none --clock-control none \
          --metrics "gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,$m" \
          -k "regex:nvjet|small_m" --launch-skip 12 --launch-count 16 --csv --page raw python3 scripts/context_gemm.py \
          > "$L/lrc-${t:-auto}.csv" 2> "$L/lrc-${t:-auto}.err"
        python3 scripts/ncu_raw.py "$L/lrc-${t:-auto}.csv" "${t:-auto}"
        tail -2 "$L/lrc-${t:-auto}.err"
      done ;;
    lrcst)  # the LRC's hardware coalescing (two SMs' requests for one sector served by one L2 read) against the ring's
            # depth and the tile: call 7 found cuBLAS's and the 64×64 multicast's requests identical (786k, 262k of them
            # multicast), and cuBLAS's unicast sectors coalesced 1.35M times against ours 0.60M: a matter of timing
      local t m="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read.sum"
      IFS=';' read -ra tunes <<< "${LRC_TUNES:-wg=1,mc=2,stages=4;wg=1,mc=2,stages=6;wg=1,mc=2,stages=8;wg=1,mc=2,stages=10}"
      for t in "${tunes[@]}"; do
        LADDER_TUNE=$t PYTHONPATH=$PWD/python T 100 ncu --cache-control none --clock-control none --metrics "$m" \
          -k "regex:nvjet|small_m" --launch-skip 12 --launch-count 16 --csv --page raw python3 scripts/context_gemm.py \
          > "$L/lrcst-$t.csv" 2> "$L/lrcst-$t.err"
        python3 scripts/ncu_raw.py "$L/lrcst-$t.csv" "$t" ${m//,/ }
      done ;;
    fixed)  # the fixed cost a call, chained and isolated: K from 64 up at the k/v layer's M×N and at one token
      ab fixed "512x1024x64,512x1024x256,512x1024x1024,512x1024x2048,512x1024x4096,1x4096x64,1x4096x512,1x4096x4096,64x1024x64,128x4096x64" \
        ";pdl=0;wg=1,pdl=0;tok=128,pdl=0" ;;
    headab)  # the session's kernels (four more kernels: the 64×64 multicast copies) against the
             # twenty-ninth session's last binary (build/ab/ladder-a, 8e169a5), a b b a: predicted the same to ±0.2 µs (call 10 with the
             # raster knob's Args field: 0.2-0.5 µs slower on the split rows; without it the SASS is 8e169a5's)
      abx head "$(LAYERS="4096x4096 1024x4096 14336x4096 4096x14336 1024x8192" shapes "1 8 32 64"),512x1024x8192,500x1000x4000,512x1024x4096,256x1024x4096,128x4096x4096,256x4096x4096" "" ;;
    verify30)  # HEAD's GPU suite, best's check suites, and the sanitizers on the 64×64 multicast (forced)
      gpu_tests 240
      check_suites
      LADDER_TUNE=wg=1,mc=2 sanitize mc64 "256x1024x2048,250x2048x1032,512x1024x1024" ;;
    pdlft)  # the few-tile suite and the standard set's short shapes isolated (pdl=0) beside best's chained calls
      ab pdlft "256x8192x8192,1536x1536x4096,2560x2560x2560,512x4096x4096,512x14336x4096,1024x1024x1024,2048x2048x2048,4096x4096x4096" ";pdl=0" ;;
    pdlsuite)  # the decode suite with every launch isolated (pdl=0) beside best's chained launches, one round
      T 200 "$B/ladder" bench --steps best --suite decode --tune ";pdl=0" --target-ms 20 --warmup-ms 10 \
        --csv "$OUT/bench-decode-pdl.csv" > "$L/bench-decode-pdl.log" 2>&1; tail -3 "$L/bench-decode-pdl.log" ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s29.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
