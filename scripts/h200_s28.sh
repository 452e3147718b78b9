#!/usr/bin/env bash
# The twenty-eighth session's device calls (docs/notes.md, "Twenty-eighth session"):
#   GROUPS_=rules   best's two rules that call 2's sweep put in doubt, on the suite's rows and beside them:
#                   (a) at 33-64 tokens the fitted cooperative tile where its one wave fills the SMs (coop_fit) against
#                   small-M; (b) where small-M takes 64×64 tiles for one wave (K <= 4096, M <= 512), the 128-row tile
#                   of 64 tokens and a K split (tok=64) against them (ladder bench --tune, one process, two rounds)
#   GROUPS_=torch   issue 12's MLP and Linear+bias+GELU (no compile baselines) at HEAD
#   GROUPS_=rab     the two new rules (0f73d37) against the old picks in one process (wg=1: the 64×64 tiles; kernel=small_m:
#                   small-M at 33-64 tokens), on the rows they move and two they do not
#   GROUPS_=h200only the groups in $THEN only on an H200 (the published tables are the H200's), else those in $ELSE
#   GROUPS_=pgemm   the prefill's linears in the model's context (scripts/prefill_gemms.py --context model: each GEMM
#                   its own cold weight, its input just written), never run since the twenty-first session wrote it
#   GROUPS_=eagerab the model's eager prefill under the new k/v tile and the old (LADDER_TUNE wg=1), fp16, batch 1,
#                   six processes in turn (a b a b a b: the noise between processes is larger than the effect seen)
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    rules)  # predicted: (a) coop_fit 2-4 % faster wherever its wave is >= 95 % full (64×14336×4096: 33.0 against 34.5);
            # (b) tok=64 faster where the tokens' re-reads dominate (512×1024×4096: 12.8 against 14.7), a tie at
            # 128×4096×4096 (15.2 against 15.3)
      ab fit "64x14336x4096,48x14336x4096,40x14336x4096,64x28672x8192,48x28672x8192,64x8192x8192,48x8192x8192,64x8192x28672,64x128256x4096,56x14336x4096,33x14336x4096" ";kernel=coop_fit"
      ab w64 "512x1024x4096,448x1024x4096,384x1024x4096,320x1024x4096,256x1024x4096,128x4096x4096,96x4096x4096,128x2048x4096,256x2048x4096,192x2048x4096,512x1024x2048,512x1024x3072,384x2048x2048" ";tok=64;tok=96;tok=128" ;;
    rab)  # predicted: 512×1024×4096 12.8 against 14.7 (H200), 64×14336×4096 33.0 against 34.5, 64×28672×8192 3 % faster;
          # 384×1024×4096 and 128×4096×4096 the same pick and time under each
      ab rab "512x1024x4096,500x1000x4000,448x1024x4096,64x14336x4096,48x14336x4096,64x28672x8192,48x28672x8192,40x28672x8192,384x1024x4096,128x4096x4096" ";wg=1;kernel=small_m" ;;
    checks) check_suites ;;
    pgemm)  # predicted: cuBLAS's q/o at ~25 µs and ours at ~29 in this context too (the model's profile), if it
            # reproduces the model; then q/o/down can be tuned against it rather than against the flushed suites
      T 240 python3 scripts/prefill_gemms.py --context model --out "$OUT/prefill-gemms.csv" > "$L/pgemm.log" 2>&1
      tail -14 "$L/pgemm.log" | cut -c1-150 ;;
    eagerab)  # calls 12 and 17 (H100): new 0.66-0.95x torch in eager, old 0.98-1.33x; the graphs equal
      local r
      for r in a1 b1 a2 b2 a3 b3; do
        LADDER_TUNE=$([ ${r:0:1} = b ] && echo wg=1) T 90 python3 scripts/llama_model.py --parts fp16 --batches 1 \
          --no-compile-baseline --out "$L/eager-$r.json" > "$L/eager-$r.log" 2>&1
        echo "$r $(grep -E 'prefill512_eager_speedup' "$L/eager-$r.log" | tr -s ' ' | cut -c1-80 | paste -sd' ')"
      done ;;
    benches) bench_suites ${TMS:-60} ;;
    h200only)
      if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
        local g; for g in $THEN; do echo "== $g $(date -u +%T)"; session_group "$g"; done
      else echo "not an H200: $THEN skipped; ${ELSE:-nothing} instead"
        local g; for g in ${ELSE:-}; do echo "== $g $(date -u +%T)"; session_group "$g"; done; fi ;;
    torch)
      T 200 python3 scripts/torch_bench.py --no-compile --out "$OUT/torch-bench.json" > "$L/torch.log" 2>&1
      tail -24 "$L/torch.log" | cut -c1-150 ;;
    *) common_group "$1" ;;
  esac
}
run_groups
