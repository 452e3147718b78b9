"""ladder — a half-precision GEMM built as a ladder of small steps, from Python.

    import torch, ladder
    x = torch.randn(8, 512, 4096, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(14336, 4096, dtype=torch.bfloat16, device="cuda")
    y = ladder.linear(x, w, bias, activation="gelu_tanh")   # one GEMM, epilogue fused: torch.ops.ladder.linear
    h = ladder.swiglu(x, w_gate_up)                         # silu(x·gateᵀ) · (x·upᵀ) from [gate; up]
    d = ladder.gemm(a, b)                                   # a @ b.T (2-D), on torch's current stream
    ladder.patch(model)                                     # nn.Linear -> ladder.nn.Linear, with a report
    ladder.steps()                                          # ['h01', 'h02', ...]

A pure-Python binding over libladder.so's C ABI (include/ladder/ladder.h) with ctypes. With torch installed,
importing ladder registers the torch operators torch.ops.ladder.* (ladder/ops.py) and ladder.nn; without
torch, steps(), gemm_raw() and gemm_v2() still work. The library is found through LADDER_LIBRARY, then this
package's folder (where ``pip install .`` puts it), then build/release and build/debug of the repository,
then the system loader.
"""
from __future__ import annotations

import ctypes
from typing import List, Optional

from . import _launch
from ._library import (Activation, DType, Epilogue, GemmDesc, LadderError, LibraryNotFoundError,
                       MissingEntryPointError, Status, candidate_paths, check, gemm_desc, has_v2, library,
                       library_path)

__all__ = ["gemm", "linear", "swiglu", "plan", "patch", "nn", "ops", "gemm_raw", "gemm_v2", "steps",
           "LadderError", "LibraryNotFoundError", "MissingEntryPointError", "Status", "DType", "Activation",
           "Epilogue", "GemmDesc", "gemm_desc", "has_v2", "library_path", "candidate_paths"]
__version__ = "0.1.0"

# With torch, the operators are registered on import (torch.ops.ladder.* exist as soon as ladder is imported,
# e.g. for a graph or an exported program that names them); without it the rest of the package still works.
try:
    import torch as _torch
except (ImportError, OSError) as _e:  # OSError: a torch whose own libraries fail to load
    _torch_missing = f"import torch failed: {_e}"
else:
    del _torch
    _torch_missing = None
    from . import ops, nn  # noqa: E402  (registers torch.ops.ladder.*)
    from .ops import linear, plan, swiglu  # noqa: E402
    from .nn import patch  # noqa: E402


def __getattr__(name):  # only reached without torch: say what is missing instead of AttributeError
    if name in ("linear", "swiglu", "plan", "patch", "nn", "ops"):
        raise ImportError(f"ladder.{name} needs PyTorch ({_torch_missing}); ladder.gemm_raw and ladder.gemm_v2 "
                          "take raw device pointers without it")
    raise AttributeError(f"module 'ladder' has no attribute {name!r}")


def steps() -> List[str]:
    """The step ids in ladder order, e.g. ['h01', 'h02', 'h03'] (``ladder list`` shows what each changes)."""
    lib = library()
    return [lib.ladder_step_id(i).decode("ascii") for i in range(lib.ladder_step_count())]


def _step_bytes(step: Optional[str]) -> bytes:
    if step is None:
        return b"best"
    _launch.check_step(step)
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


def gemm_v2(desc: GemmDesc, stream: int = 0) -> None:
    """ladder_gemm_v2 on a descriptor (:func:`gemm_desc` builds one): raw pointers, dtypes, the epilogue.

    ``stream`` is a cudaStream_t as an int. Raises LadderError, or MissingEntryPointError with a library
    built before the descriptor API.
    """
    from ._library import require_v2
    lib = require_v2("ladder.gemm_v2")
    check(lib.ladder_gemm_v2(ctypes.byref(desc), ctypes.c_void_p(stream)))


def gemm(a, b, out=None, step: Optional[str] = "best"):
    """Returns a @ b.T for fp16 or bf16 CUDA tensors a [M, K] and b [N, K], computed by libladder.

    Accumulates in fp32 and rounds once to a's dtype (or to fp32 when ``out`` is fp32). Runs on torch's
    current stream of a's device. ``out``: a [M, N] tensor to write into (rows may be strided). ``step``: a
    step id such as 'h03', or 'best' (the fastest step that accepts the problem on this GPU).
    Rows of a, b and out may be strided (a[:, :K] of a wider tensor); the last dimension must be contiguous.
    Raises TypeError / ValueError for arguments that are wrong in Python terms, LadderError for what the
    library rejects (shape not accepted by the step, misalignment, unknown step, no suitable GPU).
    This is torch.ops.ladder.gemm (ladder::gemm_out with out=): it works under torch.compile and CUDA graphs.
    """
    if _torch_missing is not None:
        raise ImportError(f"ladder.gemm needs PyTorch ({_torch_missing}); "
                          "ladder.gemm_raw takes raw device pointers without it")
    return ops.gemm(a, b, out=out, step=step)
