#!/usr/bin/env bash
# The seventeenth session's device calls (docs/notes.md, "Seventeenth session").
#   GROUPS_=tests     the full GPU suite (with SmallM.WideTileMatchesTheReferences)
#   GROUPS_=wide      small-M's 256-row x 128-token tile (LADDER_TUNE wg=4, 77f9540 only: it lost and was removed in
#                     41bc048, where wg=4 is refused): checked, then against the plan at 128, 256 and 512 tokens
#   GROUPS_=tiles     the tile families forced, on the 256- and 512-token rows below cuBLAS
#   GROUPS_=narrow128 the 64x64 tiles at 65-128 tokens on the 1024-row layers (the rule re-applied): checked on
#                     partial token tiles, and against 128x128 (wg=2)
#   GROUPS_=torch     issue 12's MLP and GELU cases without torch.compile, at HEAD and with the ping-pong forced
#   GROUPS_=fit2      the 2-CTA fitted tile at two full waves up to 512 rows (41bc048's rule): checked, and against the
#                     cooperative kernel and the ping-pong, on the suite's rows it changes and on shapes outside it
#   GROUPS_=torchfull issue 12's benchmark with torch.compile (its JSON and CSV come back in $OUT)
#   GROUPS_=alpha     alpha = 1 skips the epilogue's multiply: each epilogue's cost with alpha 1 and 0.5 in one process
#                     (scripts/epilogue_cost.py, the cooperative kernel and the ping-pong), the fused-epilogue checks
#                     (v2/torch, pytest), and issue 12's cases without torch.compile
#   GROUPS_=split     small-M's K split forced, on its rows below cuBLAS at 128-512 tokens
#   GROUPS_=more      the tile rows still below cuBLAS at 256-512 tokens and two shapes off the suites: the 1-CTA fitted
#                     tile, the cooperative kernel with and without stream-K
#   GROUPS_=epincu    ncu source counters on the ping-pong's plain and bias copies at 2048x16384x4096 (the eleventh session's
#                     `epilogue` group, never run): where the bias copy's extra ~4 k cycles a tile sit
#   GROUPS_=final / model  check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry
# build/release/{libladder.so,libladder.so.0,libladder.so.0.1.0,ladder,tests/ladder_tests,generated}.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    wide)
      LADDER_TUNE=wg=4 T 100 "$B/ladder" check --steps h12 --seeds 2 \
        --shapes 65x1000x520,128x4096x4096,300x2000x4104,512x1024x8192,97x28672x8192,200x777x2056 > "$L/check-wide.log" 2>&1
      echo "check wg=4: $(tail -1 "$L/check-wide.log")"
      ab wide "$(LAYERS="4096x4096 1024x4096 14336x4096 4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672" shapes 128),$(LAYERS="4096x4096 1024x4096 14336x4096 8192x8192 1024x8192 28672x8192 4096x14336" shapes 256),$(LAYERS="4096x4096 1024x4096 1024x8192 28672x8192 14336x4096" shapes 512)" \
        ";kernel=small_m,wg=4;kernel=small_m" ;;
    tiles)  # the tile families against each other on the 256- and 512-token rows below cuBLAS
      ab tiles "256x8192x8192,256x28672x8192,256x14336x4096,256x128256x4096,512x28672x8192,512x8192x28672,512x14336x4096,512x4096x14336,512x8192x8192" \
        ";kernel=coop;kernel=pingpong;kernel=coop_fit;kernel=coop192" ;;
    narrow128)
      T 100 "$B/ladder" check --steps best,h12 --seeds 2 \
        --shapes 128x1024x4096,128x1024x8192,96x1000x4104,65x1024x1032,100x777x2056,128x1024x14336,127x1000x8200 > "$L/check-narrow128.log" 2>&1
      echo "check narrow128: $(tail -1 "$L/check-narrow128.log")"
      ab narrow128 "128x1024x4096,128x1024x8192,96x1024x4096,80x1024x8192,128x1024x14336" ";wg=2" ;;
    torch)
      T 200 python3 scripts/torch_bench.py --no-compile --out "$L/torch-nc.json" > "$L/torch-nc.log" 2>&1; tail -16 "$L/torch-nc.log" | cut -c1-160
      LADDER_TUNE=kernel=pingpong T 100 python3 scripts/torch_bench.py --no-compile --cases mlp --out "$L/torch-nc-pp.json" > "$L/torch-nc-pp.log" 2>&1
      tail -8 "$L/torch-nc-pp.log" | cut -c1-160 ;;
    fit2)
      T 100 "$B/ladder" check --steps best --seeds 2 \
        --shapes 256x28672x8192,512x14336x4096,200x28672x8192,448x14336x4096,256x20480x4096,500x14336x4104 > "$L/check-fit2.log" 2>&1
      echo "check fit2: $(tail -1 "$L/check-fit2.log")"
      ab fit2 "256x28672x8192,512x14336x4096,200x28672x8192,448x14336x4096,256x20480x4096,256x14336x8192,512x14336x8192,480x28672x4096" \
        ";kernel=coop;kernel=pingpong" ;;
    torchfull)
      T 300 python3 scripts/torch_bench.py --out "$OUT/torch-bench.json" > "$L/torch-bench.log" 2>&1; tail -16 "$L/torch-bench.log" | cut -c1-170 ;;
    alpha)
      T 150 python3 scripts/check_v2_torch.py --csv "$L/v2.csv" > "$L/v2.log" 2>&1; tail -2 "$L/v2.log"
      T 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$L/pytest.log" 2>&1; tail -2 "$L/pytest.log"
      for fam in "" kernel=pingpong; do
        LADDER_TUNE=$fam T 150 python3 scripts/epilogue_cost.py --shapes 2048x16384x4096 --dtypes float16 \
          --impls cublas,torch_gelu,plain,bias,bias_a,gelu_tanh,gelu_tanh_a --out "$L/epi-alpha-${fam:-auto}.csv" > "$L/epi-alpha-${fam:-auto}.log" 2>&1
        tail -9 "$L/epi-alpha-${fam:-auto}.log" | cut -c1-150
      done
      T 200 python3 scripts/torch_bench.py --no-compile --out "$L/torch-nc.json" > "$L/torch-nc.log" 2>&1; tail -15 "$L/torch-nc.log" | cut -c1-130 ;;
    split)
      ab split "128x4096x4096,128x4096x14336,128x8192x8192,128x1024x8192,256x4096x4096,256x1024x8192,512x1024x4096,512x1024x8192" \
        ";split=2;split=3;split=4;split=6;split=8" ;;
    more)
      ab more "512x28672x8192,512x8192x28672,256x8192x8192,256x128256x4096,200x28672x8192,256x20480x4096,512x4096x14336" \
        ";kernel=coop_fit,fitcl=1;kernel=coop;kernel=coop_dp" ;;
    epincu)
      ncu_pingpong_epilogue "$L/e" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
