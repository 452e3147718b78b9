#!/usr/bin/env python3
"""The linear layers of a 512-token prefill (scripts/llama_model.py's 4-layer model: hidden 4096, 8 kv heads, MLP
14336, vocab 32000), each as torch's F.linear and as ladder.linear, captured back to back in CUDA graphs (as the
model's graph replays them), interleaved, medians: where the model's prefill graph loses to torch's.

Run on the GPU machine: python3 scripts/prefill_gemms.py --out results.csv
"""
from __future__ import annotations

import argparse
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
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F
    import ladder
    dev = torch.device("cuda")
    dt = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    meta = tt.provenance(torch, None, dev)
    rows = []
    for name, n, k in SHAPES:
        x = torch.randn(args.tokens, k, device=dev, dtype=dt)
        w = torch.randn(n, k, device=dev, dtype=dt) / k ** 0.5
        replays = {}
        for impl, fn in (("torch", lambda: F.linear(x, w)), ("ladder", lambda: ladder.linear(x, w))):
            replays[impl], _ = tt.graphed(torch, lambda fn=fn: [fn() for _ in range(args.chain)])
        t = tt.interleaved(torch, dev, {impl: (lambda i, r=r: r()) for impl, r in replays.items()}, budget_s=0.5)
        row = {"layer": name, "M": args.tokens, "N": n, "K": k, "dtype": args.dtype,
               "torch_us": 1e3 * t["torch"]["median_ms"] / args.chain, "ladder_us": 1e3 * t["ladder"]["median_ms"] / args.chain}
        row["ladder_over_torch"] = row["torch_us"] / row["ladder_us"]
        row["plan"] = ladder.plan(x, w)
        row.update(commit=meta["commit"], date=meta["date"], gpu=meta.get("gpu", ""), torch=meta["torch"])
        rows.append(row)
        print(f"{name:8s} {args.tokens}x{n}x{k}: torch {row['torch_us']:7.1f} us, ladder {row['ladder_us']:7.1f} us, "
              f"{row['ladder_over_torch']:.3f}x  {str(row['plan'])[:90]}", flush=True)
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
