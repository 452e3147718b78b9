#!/usr/bin/env bash
# Twelfth session's plan: the cooperative tiles fitted to the waves (best's `coop_fit`, forced by LADDER_TUNE while it
# is measured), and the cluster probe (tools/cluster_probe.cu) for the synccheck report on clusters of > 8 CTAs.
#   GROUPS_=fitcheck  the GPU tests of the fitted tiles, `check` of every width over a sweep, the torch check of the
#                     fused epilogues through coop_fit
#   GROUPS_=fitsan    compute-sanitizer memcheck, racecheck and synccheck on two fitted tiles, small shapes
#   GROUPS_=fitbench  interleaved A/B of `auto` against coop_fit (the model's width and each compiled width) at
#                     128, 256 and 512 tokens over the decode layers and on the few-tile shapes
#   GROUPS_=fitab     best's rule for the fitted tile at 65-128 tokens against the small-M kernel; widths forced below
#   GROUPS_=cluster   ladder_cluster_probe plain and under compute-sanitizer synccheck / memcheck
#   GROUPS_=verify    every GPU test and the Python GPU tests
# Build here (cmake --preset release && cmake --build --preset release), strip, carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,ladder_cluster_probe,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
FIT1="64 112 224"      # the 1-CTA-cluster widths (M <= 128)
FIT2="64 144 208 224"  # the 2-CTA-cluster widths
FEW="256x8192x8192,1536x1536x4096,2560x2560x2560,512x4096x4096,512x14336x4096,1024x1024x4096,2048x2048x2048,3000x5000x2000,768x4096x4096,1536x4096x4096"
for g in ${GROUPS_:-fitcheck}; do
  echo "== $g $(date -u +%T)"
  case $g in
    fitcheck)
      T 200 "$B/tests/ladder_tests" --gtest_filter='CoopFit.*:Tuning.*' --gtest_brief=1 > "$L/tests-fit.log" 2>&1
      tail -3 "$L/tests-fit.log"
      for w in $FIT1; do
        LADDER_TUNE=kernel=coop_fit,width=$w T 200 "$B/ladder" check --steps best \
          --shapes 1x4096x4096,16x1000x520,77x14336x1032,128x4096x4096,128x1000x8200,100x2049x4104 > "$L/check-fit-$w-1.log" 2>&1
        echo "width $w cluster 1: $(tail -1 "$L/check-fit-$w-1.log")"
      done
      for w in $FIT2; do
        LADDER_TUNE=kernel=coop_fit,width=$w T 200 "$B/ladder" check --steps best \
          --shapes 129x4096x4096,256x1000x520,300x14336x1032,512x4096x4096,1536x1536x4096,777x2049x4104 > "$L/check-fit-$w-2.log" 2>&1
        echo "width $w cluster 2: $(tail -1 "$L/check-fit-$w-2.log")"
      done
      LADDER_TUNE=kernel=coop_fit T 200 python3 scripts/check_v2_torch.py --csv "$L/csv/check-v2-fit.csv" > "$L/check-v2-fit.log" 2>&1
      tail -1 "$L/check-v2-fit.log"; grep FAIL "$L/check-v2-fit.log" | head -5 ;;
    fitsan)
      for tool in ${TOOLS:-memcheck racecheck synccheck}; do
        for t in kernel=coop_fit,width=112 kernel=coop_fit,width=144; do
          LADDER_TUNE=$t T 120 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best \
            --shapes 128x344x520,77x1000x136,300x344x520 --seeds 1 > "$L/sanitize-$tool-${t##*=}.log" 2>&1
          echo "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$tool-${t##*=}.log" | tr '\n' ' ')"
        done
      done ;;
    fitbench)
      c1=";kernel=coop_fit"; for w in $FIT1; do c1="$c1;kernel=coop_fit,width=$w"; done
      c2=";kernel=coop_fit"; for w in $FIT2; do c2="$c2;kernel=coop_fit,width=$w"; done
      ab fit128 "$(shapes 128)" "$c1"
      ab fit256 "$(shapes 256)" "$c2"
      ab fit512 "$(shapes 512)" "$c2"
      ab fitfew "$FEW" "$c2" ;;
    fitab)
      # best's rule (65-128 tokens, a width that fills its waves) against the small-M kernel it replaces there, and
      # the fitted widths forced below 65 tokens, where the rule does not apply yet.
      ab fitab "$(LAYERS="14336x4096 28672x8192 128256x4096 4096x4096 8192x8192" shapes "128 96 65")" \
        ";kernel=small_m;kernel=coop_fit,width=112;kernel=coop_fit,width=224"
      ab fitlow "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "64 48 32 16")" \
        ";kernel=coop_fit,width=112;kernel=coop_fit,width=224"
      for s in 128x14336x4096 100x28672x8192 128x128256x4096 128x4096x4096; do
        LADDER_TRACE=1 "$B/ladder" bench --steps best --shapes $s --target-ms 1 --warmup-ms 1 2>&1 | grep -m1 -E "cooperative|small-M" | sed "s/^/$s: /"
      done ;;
    narrow)  # the narrow-layer rule (split 16 at <= 16 tokens, K >= 128 K-tiles; cps=1 the plan before it)
      LAYERS="1024x8192 1024x14336 512x8192" ab narrow-rule "$(LAYERS="1024x8192 1024x14336 512x8192" shapes "1 8 16")" ";cps=1"
      ab fit-width "$(LAYERS="128256x4096 28672x8192 14336x4096" shapes "128 100 80")" ";kernel=small_m;kernel=coop_fit,width=112;kernel=coop_fit,width=224" ;;
    fitlow2)  # the 1-CTA fitted tile with A in two 64-row boxes, the empty one skipped (M <= 64), against small-M
      ab fitlow2 "$(LAYERS="14336x4096 28672x8192 128256x4096 8192x8192 4096x4096" shapes "64 48 32 16 8")" \
        ";kernel=coop_fit,width=112;kernel=coop_fit,width=224"
      ab fitmid2 "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "128 96 65")" ";kernel=small_m" ;;
    xbox)  # small-M's token box of M rows where M < N_TOK, against N_TOK rows (xbox=1); the fitted rule at 33-64
      ab xbox "$(shapes "1 2 4 5 12")" ";xbox=1"
      ab fit33 "$(LAYERS="14336x4096 28672x8192 128256x4096 8192x8192" shapes "33 40 64")" ";kernel=small_m"
      T 200 "$B/ladder" check --steps best,h12,h13 --shapes "$(shapes "1 2 4 5 12 33 40 64")" --seeds 7 > "$L/check-xbox.log" 2>&1
      tail -1 "$L/check-xbox.log"
      T 100 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:CoopFit.*:Best.*' --gtest_brief=1 > "$L/tests-xbox.log" 2>&1
      tail -2 "$L/tests-xbox.log" ;;
    lastsan)  # the last call's sanitizers: small-M's M-row token box (split <= 8: synccheck's limit), coop_fit at 33-64
      for tool in memcheck racecheck synccheck; do
        T 150 compute-sanitizer --tool $tool --error-exitcode 9 "$B/ladder" check --steps best,h12 \
          --shapes 1x1024x4096,5x1000x2056,12x344x520,40x14336x256,64x28672x128 --seeds 1 > "$L/lastsan-$tool.log" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/lastsan-$tool.log" | tr '\n' ' ')"
      done
      for s in 1x1024x4096 5x1000x2056 12x344x520 40x14336x256 64x28672x128; do
        LADDER_TRACE=1 "$B/ladder" bench --steps best --shapes $s --target-ms 1 --warmup-ms 1 2>&1 | grep -m1 -E "cooperative|small-M" | sed "s/^/$s: /"
      done ;;
    abox)  # the fitted tile's A box trimmed to M rows below 64 tokens (the rule's 33-63), against small-M; then check
      ab abox "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "33 40 48 64")" ";kernel=small_m"
      T 200 "$B/ladder" check --steps best --shapes "$(LAYERS="14336x4096 28672x8192 128256x4096" shapes "33 40 63 64 65")" \
        --seeds 8 > "$L/check-abox.log" 2>&1; tail -1 "$L/check-abox.log"
      T 100 "$B/tests/ladder_tests" --gtest_filter='CoopFit.*:Best.*:SmallM.*' --gtest_brief=1 > "$L/tests-abox.log" 2>&1
      tail -2 "$L/tests-abox.log"
      for w in 64 112 144 208 224; do  # every width's fused epilogues (the other cluster's cases are refused: skipped)
        LADDER_TUNE=kernel=coop_fit,width=$w T 100 python3 scripts/check_v2_torch.py > "$L/check-v2-w$w.log" 2>&1
        echo "v2 width $w: $(tail -1 "$L/check-v2-w$w.log")"; grep FAIL "$L/check-v2-w$w.log" | head -3
      done
      T 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/ladder" check --steps best \
        --shapes 40x14336x256,33x28672x128 --seeds 1 > "$L/abox-memcheck.log" 2>&1
      echo "memcheck: $(grep -E 'ERROR SUMMARY|passed' "$L/abox-memcheck.log" | tr '\n' ' ')" ;;
    cluster)
      P=$B/ladder_cluster_probe
      T 60 "$P" > "$L/cluster-plain.log" 2>&1; cat "$L/cluster-plain.log"
      for tool in synccheck memcheck; do
        T 200 compute-sanitizer --tool $tool "$P" --sizes 8,12,16 > "$L/cluster-$tool.log" 2>&1
        echo "$tool: $(grep -cE 'Barrier error|Missing wait' "$L/cluster-$tool.log") barrier reports"
        grep -E "result=|ERROR SUMMARY" "$L/cluster-$tool.log" | head -30
      done ;;
    verify)
      T 300 "$B/tests/ladder_tests" --gtest_brief=1 > "$L/tests.log" 2>&1; tail -3 "$L/tests.log"
      PYTHONPATH=$PWD/python T 200 python3 -m pytest -q -x python/tests/test_gpu_ops.py python/tests/test_gpu_torch.py \
        > "$L/pytest-gpu.log" 2>&1; tail -3 "$L/pytest-gpu.log" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
