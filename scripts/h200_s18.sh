#!/usr/bin/env bash
# The eighteenth session's device calls (docs/notes.md, "Eighteenth session").
#   GROUPS_=tests      the full GPU suite
#   GROUPS_=offsuite   shapes outside the suites (other models' layers at 96-4096 tokens): best against cuBLAS and
#                      each tile family forced, one round (logs/offsuite-<M>-summary.txt, M in $MS); the small-M kernel up to 640
#   GROUPS_=outdecode  scripts/shapes/outside-decode.txt (1-32 tokens) through best against cuBLAS
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
# Other models' linear layers (N x K): Qwen2.5-7B (3584; kv 512; gate+up 37888; down), Llama-2-13B (5120, 13824),
# Phi-3-mini (3072: qkv 9216, gate+up 16384, down), a fused q/k/v of Llama-3-8B (6144x4096).
OFF_LAYERS="3584x3584 512x3584 37888x3584 3584x18944 5120x5120 13824x5120 5120x13824 9216x3072 16384x3072 3072x8192 6144x4096"
# one_round <name> <shapes> <candidates>: `ladder bench --tune`, one round, then the summary.
one_round() {
  T 240 "$B/ladder" bench --steps best --shapes "$2" --tune "$3" --target-ms ${TMS:-10} --warmup-ms 5 \
    --csv "$L/csv/$1.csv" > "$L/$1.log" 2>&1
  summary "$L/csv/$1.csv" | tee "$L/$1-summary.txt"
}
for g in ${GROUPS_:-tests}; do
  echo "== $g $(date -u +%T)"
  case $g in
    tests)
      gpu_tests 240 ;;
    offsuite)  # one CSV per token count ($MS), so a timeout loses one
      for m in ${MS:-96 192 384 640}; do
        c=";kernel=coop;kernel=pingpong;kernel=coop_fit"; [ "$m" -le 640 ] && c="$c;kernel=small_m"
        one_round "offsuite-$m" "$(LAYERS="$OFF_LAYERS" shapes "$m")" "$c"
      done ;;
    outdecode)
      T 200 "$B/ladder" bench --steps best --shapes "$(cat scripts/shapes/outside-decode.txt)" --target-ms 20 --warmup-ms 10 \
        --csv "$L/csv/outdecode.csv" > "$L/outdecode.log" 2>&1; tail -3 "$L/outdecode.log" ;;
    final)
      check_suites; bench_suites ${TMS:-60} ;;
    model)
      llama_model ;;
    *) echo "unknown group $g" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs
