#!/usr/bin/env python3
"""The fused epilogues' kernels under compute-sanitizer (memcheck, racecheck, synccheck), with no other GPU work:
operands made on the CPU and copied, references on the CPU, so every kernel the tool sees is ladder's. Cases:
bias + GELU + residual (C by TMA into the staging tile), bias + SiLU, SwiGLU + residual, accumulate into D
(C is D), at 300×1000×520 (several tiles, ragged edges). The family follows LADDER_TUNE (kernel=coop, pingpong, …).

    LADDER_TUNE=kernel=coop compute-sanitizer --tool racecheck python3 scripts/sanitize_epilogue.py
    LADDER_TUNE=kernel=coop compute-sanitizer --tool racecheck python3 scripts/sanitize_epilogue.py --deferred

--deferred: the cooperative tile's deferred activations and residual (several tiles a CTA, 1000×5000×264).
"""
import sys

import torch_timing as tt  # noqa: F401  (puts this repository's python/ on sys.path)
import torch

import ladder
from ladder import reference


def main() -> int:
    if "--deferred" in sys.argv:  # the cooperative tile's deferred activation (LADDER_TUNE=kernel=coop): several tiles a CTA
        return deferred()
    m, n, k = 300, 1000, 520
    g = torch.Generator().manual_seed(7)
    rnd = lambda *s, scale=1.0: ((torch.rand(s, generator=g) * 2 - 1) * scale).half()  # noqa: E731
    x, w, b, r = rnd(m, k), rnd(n, k, scale=k ** -0.5), rnd(n), rnd(m, n)
    w2, r2 = rnd(2 * 512, k, scale=k ** -0.5), rnd(m, 512)
    cx, cw, cb, cr, cw2, cr2 = (t.cuda() for t in (x, w, b, r, w2, r2))
    cases = {
        "bias+gelu+residual": (lambda: ladder.linear(cx, cw, cb, activation="gelu", residual=cr),
                               reference.linear(x.float(), w.float(), b.float(), "gelu", r.float())),
        "bias+silu": (lambda: ladder.linear(cx, cw, cb, activation="silu"),
                      reference.linear(x.float(), w.float(), b.float(), "silu")),
        "swiglu+residual": (lambda: ladder.swiglu(cx, cw2, residual=cr2),
                            reference.swiglu(x.float(), w2.float(), residual=r2.float())),
    }
    d = cr.clone()
    cases["accumulate"] = (lambda: ladder.linear(cx, cw, out=d, accumulate=True, beta=0.5),
                           reference.linear(x.float(), w.float(), residual=r.float(), beta=0.5))
    return run_cases(cases)


def run_cases(cases) -> int:
    """Each case once, against its CPU reference (normwise); 1 if any fails."""
    failed = 0
    with torch.inference_mode():
        for name, (run, ref) in cases.items():
            got = run().float().cpu()
            err = float((got - ref).norm() / ref.norm())
            ok = bool(torch.isfinite(got).all()) and err < 2e-3
            failed += not ok
            print(f"{name:20} rel err {err:.2e} {'ok' if ok else 'FAIL'}", flush=True)
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def deferred() -> int:
    m, n, k = 1000, 5000, 264
    g = torch.Generator().manual_seed(8)
    rnd = lambda *s, scale=1.0: ((torch.rand(s, generator=g) * 2 - 1) * scale).half()  # noqa: E731
    x, w, b = rnd(m, k), rnd(n, k, scale=k ** -0.5), rnd(n)
    cx, cw, cb = x.cuda(), w.cuda(), b.cuda()
    cases = {f"bias+{a}": (lambda a=a: ladder.linear(cx, cw, cb, activation=a),
                           reference.linear(x.float(), w.float(), b.float(), a)) for a in ("gelu", "gelu_tanh", "silu")}
    cases["swiglu"] = (lambda: ladder.swiglu(cx, cw), reference.swiglu(x.float(), w.float()))
    # The deferred residual (the default since the twenty-seventh session): C by TMA into the epilogue warps' blocks,
    # apart and as D itself (accumulating in place)
    r = rnd(m, n)
    cr = r.cuda()
    cases["bias+residual"] = (lambda: ladder.linear(cx, cw, cb, residual=cr),
                              reference.linear(x.float(), w.float(), b.float(), "none", r.float()))
    d = cr.clone()
    cases["accumulate"] = (lambda: ladder.linear(cx, cw, out=d, accumulate=True, beta=0.5),
                           reference.linear(x.float(), w.float(), residual=r.float(), beta=0.5))
    return run_cases(cases)


if __name__ == "__main__":
    sys.exit(main())
