#!/usr/bin/env python3
"""What torch.library.custom_op's own kernel registration costs a call, against the same kernel registered with
torch.library.Library.impl, bare and with custom_op's dynamo guard (torch._disable_dynamo): throwaway ops on CPU
tensors, each with a kernel that allocates a 0-d tensor and nothing else, in inference mode (no autograd kernel runs) and in grad mode (custom_op's autograd kernel runs in
both). No GPU and no libladder needed. Medians of 9 interleaved rounds; a CSV with the commit, date and host.

    python3 scripts/registration_cost.py --out docs/results/dev/2026-12-01-s11-host/registration-cost.csv
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch_timing as tt
from check_cost import cpu_name, interleaved_us


_RUNS = 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calls", type=int, default=20000, help="calls a round")
    args = ap.parse_args(argv)
    import torch

    meta = tt.provenance(torch, None, torch.device("cpu"))

    def kernel(x, w):
        return x.new_empty(())

    schema = "(Tensor x, Tensor w) -> Tensor"
    global _RUNS
    _RUNS += 1
    ns = f"regcost{_RUNS}"  # a namespace per run: ops stay defined for the life of the process

    # custom_op's registration of the CPU kernel (what ladder's ops use for CUDA on main) ...
    own = torch.library.custom_op(f"{ns}::own", mutates_args=(), device_types="cpu", schema=schema)(kernel)
    own.register_fake(lambda x, w: x.new_empty(()))
    # ... against the same kernel registered directly, the op defined by custom_op for another device.
    direct = torch.library.custom_op(f"{ns}::direct", mutates_args=(), device_types="cuda",
                                     schema=schema)(kernel)
    direct.register_fake(lambda x, w: x.new_empty(()))
    guarded = torch.library.custom_op(f"{ns}::guarded", mutates_args=(), device_types="cuda",
                                      schema=schema)(kernel)
    guarded.register_fake(lambda x, w: x.new_empty(()))
    lib = torch.library.Library(ns, "IMPL")
    lib.impl("direct", kernel, "CPU")
    lib.impl("guarded", torch._disable_dynamo(kernel), "CPU")  # with custom_op's dynamo guard kept
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    ops = getattr(torch.ops, ns)
    fns = {"custom_op": lambda: ops.own(x, w), "library_impl": lambda: ops.direct(x, w),
           "library_impl_guarded": lambda: ops.guarded(x, w)}
    rows = []
    for mode in ("inference", "grad"):
        with torch.inference_mode(mode == "inference"):
            t = interleaved_us(fns, args.calls, rounds=9)
        rows.append(dict(mode=mode, custom_op_us=round(t["custom_op"], 2), library_impl_us=round(t["library_impl"], 2),
                         library_impl_guarded_us=round(t["library_impl_guarded"], 2),
                         saved_us=round(t["custom_op"] - t["library_impl"], 2),
                         saved_guarded_us=round(t["custom_op"] - t["library_impl_guarded"], 2), commit=meta["commit"],
                         date=meta["date"], host=f"{cpu_name()}, no GPU", torch=meta["torch"], python=meta["python"]))
        print(f"{mode:9s} custom_op's registration {t['custom_op']:.2f} us, Library.impl {t['library_impl']:.2f} us, "
              f"with the dynamo guard {t['library_impl_guarded']:.2f} us")
    del lib
    tt.write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
