#!/usr/bin/env bash
# Eighth session: the small-M weights' TMA L2 promotion (ncu: our decode kernel sees 27 % L2 hits against cuBLAS's
# 1.5 %, at 69 % of DRAM peak against 77 %; our maps promote each 128-B row read to a 256-B fill). Checks under
# l2promo=128, and the decode layers at M = 1, 16, 32, 64 under 256 (default) / 128 / 64 / none.
# promo-tiles: the same for the other families' maps. (The session's h14, ksub and wg=2 sections are in the history at dc855c1, 28265cf and 33a11e3.)
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
for s in ${SECTIONS:-promo-check promo-bench}; do
  echo "== $s $(date -u +%T)"
  case $s in
    promo-check)
      for t in l2promo=128 l2promo=0; do
        LADDER_TUNE=$t T 200 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode-$t.log" 2>&1
        echo "$t: decode $(tail -1 "$L/check-decode-$t.log")"
      done ;;
    promo-bench)
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "${MS:-1 16 32 64}")" \
        --tune "${TUNES:-;l2promo=128;l2promo=64;l2promo=0}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/promo-bench.csv" > "$L/promo-bench.log" 2>&1
      summary "$OUT/promo-bench.csv" ;;
    promo-tiles)  # the same for every family (l2promo set applies to the ping-pong's and cooperative kernel's A and B maps
                  # too): the decode suite's M = 128-512 rows, the few-tile shapes and a part of the standard suite
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "128 256 512"),256x8192x8192,1536x1536x4096,2560x2560x2560,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x14336x4096,8192x28672x8192" \
        --tune "${TUNES:-;l2promo=128;l2promo=0}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/promo-tiles.csv" > "$L/promo-tiles.log" 2>&1
      summary "$OUT/promo-tiles.csv" ;;
    evict)  # the weights' loads with an L2 evict-first hint (l2evict=1), at the default promotion and with none
      LADDER_TUNE=l2evict=1 T 200 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode-evict.log" 2>&1
      echo "l2evict=1: decode $(tail -1 "$L/check-decode-evict.log")"
      T 500 "$B/ladder" bench --steps best --shapes "$(shapes "${MS:-1 16 32 64}")" \
        --tune "${TUNES:-;l2evict=1;l2evict=1,l2promo=0}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/evict-bench.csv" > "$L/evict-bench.log" 2>&1
      summary "$OUT/evict-bench.csv" ;;
    evict128)  # the same hint forced on the 128-token tile (M = 65-512 where best runs small-M)
      T 300 "$B/ladder" bench --steps best --shapes "$(shapes "128 256 512")" \
        --tune "${TUNES:-;l2evict=1;l2evict=1,l2promo=128}" --target-ms ${TMS:-30} --warmup-ms 10 --csv "$OUT/evict128-bench.csv" > "$L/evict128-bench.log" 2>&1
      summary "$OUT/evict128-bench.csv" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
