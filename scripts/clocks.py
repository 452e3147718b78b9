#!/usr/bin/env python3
"""SM clock and board power while one GEMM runs back to back (H200 runs; needs torch and nvidia-smi).

  PYTHONPATH=python python3 scripts/clocks.py [--size 4096] [--seconds 3] [--steps h10,h07]

For each candidate (each ladder step, then torch.matmul = cuBLAS), it runs the GEMM in a loop for a few
seconds while `nvidia-smi` samples every 50 ms, then prints TFLOP/s (CUDA events over the loop), the mean SM
clock and power over the second half of the loop, and TFLOP/s per GHz (what the kernel gets out of each clock).
"""
import argparse
import subprocess
import sys
import time

import ladder


def sample(proc_out):
    rows = []
    for line in proc_out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        try:
            rows.append((parts[0], float(parts[1]), float(parts[2])))
        except (ValueError, IndexError):
            pass
    return rows


def run(name, fn, flop, seconds, torch):
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    t0 = time.time()
    n = 0
    start.record()
    while time.time() - t0 < seconds:
        for _ in range(20):
            fn()
        n += 20
        torch.cuda.synchronize()
    end.record()
    torch.cuda.synchronize()
    smi.terminate()
    out, _ = smi.communicate()
    rows = [(clk, pw) for _, clk, pw in sample(out)]
    half = rows[len(rows) // 2:] or rows
    clk = sum(r[0] for r in half) / max(1, len(half))
    pw = sum(r[1] for r in half) / max(1, len(half))
    tflops = flop * n / (start.elapsed_time(end) * 1e-3) / 1e12
    print(f"{name:8s} {tflops:7.1f} TFLOP/s  SM clock {clk:6.0f} MHz  power {pw:5.0f} W  "
          f"{tflops / (clk / 1000):6.1f} TFLOP/s per GHz  ({len(half)} samples)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--steps", default="h10,h07")
    args = ap.parse_args()
    import torch

    n = args.size
    a = (torch.rand(n, n, device="cuda") * 2 - 1).half()
    b = (torch.rand(n, n, device="cuda") * 2 - 1).half()
    d = torch.empty(n, n, device="cuda", dtype=torch.float16)
    flop = 2.0 * n * n * n
    print(f"{n}x{n}x{n}, fp16, uniform [-1, 1); {torch.cuda.get_device_name()}")
    for step in args.steps.split(","):
        run(step, lambda: ladder.gemm(a, b, out=d, step=step), flop, args.seconds, torch)
    run("cuBLAS", lambda: torch.matmul(a, b.T, out=d), flop, args.seconds, torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
