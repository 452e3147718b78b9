#!/usr/bin/env bash
# The thirty-first session's device calls (docs/notes.md, "Thirty-first session"); other groups run through
# h200_s30.sh and the earlier scripts (GROUPS_ as there, one at a time):
#   GROUPS_=t31    the SmallMOperands refactor's GPU tests (thirtieth session: compiled, not run), the 6-stage ping-pong's
#                  (kernel=pingpong_deep: one writeback tile the consumers share) and its PDL chain, its check suites
#   GROUPS_=deep   the 6-stage ping-pong against best's pick (the 5-stage one on these), a b b a over two rounds: predicted
#                  ~8 % faster a K-tile where a CTA has one tile (q/o 512×4096×4096, down 512×4096×14336), if the ring's
#                  depth is what binds
#   GROUPS_=qo     the prefill's q/o (512×4096×4096) and down (512×4096×14336) linears in the model's context under ncu:
#                  time, L2's output, the SMs' intake, the LRC's coalescing, the tensor pipe. Same tiles as cuBLAS
#                  (128×128, one wave, clusters of 2 sharing the weights), 8 % slower a K-tile and ~1.7 µs more a call
#                  (twenty-ninth session's profile): is it the ring's depth (Little's law: 5 stages of 32 KB over a
#                  ~1.8 µs load give ~0.36 µs a K-tile, ours) or L2's output (the k/v linear's story)?
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    t31)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.PushedPartials*:SmallM.Multicast*:Pingpong.*:Pdl.*' > "$L/t31-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" "$L/t31-tests.log" | head -12
      local su
      for su in standard fewtile; do
        LADDER_TUNE=kernel=pingpong_deep T 150 "$B/ladder" check --steps best --suite $su --seeds 1 > "$L/t31-check-$su.log" 2>&1
        echo "pingpong_deep $su: $(tail -1 "$L/t31-check-$su.log")"
      done ;;
    rule)  # best with the 6-stage ping-pong for plain GEMMs (auto) against the 5-stage (kernel=pingpong), a b b a; then the
           # prefill's linears in the model's context under each, and the model
      ab rule "512x4096x4096,512x4096x14336,256x8192x8192,1024x4096x4096,512x28672x4096,256x4096x14336" ";kernel=pingpong"
      GROUPS_=pctx PCTX=";kernel=pingpong;;kernel=pingpong" PLAYERS=q/o,down bash "$(dirname "$0")/h200_s29.sh" | grep -v "^==" ;;
    kv64)  # the ping-pong's 64×64 tile with 13 stages (kernel=pingpong_deep64): cuBLAS's k/v kernel's geometry, tiles
           # not swapped (tokens on wgmma's M side), one consumer working a CTA. Its tests, then k/v in the model's context
           # (ncu and prefill_gemms) and flushed, against best's small-M pick. Predicted: if the ring's depth and the tile are
           # what cuBLAS's 12.3 µs needs, ~13 µs against small-M's 17.5
      T 100 "$B/tests/ladder_tests" --gtest_filter='Pingpong.*' > "$L/kv64-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" "$L/kv64-tests.log" | head -8
      QO_SHAPES="1024 4096" QO_TUNES=";kernel=pingpong_deep64" session_group qo
      GROUPS_=pctx PCTX=";kernel=pingpong_deep64" PLAYERS=k/v bash "$(dirname "$0")/h200_s29.sh" | grep -v "^=="
      ab kv64 "512x1024x4096,512x1024x8192,256x1024x4096,512x2048x4096,512x1024x2048" ";kernel=pingpong_deep64" ;;
    mca)  # which operand a cluster multicasts. Ours multicast the weights (cold: read from HBM) and read the tokens
          # (hot: just written) unicast; L2's request coalescer merges two SMs' requests for a sector only while the
          # first is pending, long for a miss to HBM, short for a hit. So multicast the hot tokens (clusters along N,
          # kernel=pingpong_deep_a / pingpong_deep64_a) and leave the cold weights to the coalescer, as cuBLAS's
          # counts allow (the thirtieth session's counts fit either arrangement). Predicted: coalesced sectors up to
          # cuBLAS's ~1.1-1.3 M at k/v and its time ~13.5 µs; q/o and down toward cuBLAS's 25.9 / 85.9
      T 150 "$B/tests/ladder_tests" --gtest_filter='Pingpong.*' > "$L/mca-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" "$L/mca-tests.log" | head -8
      QO_SHAPES="1024 4096" QO_TUNES="kernel=pingpong_deep64;kernel=pingpong_deep64_a" session_group qo
      QO_SHAPES="4096 4096;4096 14336" QO_TUNES="kernel=pingpong_deep;kernel=pingpong_deep_a" session_group qo
      GROUPS_=pctx PCTX=";kernel=pingpong_deep64_a;kernel=pingpong_deep_a" PLAYERS=k/v,q/o,down bash "$(dirname "$0")/h200_s29.sh" | grep -v "^=="
      ab mca "512x1024x4096,512x4096x4096,512x4096x14336,256x8192x8192,512x1024x8192,256x4096x4096" \
        ";kernel=pingpong_deep64_a;kernel=pingpong_deep_a" ;;
    verify31)  # HEAD's GPU suite, best's check suites, the sanitizers on the 6-stage ping-pong (forced)
      gpu_tests 240
      check_suites
      LADDER_TUNE=kernel=pingpong_deep sanitize deep "512x1024x512,1000x1000x520,2048x1024x64,384x2048x256" ;;
    w0)  # the deep copies waiting on all their MMAs each K-tile (kernel=pingpong_deep_w0, pingpong_deep64_w0), as cuBLAS's
         # consumer does (call 8): does that pacing keep the CTAs that share a token tile in step (coalesced sectors up,
         # L2 reads down)? Its tests, then ncu in the model's context at k/v, q/o and down
      T 100 "$B/tests/ladder_tests" --gtest_filter='Pingpong.*' > "$L/w0-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" "$L/w0-tests.log" | head -8
      QO_SHAPES="1024 4096" QO_TUNES="kernel=pingpong_deep64;kernel=pingpong_deep64_w0" session_group qo
      QO_SHAPES="4096 4096;4096 14336" QO_TUNES="kernel=pingpong_deep;kernel=pingpong_deep_w0" session_group qo ;;
    bfirst)  # branch s32-bfirst: each stage's B multicast (the weights) issued before the A load (the tokens), as cuBLAS's
             # producer orders them (s31 call 8's SASS). Its tests, then ncu in the model's context at k/v, q/o and down:
             # do the CTAs sharing a token tile coalesce more (cuBLAS ~1.1 M at k/v, ours ~0.6 M)?
      T 100 "$B/tests/ladder_tests" --gtest_filter='Pingpong.*' > "$L/bfirst-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" "$L/bfirst-tests.log" | head -8
      QO_SHAPES="1024 4096" QO_TUNES="kernel=pingpong_deep64;kernel=pingpong_deep64_bf" session_group qo
      QO_SHAPES="4096 4096;4096 14336" QO_TUNES="kernel=pingpong_deep;kernel=pingpong_deep_bf" session_group qo ;;
    final31)  # the session's last binary: the GPU suite, best's check suites, the sanitizers on the 64×64 deep copy (forced)
      gpu_tests 240
      check_suites
      LADDER_TUNE=kernel=pingpong_deep64 sanitize deep64 "512x1024x512,1000x1000x520,2048x1024x64" ;;
    deep)
      ab deep "512x4096x4096,512x4096x14336,512x14336x4096,512x28672x4096,1024x4096x4096,256x8192x8192,1536x1536x4096,2560x2560x2560,2048x2048x2048,4096x4096x4096,8192x8192x8192,512x1024x4096" \
        ";kernel=pingpong;kernel=pingpong_deep" ;;
    qo)
      local t s m="gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read.sum,sm__pipe_tensor_cycles_active.avg"
      local shapes; IFS=';' read -ra shapes <<< "${QO_SHAPES:-4096 4096;4096 14336}"
      for s in "${shapes[@]}"; do
        set -- $s
        IFS=';' read -ra tunes <<< "${QO_TUNES:-;kernel=pingpong_deep}"
        for t in "${tunes[@]}"; do
          LADDER_TUNE=$t PYTHONPATH=$PWD/python T 150 ncu --cache-control none --clock-control none --metrics "$m" \
            -k "regex:nvjet|pingpong|cooperative|small_m" --launch-skip 12 --launch-count 16 --csv --page raw \
            python3 scripts/context_gemm.py --n $1 --k $2 ${QO_SWAP:+--swap} > "$L/qo${QO_SWAP:-}-$1x$2-${t:-auto}.csv" \
            2> "$L/qo${QO_SWAP:-}-$1x$2-${t:-auto}.err"
          python3 scripts/ncu_raw.py "$L/qo${QO_SWAP:-}-$1x$2-${t:-auto}.csv" "512x$1x$2${QO_SWAP:+ swapped} ${t:-auto}" ${m//,/ }
          tail -2 "$L/qo${QO_SWAP:-}-$1x$2-${t:-auto}.err"
        done
      done ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s30.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
