#!/usr/bin/env python3
"""Where a compiled, ladder-patched Llama spends its host time (a diagnostic for issue 12; needs a GPU).

The eighth session measured the patched bf16 model under torch.compile(fullgraph=True) at 99 k prefill tokens/s
against torch's compiled model at 206 k, and below ladder's own eager run (123 k), while CUDA-graph replay of the
same patched model ran at 0.94-0.98x torch's. A replay removes host work, so the compiled run's loss is on the host
or in what inductor launches. This script separates the two, for torch and ladder, eager and compiled:

  gpu_ms      CUDA-event time of one forward (what the GPU is asked to do, plus any host gap inside it)
  host_ms     perf_counter time to enqueue one forward (no synchronize; queued work stays far below the
              launch-queue limit), the host's share
  kernels     kernels one forward launches, and their summed GPU time (torch.profiler)
  top ops     the profiler's top entries by self CPU time: which calls cost the host what

    PYTHONPATH=python:scripts python3 scripts/compile_profile.py --out /tmp/compile-profile.json
    python3 scripts/compile_profile.py --dry-run --out /tmp/cp.json   # CPU, tiny model: exercises every path
"""
from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

import llama_model as lm
import torch_timing as tt


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True, help="JSON path")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--prefill", type=int, default=512)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--top", type=int, default=25, help="profiler rows printed per variant")
    p.add_argument("--impl", choices=("auto", "hf", "mini"), default="auto")
    p.add_argument("--backend", default=None, help="torch.compile backend (default inductor; eager with --dry-run)")
    p.add_argument("--dry-run", action="store_true", help="CPU, tiny model, the eager backend")
    args = p.parse_args(argv)
    # The model's shape is llama_model.py's (Llama-3-8B's layer, 4 layers); its --dry-run shrinks it the same way.
    base = ["--out", str(args.out), "--layers", str(args.layers), "--prefill", str(args.prefill), "--impl", args.impl]
    if args.backend:
        base += ["--compile-backend", args.backend]
    model_args = lm.parse(base + (["--dry-run"] if args.dry_run else []))
    return args, model_args


def main(argv=None) -> int:
    args, margs = parse(argv)
    import torch

    import ladder

    device = tt.gpu_or_cpu(torch, args.dry_run, "compile_profile")
    if device is None:
        return 2
    cuda = device.type == "cuda"
    meta = tt.provenance(torch, None, device)
    meta.update(script="scripts/compile_profile.py", argv=sys.argv[1:] if argv is None else list(argv),
                layers=margs.layers, prefill=margs.prefill, backend=margs.compile_backend)
    torch.manual_seed(0)
    with torch.device(device):
        try:
            if args.impl == "mini":
                raise RuntimeError("mini asked for")
            module, meta["model"] = lm.build_hf(torch, margs)
            built = lm.Model(torch, module.eval(), hf=True)
        except Exception as e:
            if args.impl == "hf":
                raise
            meta["model_fallback_reason"] = f"{type(e).__name__}: {e}"
            built = lm.Model(torch, lm.build_mini(torch, margs).eval(), hf=False)
            meta["model"] = "hand-written Llama"
    base = built.module.to(torch.bfloat16)
    patched = copy.deepcopy(base)
    meta["patch"] = str(ladder.patch(patched, devices=(device.type,)))
    ids = torch.randint(0, margs.vocab, (1, margs.prefill), device=device)

    def sync():
        if cuda:
            torch.cuda.synchronize()

    rows = []
    with torch.inference_mode():
        variants = {}
        for name, m in (("torch", base), ("ladder", patched)):
            fn = (lambda m=m: built.logits(ids, 1, m))
            variants[f"{name}_eager"] = fn
            t0 = time.perf_counter()  # (one code object, two cache entries: dynamo guards on the closure's model)
            compiled = torch.compile(lambda ids, m=m: built.logits(ids, 1, m), fullgraph=True,
                                     backend=margs.compile_backend)
            compiled(ids)
            sync()
            meta[f"{name}_compile_s"] = round(time.perf_counter() - t0, 1)
            variants[f"{name}_compiled"] = (lambda c=compiled: c(ids))
        clock = tt.Clock(torch, device)
        for name, fn in variants.items():
            for _ in range(3):
                fn()
            sync()
            gpu = statistics.median(clock.ms([clock.sample(fn) for _ in range(args.reps)]))
            host = []
            for _ in range(args.reps):
                sync()
                t0 = time.perf_counter()
                fn()
                host.append((time.perf_counter() - t0) * 1e3)
            sync()
            acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
            with torch.profiler.profile(activities=acts, acc_events=True) as prof:
                for _ in range(3):
                    fn()
                sync()
            events = prof.key_averages()
            kernels = [e for e in events if getattr(e, "device_type", None) is not None
                       and str(e.device_type).endswith("CUDA") and e.self_device_time_total > 0]
            n_kernels = sum(e.count for e in kernels) / 3
            kernel_ms = sum(e.self_device_time_total for e in kernels) / 3 / 1e3
            top = sorted(events, key=lambda e: e.self_cpu_time_total, reverse=True)[:args.top]
            row = dict(variant=name, gpu_ms=gpu, host_ms=statistics.median(host), kernels=n_kernels,
                       kernel_ms=kernel_ms, tokens_per_s=margs.prefill / gpu * 1e3,
                       top=[dict(name=e.key, count=e.count / 3, self_cpu_us=e.self_cpu_time_total / 3)
                            for e in top])
            rows.append(row)
            print(f"{name:16} gpu {gpu:8.3f} ms  host {row['host_ms']:8.3f} ms  kernels {n_kernels:6.0f} "
                  f"({kernel_ms:.3f} ms on the GPU)  {row['tokens_per_s']:9.0f} tokens/s", flush=True)
            for t in row["top"][:args.top]:
                print(f"    {t['self_cpu_us']:9.1f} us  x{t['count']:6.1f}  {t['name'][:90]}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1, default=str))
    print(f"\n{meta['model']}; {meta.get('gpu')}, torch {meta['torch']}, commit {meta['commit']}; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
