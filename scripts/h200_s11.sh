#!/usr/bin/env bash
# Eleventh session's plan (written without a GPU; nothing here has run yet). Four questions, one call each, after a verify call:
#   GROUPS_=tma      the TMA stream's ceiling (build/release/ladder_tma_probe, tools/tma_probe.cu): what the small-M
#                    producer streams, with no MMA, against variants of box shape, bytes a row a stage, issue order,
#                    lanes, grid, clusters, L2 hints, and the contiguous-slab ceiling; the GEMM itself beside it, and
#                    cuBLAS's kernels' SASS at the same shapes (ncu's source page)
#   GROUPS_=narrow   the split-16 rule for narrow layers (branch wip/s11-narrow: `auto` is the rule, `cps=1` main's
#                    plan), and the branch's burst producer at 64 and 128 tokens (`burst=2|4` against the plain one)
#   GROUPS_=compile  where the compiled patched model's host time goes (scripts/compile_profile.py), and the host
#                    time of the grad-mode calls (ladder.linear's autograd.Function path against custom_op's); on
#                    the branch's build the ops' CUDA kernels are registered without custom_op's wrapper, so its
#                    torch.ops rows compare with the tenth session's (dev/2026-12-01-s10-host/, another run)
#   GROUPS_=epilogue where the ping-pong's bias epilogue costs ~4.2 k cycles a tile (issue 12): per-SASS stall samples
# Build: branch wip/s11-narrow (main plus the rule; the rule changes only the plans of narrow small-M layers with
# K > 8128 at <= 16 tokens: of the shapes below, 8x1024x8192 in the tma group's GEMM line, timed there with and
# without it), strip the binaries, carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,ladder_tma_probe,tests/ladder_tests,generated}.
# Before any timing: GROUPS_=verify (the GPU tests and the Python GPU tests on this build), then GROUPS_=sanitize
# (compute-sanitizer memcheck, racecheck and synccheck on the branch's new launches).
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
P=$B/ladder_tma_probe
probe() {  # probe <name> <N> <K> <tokens> <configs>
  T 120 "$P" --n "$2" --k "$3" --tokens "$4" --configs "$5" --out "$L/csv/probe-$1.csv" > "$L/probe-$1.log" 2>&1
  cat "$L/probe-$1.log"
}
mkdir -p "$L/csv"
for g in ${GROUPS_:-tma}; do
  echo "== $g $(date -u +%T)"
  case $g in
    tma)
      # 64 tokens, 14336x4096: ours is 112 CTAs of 128 weight rows x 64 tokens, 9 stages, promo 128, evict-first.
      o="R=128,XR=64,S=9,promo=128,evict=1"
      probe t64 14336 4096 64 "$o;$o,evict=0;R=128,XR=0,S=9,promo=128,evict=1;R=128,BR=128,XR=64,S=9,promo=128,evict=1;\
R=128,SC=128,XR=64,S=4,promo=128,evict=1;R=128,SC=128,order=1,XR=64,S=4,promo=128,evict=1;R=128,SC=256,XR=64,S=2,promo=128,evict=1;\
$o,burst=2;$o,burst=4;$o,lanes=3;$o,delay=300;R=128,XR=64,S=4,promo=128,evict=1;R=128,BC=32,SC=64,XR=64,S=9,promo=128,evict=1;\
$o,linear=1,BR=128;R=128,XR=0,S=9,promo=128,evict=1,linear=1,BR=128;R=128,XR=64,S=9,promo=256,evict=1;R=128,XR=64,S=9,promo=0,evict=1;\
R=64,XR=64,S=6,promo=128,evict=1;R=128,XR=64,S=4,split=2,promo=128,evict=1;R=128,XR=64,S=4,split=2,cluster=1,promo=128,evict=1;\
R=256,BR=128,XR=64,S=5,promo=128,evict=1"
      # 128 tokens: ours is split 2 (a cluster), 3 stages of 128x128, two CTAs an SM, promo 256.
      o="R=128,XR=128,S=3,split=2,cluster=1,promo=256"
      probe t128 14336 4096 128 "$o;$o,XR=0;R=128,XR=128,S=6,promo=256;R=128,XR=0,S=6,promo=256;$o,promo=128;$o,evict=1;\
$o,BR=128;$o,lanes=3;R=128,XR=128,S=6,promo=256,linear=1,BR=128;R=128,SC=128,XR=128,S=3,promo=256"
      # 1-16 tokens, the same matrix: ours is 224 CTAs of 64 rows x 8 tokens, 12 stages, two an SM.
      o="R=64,BR=32,XR=8,S=12,promo=128,evict=1"  # (its 64-row tile loads two 32-row boxes a stage)
      probe t8 14336 4096 8 "$o;$o,XR=0;$o,linear=1;R=64,BR=32,XR=8,S=24,promo=128,evict=1;R=64,BR=64,XR=8,S=12,promo=128,evict=1;\
R=64,BR=32,SC=128,XR=8,S=6,promo=128,evict=1;R=128,XR=8,S=12,promo=128,evict=1;$o,lanes=2;$o,lanes=3;$o,burst=2;$o,evict=0"
      # The narrow layers (the lowest share of the floor at M <= 16): main's plan is split 4 at 25 stages, 64 CTAs
      # (the branch's rule: split 16 at 8 stages for K = 8192).
      for k in 4096 8192; do
        n="R=64,BR=32,XR=8,promo=128"
        probe narrow-$k 1024 $k 8 "$n,S=25,split=4,cluster=1;$n,S=25,split=4;$n,S=12,split=8,cluster=1;\
$n,S=8,split=16,cluster=1;$n,S=4,split=16,cluster=1;$n,S=6,split=16,cluster=1;$n,S=8,split=16;R=64,BR=32,XR=0,S=8,split=16,promo=128"
      done
      # The GEMMs of the same matrices (this process's own floor and cuBLAS), for the probe's numbers to stand beside.
      TMS=40 ab gemm "64x14336x4096,128x14336x4096,8x14336x4096,8x1024x4096" ""
      TMS=40 ab gemm-narrow "8x1024x8192" ";cps=1"
      # cuBLAS's kernels' SASS at the same shapes, with their stall samples (its nvjet kernels are not among
      # libcublasLt.so's cubins, only their name's format string is: their code can be read from a profile), and ours.
      mkdir -p "$OUT/c"
      for shape in 64x14336x4096 128x14336x4096 8x14336x4096; do
        for k in nvjet small_m; do
          T 120 ncu --clock-control none --section SourceCounters --section WarpStateStats -k "regex:$k" --launch-skip 4 \
            --launch-count 1 -f -o "$OUT/c/$k-$shape" "$B/ladder" bench --steps best --shapes $shape --target-ms 5 \
            --warmup-ms 1 > "$L/ncu-$k-$shape.log" 2>&1
          ncu -i "$OUT/c/$k-$shape.ncu-rep" --page source --csv --print-source sass > "$OUT/c/$k-$shape-sass.csv" 2>&1
          ncu -i "$OUT/c/$k-$shape.ncu-rep" --page details --print-details all > "$OUT/c/$k-$shape.txt" 2>&1
          rm -f "$OUT/c/$k-$shape.ncu-rep"
          echo "$k $shape: $(grep -c UTMALDG "$OUT/c/$k-$shape-sass.csv") UTMALDG, $(grep -c UTMAPF "$OUT/c/$k-$shape-sass.csv") UTMAPF lines"
        done
      done
      tar czf "$OUT/sass.tgz" -C "$OUT" c && rm -rf "$OUT/c" ;;
    verify)
      T 240 "$B/tests/ladder_tests" --gtest_brief=1 > "$L/tests.log" 2>&1; tail -3 "$L/tests.log"
      PYTHONPATH=$PWD/python T 200 python3 -m pytest -q -x python/tests/test_gpu_ops.py python/tests/test_gpu_torch.py \
        > "$L/pytest-gpu.log" 2>&1; tail -3 "$L/pytest-gpu.log" ;;
    sanitize)
      # The branch's new launches under the sanitizers: the burst producer (64 and 128 tokens, a 3-stage ring under
      # burst 4 at 128x12800x1024: 100 tiles, two CTAs an SM) and the narrow rule's split-16 plan (8x1024x8192);
      # small shapes, one seed.
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        for t in ${SAN_TUNES-burst=2 burst=4 narrow}; do
          [ "$t" = narrow ] && t=""
          LADDER_TUNE=$t T 120 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
            --shapes $([ -z "$t" ] && echo 8x1024x8192,3x1024x8200 || echo 64x1024x4096,100x768x2048,128x12800x1024) \
            --seeds 1 > "$L/sanitize-$tool-${t:-narrow}.log" 2>&1
          echo "$tool ${t:-narrow}: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool-${t:-narrow}.log" | tr '\n' ' ')"
        done
      done ;;
    wbox)  # one weight box a stage (the default on the branch after the probe) against two (wbox=2)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Best.*:*h12*:*h13*' --gtest_brief=1 > "$L/tests-wbox.log" 2>&1
      tail -3 "$L/tests-wbox.log"
      T 200 "$B/ladder" check --steps best,h12 --shapes "$(shapes "1 5 8 16 64 100 128")" > "$L/check-wbox.log" 2>&1
      tail -2 "$L/check-wbox.log"
      ab wbox-a "$(shapes "${WBOX_M:-8 64 128}")" ";wbox=2" ;;
    narrow)
      LAYERS="1024x4096 1024x8192 1024x14336 512x8192" ab narrow-rule "$(LAYERS="1024x4096 1024x8192 1024x14336 512x8192" shapes "1 2 4 8 16")" ";cps=1"
      # The burst producer (LADDER_TUNE burst=2|4) at 64 and 128 tokens, over the nine decode layers; then its check.
      ab burst "$(shapes "64 128")" ";burst=2;burst=4"
      LADDER_TUNE=burst=2 T 200 "$B/ladder" check --steps best --shapes "$(shapes "33 64 100 128")" > "$L/check-burst.log" 2>&1
      tail -2 "$L/check-burst.log"
      for s in 1x1024x8192 16x1024x8192 16x1024x14336; do
        LADDER_TUNE=trace=1 "$B/ladder" bench --steps best --shapes $s --target-ms 1 --warmup-ms 1 2>&1 | grep -m1 "small-M" | sed "s/^/$s: /"
      done
      T 300 "$B/ladder" check --steps best --shapes "$(LAYERS="1024x4096 1024x8192 1024x14336 512x8192 1000x8191" shapes "1 3 8 13 16")" \
        > "$L/check-narrow.log" 2>&1; tail -3 "$L/check-narrow.log" ;;
    compile)
      PYTHONPATH=$PWD/python:$PWD/scripts T 400 python3 scripts/compile_profile.py --out "$L/csv/compile-profile.json" \
        > "$L/compile-profile.log" 2>&1; tail -60 "$L/compile-profile.log"
      PYTHONPATH=$PWD/python:$PWD/scripts T 150 python3 scripts/host_overhead.py --shapes 16x256x256,512x4096x4096 \
        --out "$L/csv/host-overhead.csv" > "$L/host-overhead.log" 2>&1; grep "us/call" "$L/host-overhead.log" ;;
    epilogue)
      # The SASS of the bias copy converts each bias value right after its LDG, before the turn wait (cuobjdump of
      # pingpong.cu.o, 2026-12-01): if a consumer reaches its turn late, that latency is on the tensor core's path.
      # Source counters say where the stall samples fall, instruction by instruction (none against bias).
      ncu_pingpong_epilogue "$OUT/e"
      tar czf "$OUT/epilogue.tgz" -C "$OUT" e && rm -rf "$OUT/e" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
