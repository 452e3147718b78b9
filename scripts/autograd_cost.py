#!/usr/bin/env python3
"""Host time of the ways a ladder op can record autograd, on CPU tensors: no GPU and no libladder needed.

With a weight that requires grad, in grad mode, ladder.linear / swiglu / gemm and ladder.nn run the op's
implementation inside an autograd.Function (ops._LinearFunction ...) instead of torch.ops.ladder.*, whose
torch.library.custom_op autograd wrapper is Python of its own. To time only the mechanism, each path here runs
the same implementation, the op's CPU kernel (the fp32 torch reference) on small tensors:

  impl          the implementation alone (no autograd): the floor of every path
  function      ops._*Function.apply, with the CUDA implementation swapped for the CPU kernel
  custom_op     torch.ops.ladder.* on CPU tensors: the dispatcher, custom_op's autograd, the CPU kernel

Medians of 15 interleaved rounds; a CSV with the commit, date and host.

    python3 scripts/autograd_cost.py --out docs/results/dev/2026-12-01-s11-host/autograd-cost.csv
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch_timing as tt
from check_cost import cpu_name, interleaved_us


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calls", type=int, default=2000, help="calls a round")
    args = ap.parse_args(argv)
    import torch
    from ladder import ops

    meta = tt.provenance(torch, None, torch.device("cpu"))
    h = torch.float16
    g = torch.Generator().manual_seed(0)
    x = torch.rand(4, 64, generator=g).to(h)
    w = torch.rand(64, 64, generator=g).to(h).requires_grad_()
    w2 = torch.rand(128, 64, generator=g).to(h).requires_grad_()
    b, r = torch.rand(64, generator=g).to(h), torch.rand(4, 64, generator=g).to(h)
    cases = {  # name: (implementation, Function, op, arguments)
        "linear": (ops._linear_cpu, ops._LinearFunction, torch.ops.ladder.linear,
                   (x, w, None, "none", None, 1.0, 1.0, None, None)),
        "linear bias+gelu+residual": (ops._linear_cpu, ops._LinearFunction, torch.ops.ladder.linear,
                                      (x, w, b, "gelu", r, 1.0, 1.0, None, None)),
        "swiglu": (ops._swiglu_cpu, ops._SwigluFunction, torch.ops.ladder.swiglu,
                   (x, w2, None, None, 1.0, 1.0, None, None)),
        "gemm": (ops._gemm_cpu, ops._GemmFunction, torch.ops.ladder.gemm, (x, w, None)),
    }
    saved = ops._linear_cuda, ops._swiglu_cuda, ops._gemm_cuda
    ops._linear_cuda, ops._swiglu_cuda, ops._gemm_cuda = ops._linear_cpu, ops._swiglu_cpu, ops._gemm_cpu
    rows = []
    try:
        for name, (impl, fn, op, a) in cases.items():
            plain = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in a)
            # The two recorded paths give the same gradients (the same formulas), so the comparison is fair.
            g1 = torch.autograd.grad(fn.apply(*a).float().sum(), a[1])[0]
            g2 = torch.autograd.grad(op(*a).float().sum(), a[1])[0]
            assert torch.equal(g1, g2), name
            t = interleaved_us({"impl": lambda: impl(*plain), "function": lambda: fn.apply(*a),
                                "custom_op": lambda: op(*a)}, args.calls)
            rows.append(dict(case=name, impl_us=round(t["impl"], 2), function_us=round(t["function"], 2),
                             custom_op_us=round(t["custom_op"], 2),
                             saved_us=round(t["custom_op"] - t["function"], 2), commit=meta["commit"],
                             date=meta["date"], host=f"{cpu_name()}, no GPU", torch=meta["torch"],
                             python=meta["python"]))
            print(f"{name:26s} impl {t['impl']:6.2f} us  autograd.Function {t['function']:6.2f} us  "
                  f"custom_op {t['custom_op']:6.2f} us")
    finally:
        ops._linear_cuda, ops._swiglu_cuda, ops._gemm_cuda = saved
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
