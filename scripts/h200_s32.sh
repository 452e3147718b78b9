#!/usr/bin/env bash
# The thirty-second session's device calls (docs/notes.md, "Thirty-second session"); other groups run through
# h200_s31.sh and the earlier scripts (GROUPS_ as there, one at a time):
#   GROUPS_=bf32   B_FIRST (the weights' multicast issued before the tokens' load in each stage, as cuBLAS's producer
#                  orders them; s31 call 8's SASS): its tests, ncu in the model's context (k/v, q/o, down) for the LRC's
#                  coalescing, then flushed a b b a against the copies without it. Predicted: if the order is why cuBLAS
#                  coalesces twice as many sectors at k/v, the 64×64 copy nears cuBLAS's ~12.4 µs there (15.7 today);
#                  no change at q/o and down, where the tokens are a small share of the bytes. Measured on the H200
#                  (call 1): no gain anywhere; the copies were removed after 8debbdb, so this group needs that binary
#   GROUPS_=bal    small-M's splits that even out the SMs' shares at the rows under 90 % of the floor (14336×4096 at 8-16
#                  tokens: 224 tiles put two CTAs on 92 SMs, one on 40): split 7 (1568 CTAs, ~12 an SM over waves), 5,
#                  and 2 at four CTAs an SM; predicted: a split that evens the shares gains up to ~7 % if the reduce of
#                  7 partials costs less than the SMs' imbalance (notes, thirty-second session)
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    bf32)
      GROUPS_=bfirst bash "$(dirname "$0")/h200_s31.sh" | grep -v "^== bfirst"
      ab bf "512x1024x4096,512x1024x8192,256x1024x4096,512x4096x4096,512x4096x14336,256x8192x8192" \
        ";kernel=pingpong_deep;kernel=pingpong_deep_bf;kernel=pingpong_deep64;kernel=pingpong_deep64_bf" ;;
    bal)
      ab bal "8x14336x4096,16x14336x4096,1x28672x8192,4x28672x8192" ";split=7,cps=4;split=7,cps=3;split=5,cps=3;split=2,cps=4" ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s31.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
