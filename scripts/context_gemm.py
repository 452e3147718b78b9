#!/usr/bin/env python3
"""One prefill linear in the model's context, eagerly, for a profiler (ncu --cache-control none): each call its own
cold weight, its input written just before by an elementwise multiply (RMSNorm's last step), torch's F.linear and
ladder.linear in turn. Twenty-ninth session: the k/v linear (512x1024x4096) ran 17.6 us there against cuBLAS's 12.3
(flushed suite: 14.6 against 12.8, H100).

  python3 scripts/context_gemm.py --n 1024 --k 4096 --tokens 512 --calls 8
"""
import argparse

import torch
import torch.nn.functional as F

import ladder

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--tokens", type=int, default=512)
p.add_argument("--n", type=int, default=1024)
p.add_argument("--k", type=int, default=4096)
p.add_argument("--calls", type=int, default=8)
p.add_argument("--flush", action="store_true", help="a 256 MB write before each GEMM instead (the suites' context)")
p.add_argument("--swap", action="store_true",
               help="ladder computes W·xᵀ instead (Dᵀ: the same tiles and FLOPs with the operands' roles exchanged, so a "
                    "kernel that multicasts B multicasts the hot tokens and reads the cold weights unicast; for a "
                    "profiler only)")
a = p.parse_args()
dev, dt = torch.device("cuda"), torch.float16
x = torch.randn(a.tokens, a.k, device=dev, dtype=dt)
g = torch.rand(a.k, device=dev, dtype=dt) + 0.5
ws = [torch.randn(a.n, a.k, device=dev, dtype=dt) / a.k ** 0.5 for _ in range(a.calls)]
xs = [torch.empty_like(x) for _ in range(a.calls)]
junk = torch.empty(64 << 20, device=dev, dtype=torch.float32) if a.flush else None
for impl in ("torch", "ladder", "torch", "ladder"):
    for i in range(a.calls):
        torch.mul(x, g, out=xs[i])
        if junk is not None:
            junk.fill_(1.0)
        if impl == "torch":
            F.linear(xs[i], ws[i])
        elif a.swap:
            ladder.linear(ws[i], xs[i])
        else:
            ladder.linear(xs[i], ws[i])
torch.cuda.synchronize()
