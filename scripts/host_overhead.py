#!/usr/bin/env python3
"""Host time per call of ladder's torch op, layer by layer, against F.linear (a diagnostic; needs a GPU).

On a problem whose kernel takes a few µs, N calls are queued back to back and timed on the host (one sync at the
end), so the time per call is whichever is longer: the host path or the kernel. Each layer is timed alone:
  F.linear                      torch's own path (cuBLAS)
  ladder.linear                 the Python function: the op's implementation directly (ops._direct)
  torch.ops.ladder.linear       the custom op: dispatch, argument checks, output allocation, the launch below
  _launch.launch                the checked call's descriptor and the ctypes call into libladder
  ladder_gemm_v2                a prebuilt descriptor straight into the C ABI (the C++ host path and the launch)
  ... (grad)                    F.linear, ladder.linear (its autograd.Function path) and the custom op (custom_op's
                                autograd) with a weight that requires grad, in grad mode
then a cProfile of the op's calls (top functions by own time).

    python3 scripts/host_overhead.py --out /tmp/host.csv
"""
from __future__ import annotations

import argparse
import cProfile
import ctypes
import io
import pstats
import sys
import time
from pathlib import Path

import torch_timing as tt


def _with_grad(torch, fn):
    with torch.inference_mode(False), torch.enable_grad():
        return fn()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--shapes", default="16x256x256,512x1024x4096,512x4096x4096")
    p.add_argument("--calls", type=int, default=2000)
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F

    import ladder
    from ladder import _launch, _library

    device = tt.gpu_or_cpu(torch, False, "host_overhead")
    if device is None:
        return 2
    meta = tt.provenance(torch, None, device)
    rows = []
    lib = _library.library()
    with torch.inference_mode():
        for shape in args.shapes.split(","):
            m, n, k = map(int, shape.split("x"))
            x = torch.randn(m, k, device=device, dtype=torch.float16)
            w = torch.randn(n, k, device=device, dtype=torch.float16) * k ** -0.5
            out = torch.empty(m, n, device=device, dtype=torch.float16)
            call = _launch.check_call(torch, x, w)
            stream = torch.cuda.current_stream().cuda_stream
            desc = _launch.descriptor(call, x, w, out)
            ref = ctypes.byref(desc)
            with torch.inference_mode(False):  # tensors autograd may save (inference tensors cannot be)
                xg, wg = x.clone(), w.clone().requires_grad_()
            fns = {
                "F.linear": lambda: F.linear(x, w),
                "ladder.linear": lambda: ladder.linear(x, w),
                "torch.ops.ladder.linear": lambda: torch.ops.ladder.linear(x, w),
                "_launch.launch": lambda: _launch.launch(call, x, w, out, stream=stream),
                "ladder_gemm_v2": lambda: lib.ladder_gemm_v2(ref, ctypes.c_void_p(stream)),
                # grad mode, a weight that requires grad: autograd records each call (inference mode is left for these)
                "F.linear (grad)": lambda: F.linear(xg, wg),
                "ladder.linear (grad)": lambda: ladder.linear(xg, wg),
                "torch.ops.ladder.linear (grad)": lambda: torch.ops.ladder.linear(xg, wg),
            }
            for name, fn in fns.items():
                if name.endswith("(grad)"):
                    fn = (lambda f=fn: _with_grad(torch, f))
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    for _ in range(args.calls):
                        fn()
                    torch.cuda.synchronize()
                    best = min(best, (time.perf_counter() - t0) / args.calls * 1e6)
                rows.append(dict(shape=shape, layer=name, us_per_call=round(best, 2), calls=args.calls,
                                 commit=meta["commit"], date=meta.get("date", ""), gpu=meta.get("gpu", "")))
                print(f"{shape:16} {name:26} {best:8.2f} us/call", flush=True)
            if shape == args.shapes.split(",")[0]:
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(1000):
                    torch.ops.ladder.linear(x, w)
                torch.cuda.synchronize()
                prof.disable()
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(22)
                print(s.getvalue())
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
