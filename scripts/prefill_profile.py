#!/usr/bin/env python3
"""Where the Llama model's graph-replayed 512-token prefill spends its time, torch against ladder: the model of
scripts/llama_model.py (4 layers, hidden 4096, 8 kv heads, MLP 14336, vocab 32000, transformers' LlamaForCausalLM),
each variant captured in a CUDA graph, replayed under torch.profiler; the kernels' device time per replay, summed by
kernel name, and the replay's wall time (CUDA events) beside it. Says which kernels the gap is in.

Run on the GPU machine: python3 scripts/prefill_profile.py --out prefill-profile.csv [--dtype fp16|bf16]
"""
from __future__ import annotations

import argparse
import copy
import csv
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import llama_model as lm  # noqa: E402
import torch_timing as tt  # noqa: E402


def short(name: str) -> str:
    """A kernel's name without the namespaces that every ladder kernel repeats."""
    for ns in ("ladder::hopper::", "(anonymous namespace)::", "ladder::", "at::native::"):
        name = name.replace(ns, "")
    return name


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--dtype", default="fp16", choices=("fp16", "bf16"))
    p.add_argument("--replays", type=int, default=20)
    args = p.parse_args(argv)
    import torch
    import ladder
    from torch.profiler import ProfilerActivity, profile

    margs = lm.parse(["--out", "/dev/null"])
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    device = torch.device("cuda")
    torch.manual_seed(0)
    with torch.device(device):
        module, _ = lm.build_hf(torch, margs)
    built = lm.Model(torch, module.eval().to(dtype), hf=True)
    models = {"torch": built.module}
    for name, fuse in (("ladder", False), ("ladder_fused", True)):
        m = copy.deepcopy(built.module)
        ladder.patch(m, fuse_swiglu=fuse, devices=("cuda",))
        models[name] = m
    ids = torch.randint(0, margs.vocab, (1, margs.prefill), device=device,
                        generator=torch.Generator(device=device).manual_seed(1))
    meta = tt.provenance(torch, None, device)
    rows = []
    common = dict(dtype=args.dtype, commit=meta["commit"], date=meta["date"], gpu=torch.cuda.get_device_name(),
                  torch=torch.__version__)
    with torch.inference_mode():
        for name, m in models.items():
            replay, _ = tt.graphed(torch, lambda: built.logits(ids, 1, m))
            clock = tt.Clock(torch, device)
            for _ in range(5):
                replay()
            wall = statistics.median(clock.ms([clock.sample(replay) for _ in range(args.replays)]))
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.replays):
                    replay()
                torch.cuda.synchronize()
            kernels = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA),
                             key=lambda e: e.time_range.start)
            per = len(kernels) // args.replays
            by = {}
            for e in kernels:
                n, t = by.get(e.name, (0, 0.0))
                by[e.name] = (n + 1, t + e.device_time_total)
            total = sum(t for _, t in by.values()) / args.replays
            print(f"== {name}: replay {wall * 1e3:.1f} us (events), kernels {total:.1f} us a replay, {per} kernels")
            for k, (n, t) in sorted(by.items(), key=lambda kv: -kv[1][1])[:12]:
                print(f"  {t / args.replays:8.1f} us  x{n // args.replays:<3} {short(k)}")
                rows.append(dict(variant=name, position="", kernel=short(k), calls_per_replay=n // args.replays,
                                 us=round(t / args.replays, 2), replay_us=round(wall * 1e3, 1), **common))
            # The GEMMs in replay order: each position's median over the replays (same kernel at the same place)
            print(f"  GEMMs in order (median us over {args.replays} replays):")
            for i in range(per):
                e0 = kernels[i]
                if not any(g in e0.name for g in ("ladder::", "nvjet", "gemm", "cutlass")):
                    continue
                ts = [kernels[r * per + i].device_time_total for r in range(args.replays)]
                us = statistics.median(ts)
                print(f"  {i:4d} {us:8.1f}  {short(e0.name)[:150]}")
                rows.append(dict(variant=name, position=i, kernel=short(e0.name), calls_per_replay=1, us=round(us, 2),
                                 replay_us=round(wall * 1e3, 1), **common))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
