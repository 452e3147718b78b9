#!/usr/bin/env bash
# One device call for a change to the small-M plan: check it (small-M suite, decode suite, the shapes outside it),
# trace a few launches, then an interleaved A/B against an older CLI build OLD (default .ab/ladder-0d8aa60, this
# session's start; build one with a git worktree) over the decode suite's M <= 128 and scripts/shapes/outside-decode.txt.
# Used 2026-12-01 (docs/results/dev/2026-12-01-s5-cps-rule/, -s5-busiest/).
set -u
B=build/release; L=$OUT/logs; mkdir -p $L
export CI=1
timeout 200 $B/ladder check --steps h12,h13,best --suite smallm --seeds 1 > $L/check-smallm.log 2>&1; echo "smallm: $(tail -1 $L/check-smallm.log)"
timeout 100 $B/ladder check --steps best --suite decode --seeds 2 > $L/check-decode.log 2>&1; echo "decode: $(tail -1 $L/check-decode.log)"
timeout 100 $B/ladder check --steps best --shapes $(cat scripts/shapes/outside-decode.txt) --seeds 1 > $L/check-outside.log 2>&1; echo "outside: $(tail -1 $L/check-outside.log)"
LADDER_TRACE=1 timeout 60 $B/ladder bench --steps best --shapes 1x28672x8192,1x5120x5120,1x10240x8192,1x6144x4096,16x1024x4096 --target-ms 5 > $L/trace.log 2>&1
S=$(python3 -c "
l=[(4096,4096),(1024,4096),(14336,4096),(4096,14336),(128256,4096),(8192,8192),(1024,8192),(28672,8192),(8192,28672)]
print(','.join(f'{m}x{n}x{k}' for m in (1,2,4,8,16,32,64,128) for n,k in l))"),$(cat scripts/shapes/outside-decode.txt)
OUT=$OUT/ab ROUNDS=2 SHAPES=$S TARGET_MS=30 bash scripts/h200_ab.sh old=${OLD:-.ab/ladder-0d8aa60}:best new=$B/ladder:best
tail -3 $OUT/ab/ab.log
tar -C $OUT -czf $OUT/logs.tgz logs ab && rm -rf $L $OUT/ab
