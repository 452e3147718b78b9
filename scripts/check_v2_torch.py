#!/usr/bin/env python3
"""GPU check of the descriptor entry point (ladder_gemm_v2) against torch, through ctypes only.

Every case: fresh random operands, D poisoned with NaN, one run of ladder, the fp32 torch reference of the same
epilogue on the same (rounded) inputs, normwise and elementwise bounds, and a second run that must give the same
bits. Covers fp16 and bf16, fp32 output, alpha/beta, bias (fp16/bf16/fp32), ReLU/GELU(tanh, erf)/SiLU,
residuals, SwiGLU, strided rows and the steps that take them, at a decode size (M = 16) and a tile size
(300×1000×520), where `best` takes different families. Writes a CSV (one row per case) when --csv is given.

    LADDER_LIBRARY=build/release/libladder.so python3 scripts/check_v2_torch.py --csv out.csv
    LADDER_TUNE=kernel=pingpong python3 scripts/check_v2_torch.py    # every case through one family of best's
    LADDER_TUNE=kernel=coop python3 scripts/check_v2_torch.py --set deferred   # the deferred activation
    LADDER_TUNE=kernel=coop,defer=2 python3 scripts/check_v2_torch.py --set deferred   # and the deferred residual

Each family compiles one kernel copy per epilogue kind, so each needs its own run. With LADDER_TUNE forcing a
family, a case the family cannot take (the library says so: "LADDER_TUNE kernel=… needs/cannot …") is skipped.
Exit status 1 if any case fails.
"""
import argparse
import ctypes
import math
import os
import sys

import torch

LIB = ctypes.CDLL(os.environ.get("LADDER_LIBRARY", "build/release/libladder.so"))

F16, BF16, F32 = 0, 1, 2
ACT = {"none": 0, "relu": 1, "gelu_tanh": 2, "gelu_erf": 3, "silu": 4}
TORCH_DTYPE = {F16: torch.float16, BF16: torch.bfloat16, F32: torch.float32}
DTYPE_CODE = {torch.float16: F16, torch.bfloat16: BF16, torch.float32: F32}


class Desc(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("M", ctypes.c_int64), ("N", ctypes.c_int64), ("K", ctypes.c_int64),
                ("A", ctypes.c_void_p), ("lda", ctypes.c_int64), ("B", ctypes.c_void_p), ("ldb", ctypes.c_int64),
                ("D", ctypes.c_void_p), ("ldd", ctypes.c_int64), ("ab_dtype", ctypes.c_int32),
                ("d_dtype", ctypes.c_int32), ("alpha", ctypes.c_float), ("beta", ctypes.c_float),
                ("C", ctypes.c_void_p), ("ldc", ctypes.c_int64), ("bias", ctypes.c_void_p),
                ("bias_dtype", ctypes.c_int32), ("activation", ctypes.c_int32), ("epilogue", ctypes.c_int32),
                ("flags", ctypes.c_int32), ("a_scale", ctypes.c_void_p), ("b_scale", ctypes.c_void_p),
                ("step", ctypes.c_char_p)]


LIB.ladder_gemm_desc_init.argtypes = [ctypes.POINTER(Desc)]
LIB.ladder_gemm_v2.argtypes = [ctypes.POINTER(Desc), ctypes.c_void_p]
LIB.ladder_gemm_v2.restype = ctypes.c_int
LIB.ladder_gemm_plan.argtypes = [ctypes.POINTER(Desc)]
LIB.ladder_gemm_plan.restype = ctypes.c_char_p
LIB.ladder_last_error.restype = ctypes.c_char_p


def reference(a, b, act, bias, alpha, beta, c, swiglu):
    acc = a.float() @ b.float().T
    y = alpha * acc
    if bias is not None:
        y = y + bias.float()
    if swiglu:
        i = y.shape[1] // 2
        y = torch.nn.functional.silu(y[:, :i]) * y[:, i:]
    elif act == "relu":
        y = torch.relu(y)
    elif act == "gelu_tanh":
        y = torch.nn.functional.gelu(y, approximate="tanh")
    elif act == "gelu_erf":
        y = torch.nn.functional.gelu(y)
    elif act == "silu":
        y = torch.nn.functional.silu(y)
    if beta != 0:
        y = y + beta * c.float()
    return y


def operand_rounding(a, b, act, bias, alpha, swiglu, u):
    """u·Σ|x·∂f/∂x| over the activation's inputs x (the pre-activation values; SwiGLU's gate and up): the first-order
    error of rounding them to D's dtype before the activation, as the deferred copy does (and torch's unfused
    activations do). Without an activation the deferred copy is the residual's: y = alpha·acc + bias is rounded
    before beta·C is added (as torch's unfused `x @ W.T + r`), u·|y|. ReLU is never deferred."""
    if not swiglu and act == "relu":
        return 0.0
    y = alpha * (a.float() @ b.float().T)
    if bias is not None:
        y = y + bias.float()
    if not swiglu and act == "none":
        return u * y.abs()
    y.requires_grad_(True)
    with torch.enable_grad():  # the elementwise derivative: the functions are elementwise
        if swiglu:
            i = y.shape[1] // 2
            f = torch.nn.functional.silu(y[:, :i]) * y[:, i:]
        else:
            f = {"gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
                 "gelu_erf": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}[act](y)
        (grad,) = torch.autograd.grad(f, y, torch.ones_like(f))
    term = (grad * y).abs().detach()
    if swiglu:
        i = y.shape[1] // 2
        term = term[:, :i] + term[:, i:]
    return u * term


def run_case(step, m, n, k, ab, d_dtype, act="none", bias_dtype=None, alpha=1.0, beta=0.0, swiglu=False,
             flags=0, stride_pad=0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    tdt = TORCH_DTYPE[ab]
    a_full = (torch.rand(m, k + stride_pad, device="cuda", generator=g) * 2 - 1).to(tdt)
    b_full = (torch.rand(n, k + stride_pad, device="cuda", generator=g) * 2 - 1).to(tdt)
    a, b = a_full[:, :k], b_full[:, :k]
    cols = n // 2 if swiglu else n
    dt = TORCH_DTYPE[d_dtype]
    bias = None
    if bias_dtype is not None:
        bias = (torch.rand(n, device="cuda", generator=g) * 2 - 1).to(TORCH_DTYPE[bias_dtype])
    c = (torch.rand(m, cols, device="cuda", generator=g) * 2 - 1).to(dt) if beta != 0 else None
    ref = reference(a, b, act, bias, alpha, beta, c, swiglu)

    d = torch.full((m, cols), float("nan"), device="cuda", dtype=dt)
    desc = Desc()
    LIB.ladder_gemm_desc_init(ctypes.byref(desc))
    desc.M, desc.N, desc.K = m, n, k
    desc.A, desc.lda = a.data_ptr(), a_full.stride(0)
    desc.B, desc.ldb = b.data_ptr(), b_full.stride(0)
    desc.D, desc.ldd = d.data_ptr(), cols
    desc.ab_dtype, desc.d_dtype = ab, d_dtype
    desc.alpha, desc.beta = alpha, beta
    if c is not None:
        desc.C, desc.ldc = c.data_ptr(), cols
    if bias is not None:
        desc.bias, desc.bias_dtype = bias.data_ptr(), bias_dtype
    desc.activation = ACT[act]
    desc.epilogue = 1 if swiglu else 0
    desc.flags = flags
    desc.step = step.encode()
    stream = torch.cuda.current_stream().cuda_stream
    plan = LIB.ladder_gemm_plan(ctypes.byref(desc))
    code = LIB.ladder_gemm_v2(ctypes.byref(desc), ctypes.c_void_p(stream))
    if code != 0:
        msg = LIB.ladder_last_error().decode()
        if "LADDER_TUNE kernel=" in msg:  # the forced family cannot take this case
            return None, msg, plan.decode() if plan else ""
        return False, f"error {code}: {msg}", ""
    torch.cuda.synchronize()
    first = d.clone()
    d.fill_(float("nan"))
    LIB.ladder_gemm_v2(ctypes.byref(desc), ctypes.c_void_p(stream))
    torch.cuda.synchronize()
    same = torch.equal(first.view(torch.int16) if dt != torch.float32 else first.view(torch.int32),
                       d.view(torch.int16) if dt != torch.float32 else d.view(torch.int32))
    got = first.float()
    nonfinite = int((~torch.isfinite(got)).sum())
    err = (got - ref)
    rel = float(err.norm() / ref.norm().clamp_min(1e-30))
    u = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -24}[dt]
    # elementwise: one rounding of the result (2u, for the epilogue's own fp32 steps too) + fp32 accumulation; a copy
    # whose plan defers the activation rounds its inputs to D's dtype first (torch's unfused order): that bound too
    tol = 2 * u * ref.abs() + 1e-4 * math.sqrt(k) * (1 + abs(beta))
    if plan and b"deferred" in plan:
        tol = tol + operand_rounding(a, b, act, bias, alpha, swiglu, u)
    over = int((err.abs() > tol).sum())
    ok = nonfinite == 0 and over == 0 and same and rel <= 4 * u + 1e-5 * math.sqrt(k)
    detail = f"rel {rel:.2e} over {over} nonfinite {nonfinite} identical {same}"
    return ok, detail, plan.decode() if plan else ""


def cases():
    out = []
    shapes = [(1, 4096, 4096), (7, 1000, 520), (16, 2048, 1024), (33, 777, 4096), (64, 4096, 1536),
              (5, 130, 72), (2, 14336, 4096)]
    for ab in (F16, BF16):
        for (m, n, k) in shapes:
            out.append(dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab))
        for (m, n, k, half) in ((16, 1536, 2048, 1408), (300, 1000, 520, 640)):  # decode size, tile size
            out += [
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=F32),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="relu", bias_dtype=ab),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_tanh", bias_dtype=F32),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_erf"),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="silu", bias_dtype=F16),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, alpha=0.5, beta=1.0),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, bias_dtype=BF16),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_tanh", bias_dtype=BF16, beta=1.0),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=F32, act="silu", bias_dtype=F32, alpha=2.0, beta=-0.5),
                dict(step="best", m=m, n=2 * half, k=k, ab=ab, d_dtype=ab, swiglu=True),
                dict(step="best", m=m, n=2 * (half - 60), k=k, ab=ab, d_dtype=ab, swiglu=True, bias_dtype=F32, beta=1.0),
            ]
        m, n, k = 16, 1536, 2048
        out += [
            dict(step="best", m=3, n=2 * 14336, k=4096, ab=ab, d_dtype=ab, swiglu=True),
            dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, stride_pad=8),
            dict(step="best", m=m, n=n, k=1001, ab=ab, d_dtype=ab, act="relu"),  # K % 8 != 0: padded
            dict(step="h12", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="silu", beta=1.0),
            dict(step="h13", m=m, n=n, k=k, ab=ab, d_dtype=ab, flags=1),
            dict(step="h13", m=1, n=4096, k=4096, ab=ab, d_dtype=ab, flags=0),
        ]
    return out


def deferred_cases():
    """Shapes where the cooperative 128×256 tile (LADDER_TUNE kernel=coop) runs several tiles a CTA, so that its
    deferred activation (the twentieth session) runs under another tile's mainloop: ragged rows and columns, a
    stream-K last wave, K of more and of fewer K-tiles (17, 5) than a tile has slices (16), SwiGLU's half-width
    tile; the residual (beta·C without an activation), deferred under LADDER_TUNE defer=2; and the cases it leaves to
    the epilogue after the mainloop (ReLU, an activation with beta·C)."""
    out = []
    for ab in (F16, BF16):
        for (m, n, k) in ((1000, 5000, 1032), (1000, 5000, 264), (2048, 4096, 512)):
            out += [
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_tanh", bias_dtype=F32),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_erf", bias_dtype=ab),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="silu", alpha=0.5),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, swiglu=True, bias_dtype=F32),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="relu", bias_dtype=ab),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, act="gelu_erf", bias_dtype=ab, beta=1.0),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, beta=1.0),
                dict(step="best", m=m, n=n, k=k, ab=ab, d_dtype=ab, alpha=0.5, beta=-0.5, bias_dtype=F32),
            ]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv")
    ap.add_argument("--set", choices=("all", "deferred"), default="all",
                    help="all: the descriptor's cases; deferred: the cooperative tile's deferred activation")
    args = ap.parse_args()
    rows, failed, skipped = [], 0, 0
    print(f"LADDER_TUNE={os.environ.get('LADDER_TUNE', '')!r}")
    for i, c in enumerate(cases() if args.set == "all" else deferred_cases()):
        ok, detail, plan = run_case(seed=i, **c)
        status = "skip" if ok is None else "pass" if ok else "fail"
        failed += status == "fail"
        skipped += status == "skip"
        name = " ".join(f"{k}={v}" for k, v in c.items())
        print(f"{status.upper() if status == 'fail' else status}  {name}  {detail}  [{plan}]")
        rows.append((name, status, detail, plan))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("case,status,detail,plan\n")
            for r in rows:
                f.write(",".join('"' + x.replace('"', '""') + '"' for x in r) + "\n")
    print(f"\n{len(rows) - failed - skipped} passed, {failed} failed, {skipped} skipped (the forced family cannot take them)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
