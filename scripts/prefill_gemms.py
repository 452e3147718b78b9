#!/usr/bin/env python3
"""The linear layers of a 512-token prefill (scripts/llama_model.py's 4-layer model: hidden 4096, 8 kv heads, MLP
14336, vocab 32000), each as torch's F.linear and as ladder.linear, captured back to back in CUDA graphs (as the
model's graph replays them), interleaved, medians: where the model's prefill graph loses to torch's.

Two contexts (--context, both by default):
  hot    the chain reuses one weight and one input: weights up to ~50 MB stay in L2 (the first version of this script).
  model  as the model runs them (twenty-first session, `scripts/prefill_profile.py`): each GEMM of the chain has its
         own weight (cold: the chain's weights exceed L2) and its input is written just before by an elementwise
         kernel (RMSNorm's last multiply); the multiplies alone are timed in the same interleaved run and subtracted.
         In the model's profile cuBLAS ran q at 24.6 µs where the hot chain and the L2-flushed suite gave 29.

Run on the GPU machine: python3 scripts/prefill_gemms.py --out results.csv
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch_timing as tt  # noqa: E402

SHAPES = [("q/o", 4096, 4096), ("k/v", 1024, 4096), ("gate/up", 14336, 4096), ("down", 4096, 14336),
          ("lm_head", 32000, 4096)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--tokens", type=int, default=512)
    p.add_argument("--chain", type=int, default=8, help="GEMMs a graph replay runs back to back")
    p.add_argument("--dtype", default="fp16", choices=("fp16", "bf16"))
    p.add_argument("--context", default="hot,model", help="hot,model (both, the default), or one of them (see the docstring)")
    p.add_argument("--layers", default="", help="the layers to run, by name (q/o,k/v,...); all by default")
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F
    import ladder
    dev = torch.device("cuda")
    dt = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    meta = tt.provenance(torch, None, dev)
    rows = []
    contexts = args.context.split(",")
    for name, n, k in SHAPES:
        if args.layers and name not in args.layers.split(","):
            continue
        x = torch.randn(args.tokens, k, device=dev, dtype=dt)
        w = torch.randn(n, k, device=dev, dtype=dt) / k ** 0.5
        for context in contexts:
            if context == "hot":
                chains = {"torch": lambda: [F.linear(x, w) for _ in range(args.chain)],
                          "ladder": lambda: [ladder.linear(x, w) for _ in range(args.chain)]}
            else:
                ws = [torch.randn(n, k, device=dev, dtype=dt) / k ** 0.5 for _ in range(args.chain)]
                g = torch.rand(k, device=dev, dtype=dt) + 0.5
                xs = [torch.empty_like(x) for _ in range(args.chain)]
                fresh = lambda i: torch.mul(x, g, out=xs[i])  # noqa: E731  (the activation, written just before)
                chains = {"torch": lambda: [F.linear(fresh(i), ws[i]) for i in range(args.chain)],
                          "ladder": lambda: [ladder.linear(fresh(i), ws[i]) for i in range(args.chain)],
                          "mul": lambda: [fresh(i) for i in range(args.chain)]}
            replays = {impl: tt.graphed(torch, fn)[0] for impl, fn in chains.items()}
            t = tt.interleaved(torch, dev, {impl: (lambda i, r=r: r()) for impl, r in replays.items()}, budget_s=0.5)
            base = t["mul"]["median_ms"] if "mul" in t else 0.0
            row = {"layer": name, "M": args.tokens, "N": n, "K": k, "dtype": args.dtype, "context": context,
                   "torch_us": 1e3 * (t["torch"]["median_ms"] - base) / args.chain,
                   "ladder_us": 1e3 * (t["ladder"]["median_ms"] - base) / args.chain,
                   "mul_us": 1e3 * base / args.chain}
            row["ladder_over_torch"] = row["torch_us"] / row["ladder_us"]
            row["plan"] = ladder.plan(x, w)
            row["tune"] = os.environ.get("LADDER_TUNE", "")
            row.update(commit=meta["commit"], date=meta["date"], gpu=meta.get("gpu", ""), torch=meta["torch"])
            rows.append(row)
            print(f"{name:8s} {context:5s} {args.tokens}x{n}x{k}: torch {row['torch_us']:7.1f} us, ladder "
                  f"{row['ladder_us']:7.1f} us, {row['ladder_over_torch']:.3f}x  {str(row['plan'])[:80]}", flush=True)
            del replays
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
