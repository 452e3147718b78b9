#!/usr/bin/env python3
"""Host time of the argument checks a ladder op runs before its launch (ladder._launch.check_call), without and with
its kept verdicts, and of the C ABI descriptor it fills (_launch.descriptor: the Call's template copied and given
its pointers, against the ctypes constructor with every field that it replaced), on CPU tensors: no GPU and no
libladder needed. Median of 7 rounds; writes a CSV with the commit, date and host (torch_timing.provenance, as the
other diagnostics).

    python3 scripts/check_cost.py --out docs/results/dev/2026-12-01-s9-host/check-cost.csv
"""
from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time
from pathlib import Path

import torch_timing as tt


def per_call_us(fn, calls: int, rounds: int = 7) -> float:
    for _ in range(min(calls, 1000)):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def interleaved_us(fns: dict, calls: int, rounds: int = 15) -> dict:
    """Median µs a call of each function, the rounds interleaved (one round of each in turn: drift on a shared
    machine falls on all of them alike)."""
    for f in fns.values():
        for _ in range(min(calls, 500)):
            f()
    samples = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            samples[k].append((time.perf_counter() - t0) / calls * 1e6)
    return {k: statistics.median(v) for k, v in samples.items()}


def cpu_name() -> str:
    info = Path("/proc/cpuinfo")
    if info.exists():
        for line in info.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def _every_field(_launch, call, x, w, out, bias, res):
    """The descriptor as _launch built it before 2026-12-01's template: one ctypes constructor with every field."""
    from ladder import _library
    fields = dict(struct_size=ctypes.sizeof(_library.GemmDesc), M=call.m, N=call.n, K=call.k, A=x.data_ptr(),
                  lda=call.lda, B=w.data_ptr(), ldb=call.ldb, D=out.data_ptr(), ldd=call.ldd, ab_dtype=call.ab_dtype,
                  d_dtype=call.d_dtype, alpha=call.alpha, beta=call.beta, activation=call.activation,
                  epilogue=call.epilogue, bias_dtype=call.bias_dtype)
    if call.has_bias:
        fields["bias"] = bias.data_ptr()
    if call.c_source == "residual":
        fields["C"], fields["ldc"] = res.data_ptr(), call.ldc
    return _library.GemmDesc(**fields)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calls", type=int, default=20000, help="calls a round")
    args = ap.parse_args(argv)
    import torch
    from ladder import _launch

    meta = tt.provenance(torch, None, torch.device("cpu"))
    h = torch.float16
    x, w = torch.randn(16, 4096, dtype=h), torch.randn(4096, 4096, dtype=h)
    b, r = torch.zeros(4096, dtype=h), torch.randn(16, 4096, dtype=h)
    cases = {  # name: (bias, activation, residual, swiglu)
        "plain": (None, "none", None, False),
        "bias+gelu+residual": (b, "gelu", r, False),
        "swiglu": (None, "none", None, True),
    }
    rows = []
    for name, (bias, act, res, sw) in cases.items():
        checks = per_call_us(lambda: _launch._check_call(torch, x, w, bias, act, res, 1.0, 1.0, None, None, swiglu=sw,
                                                         out=None, accumulate=False, strict_2d=False,
                                                         names=("x", "weight")), args.calls)
        kept = per_call_us(lambda: _launch.check_call(torch, x, w, bias, act, res, swiglu=sw), args.calls)
        call = _launch.check_call(torch, x, w, bias, act, res, swiglu=sw)
        out = torch.empty(call.out_shape, dtype=h)
        desc = per_call_us(lambda: _launch.descriptor(call, x, w, out, bias, res), args.calls)
        ctor = per_call_us(lambda: _every_field(_launch, call, x, w, out, bias, res), args.calls)
        assert bytes(_launch.descriptor(call, x, w, out, bias, res)) == bytes(_every_field(_launch, call, x, w, out,
                                                                                           bias, res))
        rows.append(dict(case=name, checks_us=round(checks, 2), kept_us=round(kept, 2),
                         descriptor_us=round(desc, 2), constructor_us=round(ctor, 2), commit=meta["commit"],
                         date=meta["date"], host=f"{cpu_name()}, no GPU", torch=meta["torch"], python=meta["python"]))
        print(f"{name:20s} checks {checks:.2f} us, kept verdict {kept:.2f} us, descriptor {desc:.2f} us "
              f"(constructor with every field {ctor:.2f} us)")
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
