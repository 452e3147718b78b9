#!/usr/bin/env python3
"""Host time of the argument checks a ladder op runs before its launch (ladder._launch.check_call), without and with
its kept verdicts, on CPU tensors: no GPU and no libladder needed. Median of repeated rounds; writes a CSV with the
commit, date and machine.

    python3 scripts/check_cost.py --out docs/results/dev/2026-12-01-s9-host/check-cost.csv
"""
from __future__ import annotations

import argparse
import csv
import datetime
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))


def per_call_us(fn, calls, rounds=7):
    for _ in range(min(calls, 1000)):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calls", type=int, default=20000, help="calls a round (7 rounds, the median)")
    args = ap.parse_args(argv)
    import torch
    from ladder import _launch

    h = torch.float16
    x, w = torch.randn(16, 4096, dtype=h), torch.randn(4096, 4096, dtype=h)
    b, r = torch.zeros(4096, dtype=h), torch.randn(16, 4096, dtype=h)
    cases = {  # name: (bias, activation, residual, swiglu)
        "plain": (None, "none", None, False),
        "bias+gelu+residual": (b, "gelu", r, False),
        "swiglu": (None, "none", None, True),
    }
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = ""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine()) if Path("/proc/cpuinfo").exists() else platform.machine()
    machine = f"{cpu} (no GPU), python {platform.python_version()}, torch {torch.__version__}"
    rows = []
    for name, (bias, act, res, sw) in cases.items():
        checks = per_call_us(lambda: _launch._check_call(torch, x, w, bias, act, res, 1.0, 1.0, None, None, swiglu=sw,
                                                         out=None, accumulate=False, strict_2d=False,
                                                         names=("x", "weight")), args.calls)
        kept = per_call_us(lambda: _launch.check_call(torch, x, w, bias, act, res, swiglu=sw), args.calls)
        rows.append(dict(case=name, checks_us=f"{checks:.2f}", kept_us=f"{kept:.2f}", commit=commit, date=date,
                         machine=machine))
        print(f"{name:20s} checks {checks:.2f} us, kept verdict {kept:.2f} us")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
