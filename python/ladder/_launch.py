"""What a call means in the C ABI's terms: argument checks and the descriptor, without importing torch.

The torch ops (ops.py) call these with real tensors, their fake implementations with fake ones, and
python/tests/test_launch.py with small stand-ins: every function reads only ``shape``, ``stride()``, ``dtype``,
``device`` and, to launch, ``data_ptr()``. The rules mirror ladder_gemm_v2's (include/ladder/ladder.h), so a
wrong call fails here with a TypeError or ValueError before the library sees it:

    acc = x · weightᵀ            x [..., K] (leading dimensions flattened to M rows), weight [N, K]
    y   = act(alpha·acc + bias)  bias [N]; act: none, relu, gelu (erf), gelu_tanh, silu
    out = y + beta·residual      residual: out's shape and dtype (or out itself: accumulate)
    SwiGLU: weight is [gate; up] (N = 2·I rows) and out[..., j] = silu(pre[..., j]) · pre[..., I + j]
"""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from . import _library
from ._library import Activation, DType, Epilogue

FLOAT16, BFLOAT16, FLOAT32 = "float16", "bfloat16", "float32"
OPERAND_DTYPES = {FLOAT16: DType.F16, BFLOAT16: DType.BF16}
BIAS_DTYPES = {FLOAT16: DType.F16, BFLOAT16: DType.BF16, FLOAT32: DType.F32}
ACTIVATIONS = {
    "none": Activation.NONE,
    "relu": Activation.RELU,
    "gelu": Activation.GELU_ERF,       # torch's F.gelu default (approximate='none')
    "gelu_erf": Activation.GELU_ERF,
    "gelu_tanh": Activation.GELU_TANH,  # F.gelu(approximate='tanh')
    "silu": Activation.SILU,
}


def dtype_name(dtype: Any) -> str:
    """'float16' for torch.float16 (and for the stand-ins' 'float16')."""
    return str(dtype).rpartition(".")[2]


def _torch_name(name: str) -> str:
    return f"torch.{name}"


@dataclass(frozen=True)
class Matrix:
    """A tensor [..., cols] seen as rows × cols, unit column stride, row stride ``ld`` (elements)."""

    rows: Any
    cols: Any
    ld: Any


def as_matrix(t) -> Optional[Matrix]:
    """``t`` as one row-major matrix over its last dimension, or None when its layout is not one.

    The last dimension must be contiguous and the leading dimensions must flatten into rows with one stride
    (what ``t.view(-1, cols)`` accepts): a contiguous tensor, a row slice ``x[:, :K]`` of a wider one, or a
    slice of the sequence dimension. Dimensions of size 1 never matter.
    """
    shape, strides = tuple(t.shape), tuple(t.stride())
    cols = shape[-1]
    rows = math.prod(shape[:-1])
    if cols != 1 and strides[-1] != 1:
        return None
    leading = [(s, st) for s, st in zip(shape[:-1], strides[:-1]) if s != 1]
    if rows == 0 or not leading:
        return Matrix(rows, cols, cols)
    for (_, outer), (inner_size, inner) in zip(leading, leading[1:]):
        if outer != inner * inner_size:
            return None
    ld = leading[-1][1]
    if ld < cols:  # overlapping (or column-major) rows
        return None
    return Matrix(rows, cols, ld)


def _check_tensor(torch, t, name: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")


def check_step(step) -> None:
    """TypeError unless step is None or a step id string."""
    if step is not None and not isinstance(step, str):
        raise TypeError(f"step must be a string such as 'h03' or 'best', not {type(step).__name__}")


def _check_device(t, name: str, ref, ref_name: str) -> None:
    if t.device != ref.device:
        raise ValueError(f"{name} must be on {ref_name}'s device ({ref.device}), not {t.device}")


@dataclass(frozen=True)
class Call:
    """A checked call: sizes, dtypes and epilogue in the C ABI's terms, and the output it produces. Frozen: one
    Call serves every call with the same arguments' metadata (check_call's cache)."""

    m: Any                  # rows of x (its leading dimensions flattened)
    n: Any                  # rows of weight (2·I with SwiGLU)
    k: Any
    out_shape: Tuple[Any, ...]
    out_dtype: str          # dtype name of the output (and of the residual)
    ab_dtype: DType
    d_dtype: DType
    activation: Activation
    epilogue: Epilogue
    alpha: float
    beta: float             # 0 when nothing is added
    has_bias: bool
    bias_dtype: DType
    c_source: str           # "none", "residual" or "out" (accumulate into out)
    x_is_matrix: bool       # False: x's layout needs a contiguous copy first (linear and swiglu only)
    step: Optional[str]
    # Row strides found by the checks (so the descriptor need not look again): x's (K once x is copied), the
    # weight's, C's (the residual's or out's with accumulate), and out's when out= was given (else the new
    # contiguous output's: out_cols).
    lda: Any = None
    ldb: Any = None
    ldc: Any = 0
    ldd: Any = None

    @property
    def empty(self) -> bool:
        """M == 0: the result is an empty tensor and nothing is launched."""
        return self.m == 0

    @property
    def plain_fp16(self) -> bool:
        """D = A·Bᵀ in fp16 and nothing else: the pre-descriptor entry ladder_gemm_ld can run it."""
        return (self.ab_dtype == DType.F16 and self.d_dtype == DType.F16 and self.epilogue == Epilogue.DEFAULT
                and self.activation == Activation.NONE and not self.has_bias and self.c_source == "none"
                and self.alpha == 1.0)


# check_call's verdicts, by all it reads of its arguments: each tensor's type, dtype, device, shape and strides (never
# its data or address), and the options. A model makes the same few calls over and over: a kept verdict costs
# 1.1-1.8 µs a call where the checks cost 7.8-11.0 (a CPU without a GPU, 2026-12-01:
# docs/results/dev/2026-12-01-s9-host/check-cost.csv). Only passing calls are kept, so a wrong call raises every time. A zero alpha or beta is not cached (0.0 == -0.0, and the sign of a zero
# product is in D's bits).
_CHECKED: dict = {}
_CHECKED_MAX = 4096
_NUMBERS = (float, int, bool)


def _meta(t):
    return None if t is None else (type(t), t.dtype, t.device, t.shape, t.stride())


def check_call(torch, x, weight, bias=None, activation: str = "none", residual=None, alpha: float = 1.0,
               beta: float = 1.0, out_dtype=None, step: Optional[str] = None, *, swiglu: bool = False,
               out=None, accumulate: bool = False, strict_2d: bool = False, names=("x", "weight")) -> Call:
    """Checks one call of ladder::gemm, ::linear or ::swiglu (see the module docstring); TypeError for a
    wrong type or dtype, ValueError for a wrong shape, layout, device or option.

    ``strict_2d`` (ladder::gemm): both operands 2-D with a contiguous last dimension, no copies.
    ``out``: write into this tensor (its layout must be one matrix); ``accumulate``: add beta·out to it.
    """
    key = None
    # Only plain numbers as alpha and beta (1+0j == 1.0 hashes alike but is no float; a tensor would hash by identity).
    if type(alpha) in _NUMBERS and type(beta) in _NUMBERS and alpha != 0 and beta != 0:
        try:
            key = (_meta(x), _meta(weight), _meta(bias), activation, _meta(residual), alpha, beta, out_dtype, step,
                   swiglu, _meta(out), accumulate, strict_2d, names)
            call = _CHECKED.get(key)
        except (AttributeError, TypeError, RuntimeError):  # not tensors, symbolic sizes, no strides (sparse,
            key = call = None                                # nested), unhashable options: checked below
        if call is not None:
            return call
    call = _check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step, swiglu=swiglu,
                       out=out, accumulate=accumulate, strict_2d=strict_2d, names=names)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = call
    return call


def _check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step, *, swiglu, out,
                accumulate, strict_2d, names) -> Call:
    xn, wn = names
    _check_tensor(torch, x, xn)
    _check_tensor(torch, weight, wn)
    x_dtype, w_dtype = dtype_name(x.dtype), dtype_name(weight.dtype)
    for t, name, dt in ((x, xn, x_dtype), (weight, wn, w_dtype)):
        if dt not in OPERAND_DTYPES:
            raise TypeError(f"{name} must be torch.float16 or torch.bfloat16, not {_torch_name(dt)}")
    if x_dtype != w_dtype:
        raise TypeError(f"{xn} and {wn} must have the same dtype ({xn} is {_torch_name(x_dtype)}, "
                        f"{wn} {_torch_name(w_dtype)})")
    if weight.device != x.device:
        raise ValueError(f"{xn} and {wn} must be on the same device ({xn} on {x.device}, {wn} on {weight.device})")
    if strict_2d and x.dim() != 2:
        raise ValueError(f"{xn} must be 2-D, not {x.dim()}-D (shape {tuple(x.shape)})")
    if x.dim() < 1:
        raise ValueError(f"{xn} must have at least one dimension [..., K], not shape {tuple(x.shape)}")
    if weight.dim() != 2:
        raise ValueError(f"{wn} must be 2-D [N, K], not {weight.dim()}-D (shape {tuple(weight.shape)})")
    n, k = weight.shape
    if x.shape[-1] != k:
        shape_name = "[M, K]" if strict_2d else "[..., K]"
        raise ValueError(f"{xn} is {shape_name} = {tuple(x.shape)} and {wn} is [N, K] = {tuple(weight.shape)}: "
                         "their K differ")
    m = math.prod(x.shape[:-1])
    if (strict_2d and m == 0) or n == 0 or k == 0:
        raise ValueError(f"M, N and K must be positive (got M={m}, N={n}, K={k})")
    xm, wm = as_matrix(x), as_matrix(weight)
    for t, m_, name, row in ((x, xm, xn, "K"), (weight, wm, wn, "K")):
        if (strict_2d or t is weight) and m_ is None:
            raise ValueError(_layout_message(t, name, row, "pass {name}.contiguous()"))
    x_is_matrix = xm is not None

    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(repr(a) for a in ACTIVATIONS)}, not {activation!r}")
    if swiglu and ACTIVATIONS[activation] != Activation.NONE:
        raise ValueError("swiglu applies silu(gate)·up itself: activation must be 'none'")
    if swiglu and n % 2 != 0:
        raise ValueError(f"SwiGLU needs an even N: {wn} holds [gate; up] as 2·I rows, and has N={n}")
    out_cols = n // 2 if swiglu else n
    out_shape = (*x.shape[:-1], out_cols)

    if out is not None:
        _check_tensor(torch, out, "out")
        out_name = dtype_name(out.dtype)
        if out_dtype is not None and dtype_name(out_dtype) != out_name:
            raise TypeError(f"out_dtype ({out_dtype}) and out ({out.dtype}) disagree")
    else:
        out_name = x_dtype if out_dtype is None else dtype_name(out_dtype)
    if out_name not in (x_dtype, FLOAT32):
        what = "out" if out is not None else "out_dtype"
        raise TypeError(f"{what} must be {xn}'s dtype ({_torch_name(x_dtype)}) or torch.float32, not "
                        f"{_torch_name(out_name)}")
    if out is not None:
        _check_device(out, "out", x, xn)
        if tuple(out.shape) != tuple(out_shape):
            raise ValueError(f"out must have shape {tuple(out_shape)}, not {tuple(out.shape)}")
        om = as_matrix(out)
        if om is None:
            raise ValueError(_layout_message(out, "out", "N", "ladder writes its rows in place: pass a "
                                                              "contiguous out"))

    has_bias = bias is not None
    bias_dtype = DType.F16
    if has_bias:
        _check_tensor(torch, bias, "bias")
        b_name = dtype_name(bias.dtype)
        if b_name not in BIAS_DTYPES:
            raise TypeError(f"bias must be torch.float16, torch.bfloat16 or torch.float32, not {_torch_name(b_name)}")
        bias_dtype = BIAS_DTYPES[b_name]
        per = "one per row of the [gate; up] weight, 2·I" if swiglu else f"one per row of {wn}"
        if bias.dim() != 1 or bias.shape[0] != n:
            raise ValueError(f"bias must be 1-D with N = {n} values ({per}), not shape {tuple(bias.shape)}")
        if n > 1 and bias.stride(0) != 1:
            raise ValueError(f"bias must be contiguous (stride 1), not stride {bias.stride(0)}")
        _check_device(bias, "bias", x, xn)

    c_source = "none"
    if accumulate:
        if out is None:
            raise ValueError("accumulate adds beta·out to the product: it needs out=")
        if residual is not None:
            raise ValueError("pass either a residual or accumulate=True (which adds beta·out), not both")
        c_source = "out"
    elif residual is not None:
        _check_tensor(torch, residual, "residual")
        if tuple(residual.shape) != tuple(out_shape):
            raise ValueError(f"residual must have the output's shape {tuple(out_shape)}, not "
                             f"{tuple(residual.shape)} (no broadcasting)")
        r_name = dtype_name(residual.dtype)
        if r_name != out_name:
            raise TypeError(f"residual must have the output's dtype ({_torch_name(out_name)}), not "
                            f"{_torch_name(r_name)}")
        _check_device(residual, "residual", x, xn)
        rm = as_matrix(residual)
        if rm is None:
            raise ValueError(_layout_message(residual, "residual", "N", "pass residual.contiguous()"))
        c_source = "residual"
    elif beta != 1.0:
        raise ValueError(f"beta scales the residual: beta={beta} needs residual= (or out= with accumulate=True)")

    check_step(step)
    epilogue = Epilogue.SWIGLU if swiglu else Epilogue.DEFAULT
    return Call(m=m, n=n, k=k, out_shape=out_shape, out_dtype=out_name, ab_dtype=OPERAND_DTYPES[x_dtype],
                d_dtype=OPERAND_DTYPES.get(out_name, DType.F32), activation=ACTIVATIONS[activation],
                epilogue=epilogue, alpha=float(alpha), beta=float(beta) if c_source != "none" else 0.0,
                has_bias=has_bias, bias_dtype=bias_dtype, c_source=c_source, x_is_matrix=x_is_matrix, step=step,
                lda=xm.ld if xm is not None else k, ldb=wm.ld,
                ldc=rm.ld if c_source == "residual" else om.ld if c_source == "out" else 0,
                ldd=om.ld if out is not None else out_cols)


def _layout_message(t, name: str, row: str, advice: str) -> str:
    strides, shape = tuple(t.stride()), tuple(t.shape)
    advice = advice.format(name=name)
    if shape[-1] != 1 and strides[-1] != 1:
        return (f"{name} must have a contiguous last dimension ({row}); its strides are {strides} — {advice}")
    return (f"{name} has overlapping, column-major or non-uniform rows (strides {strides}, shape {shape}): "
            f"its leading dimensions must flatten to rows of one stride — {advice}")


_DESC_SIZE = ctypes.sizeof(_library.GemmDesc)


def _template(call: Call) -> bytes:
    """The descriptor's bytes for this call with every pointer zero: built once per Call (kept on it, so a kept
    verdict reuses it), then copied and given its pointers (0.6-1.2 µs a call against 2.1-3.9 µs for the
    constructor with every field, on a CPU machine: scripts/check_cost.py)."""
    raw = getattr(call, "_desc_template", None)
    if raw is None:
        fields = dict(struct_size=_DESC_SIZE, M=call.m, N=call.n, K=call.k, lda=call.lda, ldb=call.ldb, ldd=call.ldd,
                      ab_dtype=call.ab_dtype, d_dtype=call.d_dtype, alpha=call.alpha, beta=call.beta,
                      activation=call.activation, epilogue=call.epilogue, bias_dtype=call.bias_dtype)
        if call.c_source != "none":
            fields["ldc"] = call.ldc
        # No step here: a char* copied out of a descriptor would outlive the bytes it points to. descriptor() sets it.
        raw = bytes(_library.GemmDesc(**fields))  # the fields not named are zero
        if call.step is not None:  # before the template: a thread that sees the template finds the step too
            object.__setattr__(call, "_step_bytes", call.step.encode("utf-8"))
        object.__setattr__(call, "_desc_template", raw)  # not a dataclass field: equality and hashing ignore it
    return raw


def descriptor(call: Call, x, weight, out, bias=None, residual=None) -> _library.GemmDesc:
    """The ladder_gemm_desc for a checked call on these tensors (x must be a matrix: copied first if not). The row
    strides are the ones check_call found; ``out`` is the one it checked, or (out= not given) a new contiguous one."""
    desc = _library.GemmDesc.from_buffer_copy(_template(call))
    desc.A, desc.B, desc.D = x.data_ptr(), weight.data_ptr(), out.data_ptr()
    if call.step is not None:
        desc.step = call._step_bytes  # the descriptor keeps a reference: the pointer lives as long as it does
    if call.has_bias:
        desc.bias = bias.data_ptr()
    if call.c_source == "residual":
        desc.C = residual.data_ptr()
    elif call.c_source == "out":
        desc.C = out.data_ptr()
    return desc


def launch(call: Call, x, weight, out, bias=None, residual=None, stream: int = 0) -> None:
    """Runs a checked, non-empty call on ``stream`` (a cudaStream_t as an int). Uses ladder_gemm_v2 when the
    library has it; a library from before it runs plain fp16 GEMMs through ladder_gemm_ld and raises
    MissingEntryPointError for the rest. Raises LadderError for what the library rejects."""
    lib = _library.library()
    v2 = getattr(lib, "ladder_gemm_v2", None)
    if v2 is None:
        if call.plain_fp16:
            xm, wm, dm = as_matrix(x), as_matrix(weight), as_matrix(out)
            step = (call.step or "best").encode("utf-8")
            _library.check(lib.ladder_gemm_ld(ctypes.c_void_p(x.data_ptr()), xm.ld,
                                              ctypes.c_void_p(weight.data_ptr()), wm.ld,
                                              ctypes.c_void_p(out.data_ptr()), dm.ld, call.m, call.n, call.k,
                                              step, ctypes.c_void_p(stream)))
            return
        _library.require_v2(_describe(call))  # raises, naming what needed it
    desc = descriptor(call, x, weight, out, bias, residual)
    _library.check(v2(ctypes.byref(desc), ctypes.c_void_p(stream)))


def plan(call: Call, x, weight, out, bias=None, residual=None) -> str:
    """What ladder_gemm_plan says it would launch for this call (no launch)."""
    lib = _library.library()
    if not hasattr(lib, "ladder_gemm_plan"):
        raise _library.MissingEntryPointError(
            f"ladder.plan needs ladder_gemm_plan, which {lib._name} does not export (built before the "
            "descriptor API): rebuild libladder")
    desc = descriptor(call, x, weight, out, bias, residual)
    text = lib.ladder_gemm_plan(ctypes.byref(desc))
    if text is None:  # ladder_gemm_plan reports the message only, not a status
        message = lib.ladder_last_error()
        raise _library.LadderError(None, message.decode("utf-8", "replace") if message else "")
    return text.decode("utf-8", "replace")


def _describe(call: Call) -> str:
    parts = [{DType.F16: "fp16", DType.BF16: "bf16"}[call.ab_dtype]]
    if call.d_dtype == DType.F32:
        parts.append("fp32 output")
    if call.epilogue == Epilogue.SWIGLU:
        parts.append("SwiGLU")
    if call.activation != Activation.NONE:
        parts.append(call.activation.name.lower())
    if call.has_bias:
        parts.append("bias")
    if call.c_source != "none":
        parts.append("beta·C")
    if call.alpha != 1.0:
        parts.append("alpha")
    return "a GEMM with " + ", ".join(parts)
