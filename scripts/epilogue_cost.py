#!/usr/bin/env python3
"""What each fused epilogue costs on top of ladder's plain GEMM, with cuBLAS (torch) beside it (a diagnostic).

For each shape T×N×K and dtype, one interleaved timing (scripts/torch_timing.py: CUDA events, warm-up, medians,
x rotated over >= 2.5x L2) of:
  cublas        F.linear(x, W)                      cublas_bias  F.linear(x, W, b)
  torch_gelu    F.gelu(F.linear(x, W, b))           (torch eager: cuBLAS + a GELU pass)
  plain         ladder.linear(x, W)                 alpha        ladder.linear(x, W, alpha=0.5)  (epilogue code, no loads)
  bias          ladder.linear(x, W, b)              relu / gelu_tanh / gelu / silu: bias + the activation
  bias_a, gelu_tanh_a   bias / gelu_tanh with alpha=0.5 (the multiply that alpha = 1 skips)
  residual      ladder.linear(x, W, residual=r)     gelu_res     bias + GELU (erf) + residual
  swiglu        ladder.swiglu(x, W) (W = [gate; up], N/2 outputs)  torch_swiglu  F.silu(x@Wg.T) * (x@Wu.T)
Each ladder output is first checked against the fp32 reference (NaN-poisoned output; normwise error). The kernel
family follows LADDER_TUNE (e.g. kernel=pingpong), read by the library once per process.

    LADDER_TUNE=kernel=pingpong python3 scripts/epilogue_cost.py --out /tmp/epi.csv
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch_timing as tt


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True, help="CSV path")
    p.add_argument("--shapes", default="2048x16384x4096,8192x16384x4096,4096x4096x4096", help="T×N×K list")
    p.add_argument("--dtypes", default="float16,bfloat16")
    p.add_argument("--impls", default="cublas,cublas_bias,torch_gelu,plain,alpha,bias,relu,gelu_tanh,gelu,silu,residual,gelu_res")
    p.add_argument("--budget", type=float, default=0.6, help="seconds of samples per shape")
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F

    import ladder
    from ladder import reference

    device = tt.gpu_or_cpu(torch, False, "epilogue_cost")
    if device is None:
        return 2
    meta = tt.provenance(torch, None, device)
    l2 = int(meta.get("l2_bytes", 0) or 0)
    rows = []
    with torch.inference_mode():
        for dname in args.dtypes.split(","):
            dtype = getattr(torch, dname)
            for shape in args.shapes.split(","):
                t, n, k = map(int, shape.split("x"))
                g = torch.Generator(device=device).manual_seed(t + n + k)
                rnd = lambda *s, scale=1.0: ((torch.rand(s, generator=g, device=device) * 2 - 1) * scale).to(dtype)
                w, b = rnd(n, k, scale=k ** -0.5), rnd(n)
                sets = tt.input_sets(t * k * 2 + t * n * 2, l2)
                xs = [rnd(t, k) for _ in range(sets)]
                rs = [rnd(t, n) for _ in range(sets)]
                lad = {
                    "plain": lambda x, r: dict(),
                    "alpha": lambda x, r: dict(alpha=0.5),
                    "bias": lambda x, r: dict(bias=b),
                    "relu": lambda x, r: dict(bias=b, activation="relu"),
                    "gelu_tanh": lambda x, r: dict(bias=b, activation="gelu_tanh"),
                    "bias_a": lambda x, r: dict(bias=b, alpha=0.5),
                    "gelu_tanh_a": lambda x, r: dict(bias=b, activation="gelu_tanh", alpha=0.5),
                    "gelu": lambda x, r: dict(bias=b, activation="gelu"),
                    "silu": lambda x, r: dict(bias=b, activation="silu"),
                    "residual": lambda x, r: dict(residual=r),
                    "gelu_res": lambda x, r: dict(bias=b, activation="gelu", residual=r),
                }
                tor = {
                    "cublas": lambda i: F.linear(xs[i % sets], w),
                    "cublas_bias": lambda i: F.linear(xs[i % sets], w, b),
                    "torch_gelu": lambda i: F.gelu(F.linear(xs[i % sets], w, b)),
                    "torch_swiglu": lambda i: F.silu(F.linear(xs[i % sets], w[: n // 2])) * F.linear(xs[i % sets], w[n // 2:]),
                }
                impls, errs, plans = {}, {}, {}
                for name in args.impls.split(","):
                    if name in tor:
                        impls[name] = tor[name]
                        continue
                    if name == "swiglu":
                        got = ladder.swiglu(xs[0], w)
                        errs[name] = tt.rel_err(got, reference.swiglu(xs[0], w))
                        plans[name] = ladder.plan(xs[0], w, swiglu=True)
                        impls[name] = lambda i: ladder.swiglu(xs[i % sets], w)
                        continue
                    kw = lad[name]
                    kw0 = kw(xs[0], rs[0])
                    out = torch.full((t, n), float("nan"), dtype=dtype, device=device)
                    got = ladder.linear(xs[0], w, out=out, **kw0)
                    ref = reference.linear(xs[0], w, kw0.get("bias"), kw0.get("activation", "none"),
                                           kw0.get("residual"), kw0.get("alpha", 1.0))
                    errs[name] = tt.rel_err(got, ref) if bool(torch.isfinite(got).all()) else float("nan")
                    plans[name] = ladder.plan(xs[0], w, kw0.get("bias"), activation=kw0.get("activation", "none"),
                                              residual=kw0.get("residual"))
                    impls[name] = (lambda kw: lambda i: ladder.linear(xs[i % sets], w, **kw(xs[i % sets], rs[i % sets])))(kw)
                times = tt.interleaved(torch, device, impls, budget_s=args.budget)
                base = times.get("plain", times.get("cublas"))["median_ms"]
                for name, tm in times.items():
                    rows.append(dict(shape=shape, dtype=dname, impl=name, median_us=round(tm["median_ms"] * 1e3, 2),
                                     min_us=round(tm["min_ms"] * 1e3, 2), reps=tm["reps"],
                                     vs_plain=round(tm["median_ms"] / base, 4),
                                     tflops=round(2.0 * t * n * k / tm["median_ms"] / 1e9, 1),
                                     rel_err=errs.get(name, ""), plan=plans.get(name, ""),
                                     tune=os.environ.get("LADDER_TUNE", ""), commit=meta["commit"],
                                     date=meta.get("date", ""), gpu=meta.get("gpu", "")))
                    print(f"{dname:9} {shape:16} {name:12} {tm['median_ms'] * 1e3:9.1f} us  x{tm['median_ms'] / base:.3f}"
                          f"  err {errs.get(name, '')}", flush=True)
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
