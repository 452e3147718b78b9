"""ladder — a half-precision GEMM built as a ladder of small steps, from Python.

    import torch, ladder
    a = torch.randn(4096, 4096, dtype=torch.float16, device="cuda")
    b = torch.randn(4096, 4096, dtype=torch.float16, device="cuda")
    d = ladder.gemm(a, b)            # d = a @ b.T, fp32 accumulation, on torch's current stream
    ladder.steps()                   # ['h01', 'h02', ...]

A pure-Python binding over libladder.so's C ABI (include/ladder/ladder.h) with ctypes. torch is imported
only by :func:`gemm`; everything else works without it. The library is found through LADDER_LIBRARY,
then this package's folder, then build/release and build/debug of the repository, then the system loader.
"""
from __future__ import annotations

import ctypes
from typing import List, Optional

from ._library import (LadderError, LibraryNotFoundError, Status, candidate_paths, check, library,
                       library_path)

__all__ = ["gemm", "gemm_raw", "steps", "LadderError", "LibraryNotFoundError", "Status", "library_path",
           "candidate_paths"]
__version__ = "0.1.0"


def steps() -> List[str]:
    """The step ids in ladder order, e.g. ['h01', 'h02', 'h03'] (``ladder list`` shows what each changes)."""
    lib = library()
    return [lib.ladder_step_id(i).decode("ascii") for i in range(lib.ladder_step_count())]


def _step_bytes(step: Optional[str]) -> bytes:
    if step is None:
        return b"best"
    if not isinstance(step, str):
        raise TypeError(f"step must be a string such as 'h03' or 'best', not {type(step).__name__}")
    return step.encode("utf-8")


def gemm_raw(a: int, b: int, d: int, m: int, n: int, k: int, *, lda: Optional[int] = None,
             ldb: Optional[int] = None, ldd: Optional[int] = None, step: Optional[str] = "best",
             stream: int = 0) -> None:
    """D = A·Bᵀ on raw device pointers (ints): the C ABI as it is, for callers that are not torch.

    A is m×k, B is n×k, D is m×n, fp16, row-major; leading dimensions are in elements (None: dense rows).
    ``stream`` is a cudaStream_t as an int (0: the legacy default stream). Raises LadderError.
    """
    lib = library()
    vp = ctypes.c_void_p
    if lda is None and ldb is None and ldd is None:
        code = lib.ladder_gemm(vp(a), vp(b), vp(d), m, n, k, _step_bytes(step), vp(stream))
    else:
        code = lib.ladder_gemm_ld(vp(a), k if lda is None else lda, vp(b), k if ldb is None else ldb, vp(d),
                                  n if ldd is None else ldd, m, n, k, _step_bytes(step), vp(stream))
    check(code)


def _row_stride(t, name: str, row_length_name: str) -> int:
    """The leading dimension of a 2-D tensor whose last dimension is contiguous (ValueError otherwise)."""
    rows, cols = t.shape
    if t.stride(1) != 1 and cols > 1:
        raise ValueError(f"{name} must have a contiguous last dimension ({row_length_name}); its strides are "
                         f"{tuple(t.stride())} — pass {name}.contiguous()")
    if rows <= 1:
        return max(int(cols), 1)  # a single row's stride is never used; torch may report anything
    if t.stride(0) < cols:
        raise ValueError(f"{name} has overlapping or column-major rows (strides {tuple(t.stride())}, "
                         f"shape {tuple(t.shape)}) — pass {name}.contiguous()")
    return int(t.stride(0))


def _check_operand(torch, t, name: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
    if t.dtype != torch.float16:
        raise TypeError(f"{name} must be torch.float16, not {t.dtype}")
    if t.device.type != "cuda":
        raise ValueError(f"{name} must be a CUDA tensor, not on {t.device}")
    if t.dim() != 2:
        raise ValueError(f"{name} must be 2-D, not {t.dim()}-D (shape {tuple(t.shape)})")


def gemm(a, b, out=None, step: Optional[str] = "best"):
    """Returns a @ b.T for fp16 CUDA tensors a [M, K] and b [N, K], computed by libladder.

    Accumulates in fp32 and rounds once to fp16. Runs on torch's current stream of a's device.
    ``out``: an fp16 [M, N] CUDA tensor to write into (rows may be strided). ``step``: a step id such as
    'h03', or 'best' (the fastest step that accepts the problem on this GPU).
    Rows of a, b and out may be strided (a[:, :K] of a wider tensor); the last dimension must be contiguous.
    Raises TypeError / ValueError for arguments that are wrong in Python terms, LadderError for what the
    library rejects (shape not accepted by the step, misalignment, unknown step, no suitable GPU).
    """
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ladder.gemm needs PyTorch (import torch failed); "
                          "ladder.gemm_raw takes raw device pointers without it") from e

    _check_operand(torch, a, "a")
    _check_operand(torch, b, "b")
    if b.device != a.device:
        raise ValueError(f"a and b must be on the same device (a on {a.device}, b on {b.device})")
    m, k = a.shape
    n, kb = b.shape
    if kb != k:
        raise ValueError(f"a is [M, K] = {tuple(a.shape)} and b is [N, K] = {tuple(b.shape)}: their K differ")
    if m == 0 or n == 0 or k == 0:
        raise ValueError(f"M, N and K must be positive (got M={m}, N={n}, K={k})")
    lda = _row_stride(a, "a", "K")
    ldb = _row_stride(b, "b", "K")
    if out is None:
        out = torch.empty((m, n), dtype=torch.float16, device=a.device)
    else:
        _check_operand(torch, out, "out")
        if out.device != a.device:
            raise ValueError(f"out must be on a's device {a.device}, not {out.device}")
        if tuple(out.shape) != (m, n):
            raise ValueError(f"out must have shape [M, N] = {(m, n)}, not {tuple(out.shape)}")
    ldd = _row_stride(out, "out", "N")

    with torch.cuda.device(a.device):
        stream = torch.cuda.current_stream(a.device).cuda_stream
        dense = lda == k and ldb == k and ldd == n
        gemm_raw(a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, step=step, stream=stream,
                 **({} if dense else {"lda": lda, "ldb": ldb, "ldd": ldd}))
    return out
