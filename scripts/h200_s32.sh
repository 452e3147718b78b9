#!/usr/bin/env bash
# The thirty-second session's device calls (docs/notes.md, "Thirty-second session"); other groups run through
# h200_s31.sh and the earlier scripts (GROUPS_ as there, one at a time):
#   GROUPS_=bf32   B_FIRST (the weights' multicast issued before the tokens' load in each stage, as cuBLAS's producer
#                  orders them; s31 call 8's SASS): its tests, ncu in the model's context (k/v, q/o, down) for the LRC's
#                  coalescing, then flushed a b b a against the copies without it. Predicted: if the order is why cuBLAS
#                  coalesces twice as many sectors at k/v, the 64×64 copy nears cuBLAS's ~12.4 µs there (15.7 today);
#                  no change at q/o and down, where the tokens are a small share of the bytes. Measured on the H200
#                  (call 1): no gain anywhere; the copies were removed after 8debbdb, so this group needs that binary
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    bf32)
      GROUPS_=bfirst bash "$(dirname "$0")/h200_s31.sh" | grep -v "^== bfirst"
      ab bf "512x1024x4096,512x1024x8192,256x1024x4096,512x4096x4096,512x4096x14336,256x8192x8192" \
        ";kernel=pingpong_deep;kernel=pingpong_deep_bf;kernel=pingpong_deep64;kernel=pingpong_deep64_bf" ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s31.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
