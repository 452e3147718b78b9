"""ladder's GEMMs as torch operators: ``torch.ops.ladder.*``, registered when ``ladder`` is imported with torch.

    ladder::gemm(Tensor a, Tensor b, str? step=None) -> Tensor
    ladder::gemm_out(Tensor a, Tensor b, Tensor(a2!) out, str? step=None) -> ()
    ladder::linear(Tensor x, Tensor weight, Tensor? bias=None, str activation="none", Tensor? residual=None,
                   float alpha=1., float beta=1., ScalarType? out_dtype=None, str? step=None) -> Tensor
    ladder::linear_out(Tensor x, Tensor weight, Tensor(a2!) out, Tensor? bias=None, str activation="none",
                       Tensor? residual=None, float alpha=1., float beta=1., bool accumulate=False,
                       str? step=None) -> ()
    ladder::swiglu(Tensor x, Tensor weight, Tensor? bias=None, Tensor? residual=None, float alpha=1.,
                   float beta=1., ScalarType? out_dtype=None, str? step=None) -> Tensor

Each op checks its arguments (_launch.check_call: TypeError / ValueError) in both its real and its fake
implementation, so a wrong call fails the same way eagerly and while torch.compile traces. On CUDA tensors
the op runs libladder on torch's current stream of the tensors' device (read inside the op, so a compiled
region or a CUDA graph capture sees an opaque call on the right stream); on CPU tensors it runs the fp32
torch reference (ladder.reference), for tests and for models that move between devices. Outputs are new
contiguous tensors. gemm, linear and swiglu have autograd formulas (the backward runs in torch).
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from . import _launch, reference

__all__ = ["gemm", "linear", "swiglu", "plan"]


# torch's current stream and device, as torch.cuda.current_stream(i).cuda_stream and current_device() give them,
# through the bindings inductor's generated code uses (a few µs less a call) where this torch has them.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (lambda i: torch.cuda.current_stream(i).cuda_stream)
_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def _on_cuda(call: _launch.Call, x: Tensor, weight: Tensor, out: Tensor, bias, residual) -> None:
    if call.empty:
        return
    if not call.x_is_matrix:
        x = x.contiguous()  # documented: leading dimensions that do not flatten into rows are copied
    device = x.device
    stream = _raw_stream(device.index)
    if _current_device() == device.index:
        _launch.launch(call, x, weight, out, bias, residual, stream)
    else:
        with torch.cuda.device(device):  # the library launches on the current device
            _launch.launch(call, x, weight, out, bias, residual, stream)


def _new_out(call: _launch.Call, x: Tensor) -> Tensor:
    return torch.empty(call.out_shape, dtype=getattr(torch, call.out_dtype), device=x.device)


_PLAIN = (torch.Tensor, torch.nn.Parameter)  # a Parameter dispatches as a plain tensor


_OP, _DIRECT, _AUTOGRAD = 0, 1, 2


def _path(*tensors) -> int:
    """How the Python functions and ladder.nn run an op on these tensors:

    _DIRECT    the op's CUDA implementation itself: what torch.ops.ladder.* would do, without the dispatcher and
               custom_op's wrappers around it (measured on the H200, 2026-12-01: 68 µs of host time a call through
               torch.ops.ladder.linear, of which the launch is 23 µs; F.linear 19 µs;
               docs/results/dev/2026-12-01-s7-host/host-65352db.csv);
               plain CUDA tensors, nothing for autograd to record;
    _AUTOGRAD  the same implementation inside an autograd.Function with the op's own formulas (_LinearFunction ...):
               plain CUDA tensors of which one requires grad, in grad mode and not in inference mode (custom_op's
               autograd wrapper cost 11-38 µs a call more than an autograd.Function on a CPU machine, 2026-12-01, the same implementation
               in both: scripts/autograd_cost.py, docs/results/dev/2026-12-01-s11-host/; not yet timed on the H200);
    _OP        torch.ops.ladder.*, wherever something must see the op: torch.compile tracing, a dispatch or
               function mode, functorch, torch.jit.trace, a tensor subclass, a tensor not on a GPU.
    """
    if (torch.compiler.is_compiling() or torch._C._get_tracing_state() or torch._C._len_torch_dispatch_stack() or
            torch._C._is_torch_function_mode_enabled() or torch._C._are_functorch_transforms_active()):
        return _OP  # (torch.jit.trace records only what goes through the dispatcher)
    # Inference mode records nothing even under enable_grad (and its tensors cannot be saved for backward).
    grad, record = torch.is_grad_enabled() and not torch.is_inference_mode_enabled(), False
    for t in tensors:
        if t is not None:
            if type(t) not in _PLAIN or not _is_cuda(t):
                return _OP
            record = record or (grad and t.requires_grad)
    return _AUTOGRAD if record else _DIRECT


def _is_cuda(t) -> bool:  # (a function of its own: the CPU tests route CPU tensors as if they were on a GPU)
    return t.is_cuda


def _direct(*tensors) -> bool:
    """True where _path chooses the op's CUDA implementation with nothing for autograd to record."""
    return _path(*tensors) == _DIRECT


# ---- ladder::gemm ---------------------------------------------------------------------------------------------

def _gemm_call(a, b, out=None, step=None) -> _launch.Call:
    return _launch.check_call(torch, a, b, out=out, step=step, strict_2d=True, names=("a", "b"))


def _gemm_cuda(a: Tensor, b: Tensor, step: Optional[str] = None) -> Tensor:
    call = _gemm_call(a, b, step=step)
    out = _new_out(call, a)
    _on_cuda(call, a, b, out, None, None)
    return out


def _gemm_cpu(a, b, step=None):
    call = _gemm_call(a, b, step=step)
    return reference.linear(a, b, round_to=getattr(torch, call.out_dtype))


@torch.library.custom_op("ladder::gemm", mutates_args=(), device_types="cpu")
def _gemm(a: Tensor, b: Tensor, step: Optional[str] = None) -> Tensor:
    return _gemm_cpu(a, b, step)


@_gemm.register_fake
def _gemm_fake(a, b, step=None):
    return a.new_empty(_gemm_call(a, b, step=step).out_shape)


def _gemm_out_cuda(a: Tensor, b: Tensor, out: Tensor, step: Optional[str] = None) -> None:
    call = _gemm_call(a, b, out=out, step=step)
    _on_cuda(call, a, b, out, None, None)


def _gemm_out_cpu(a, b, out, step=None):
    _gemm_call(a, b, out=out, step=step)
    out.copy_(reference.linear(a, b))


@torch.library.custom_op("ladder::gemm_out", mutates_args=("out",), device_types="cpu")
def _gemm_out(a: Tensor, b: Tensor, out: Tensor, step: Optional[str] = None) -> None:
    _gemm_out_cpu(a, b, out, step)


@_gemm_out.register_fake
def _gemm_out_fake(a, b, out, step=None):
    _gemm_call(a, b, out=out, step=step)


# ---- ladder::linear -------------------------------------------------------------------------------------------

def _linear_cuda(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: str = "none",
                 residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0,
                 out_dtype: Optional[torch.dtype] = None, step: Optional[str] = None) -> Tensor:
    call = _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step)
    out = _new_out(call, x)
    _on_cuda(call, x, weight, out, bias, residual)
    return out


def _linear_cpu(x, weight, bias=None, activation="none", residual=None, alpha=1.0, beta=1.0, out_dtype=None,
                step=None):
    call = _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step)
    return reference.linear(x, weight, bias, activation, residual, alpha, beta,
                            round_to=getattr(torch, call.out_dtype))


@torch.library.custom_op("ladder::linear", mutates_args=(), device_types="cpu")
def _linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: str = "none",
            residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0,
            out_dtype: Optional[torch.dtype] = None, step: Optional[str] = None) -> Tensor:
    return _linear_cpu(x, weight, bias, activation, residual, alpha, beta, out_dtype, step)


@_linear.register_fake
def _linear_fake(x, weight, bias=None, activation="none", residual=None, alpha=1.0, beta=1.0, out_dtype=None,
                 step=None):
    call = _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step)
    return x.new_empty(call.out_shape, dtype=getattr(torch, call.out_dtype))


def _linear_out_cuda(x: Tensor, weight: Tensor, out: Tensor, bias: Optional[Tensor] = None, activation: str = "none",
                     residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0,
                     accumulate: bool = False, step: Optional[str] = None) -> None:
    call = _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, None, step, out=out,
                              accumulate=accumulate)
    _on_cuda(call, x, weight, out, bias, residual)


def _linear_out_cpu(x, weight, out, bias=None, activation="none", residual=None, alpha=1.0, beta=1.0,
                    accumulate=False, step=None):
    _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, None, step, out=out,
                       accumulate=accumulate)
    out.copy_(reference.linear(x, weight, bias, activation, out if accumulate else residual, alpha, beta))


@torch.library.custom_op("ladder::linear_out", mutates_args=("out",), device_types="cpu")
def _linear_out(x: Tensor, weight: Tensor, out: Tensor, bias: Optional[Tensor] = None, activation: str = "none",
                residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0, accumulate: bool = False,
                step: Optional[str] = None) -> None:
    _linear_out_cpu(x, weight, out, bias, activation, residual, alpha, beta, accumulate, step)


@_linear_out.register_fake
def _linear_out_fake(x, weight, out, bias=None, activation="none", residual=None, alpha=1.0, beta=1.0,
                     accumulate=False, step=None):
    _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, None, step, out=out,
                       accumulate=accumulate)


# ---- ladder::swiglu -------------------------------------------------------------------------------------------

def _swiglu_call(x, weight, bias, residual, alpha, beta, out_dtype, step) -> _launch.Call:
    return _launch.check_call(torch, x, weight, bias, "none", residual, alpha, beta, out_dtype, step, swiglu=True)


def _swiglu_cuda(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, residual: Optional[Tensor] = None,
                 alpha: float = 1.0, beta: float = 1.0, out_dtype: Optional[torch.dtype] = None,
                 step: Optional[str] = None) -> Tensor:
    call = _swiglu_call(x, weight, bias, residual, alpha, beta, out_dtype, step)
    out = _new_out(call, x)
    _on_cuda(call, x, weight, out, bias, residual)
    return out


def _swiglu_cpu(x, weight, bias=None, residual=None, alpha=1.0, beta=1.0, out_dtype=None, step=None):
    call = _swiglu_call(x, weight, bias, residual, alpha, beta, out_dtype, step)
    return reference.swiglu(x, weight, bias, residual, alpha, beta, round_to=getattr(torch, call.out_dtype))


@torch.library.custom_op("ladder::swiglu", mutates_args=(), device_types="cpu")
def _swiglu(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, residual: Optional[Tensor] = None,
            alpha: float = 1.0, beta: float = 1.0, out_dtype: Optional[torch.dtype] = None,
            step: Optional[str] = None) -> Tensor:
    return _swiglu_cpu(x, weight, bias, residual, alpha, beta, out_dtype, step)


@_swiglu.register_fake
def _swiglu_fake(x, weight, bias=None, residual=None, alpha=1.0, beta=1.0, out_dtype=None, step=None):
    call = _swiglu_call(x, weight, bias, residual, alpha, beta, out_dtype, step)
    return x.new_empty(call.out_shape, dtype=getattr(torch, call.out_dtype))


# ---- the CUDA kernels: registered with the dispatcher directly -------------------------------------------------
# custom_op defines each op (schema, fake, autograd, the CPU kernel). Its own CUDA registration would wrap ours in
# Python of its own on every call (its backend_impl, an aliasing check and a dynamo guard), so the CUDA kernels are
# registered here with only the guard: 0.9-1.0 µs a call less on a CPU machine (scripts/registration_cost.py). On
# the H200 the gain is not established: the host's speed moved more between runs than that (2026-12-01: the
# compiled patched model at 0.65x torch compiled without it, 0.78x and 0.66x in two runs with it;
# docs/results/dev/2026-12-01-s11-device/). Under torch.compile and in torch.ops calls the dispatcher runs them.
# Each kernel keeps custom_op's dynamo guard (`torch._disable_dynamo`, ~0.5-0.8 µs a call): without it, a call from a
# frame dynamo skips, or after a compile error falls back to eager, had dynamo trace the kernel's own Python
# (ctypes and raw pointers) in a CPU analogue (a helper's review).
_CUDA_KERNELS = torch.library.Library("ladder", "IMPL")  # kept alive with the module: deleting it unregisters
for _name, _kernel in (("gemm", _gemm_cuda), ("gemm_out", _gemm_out_cuda), ("linear", _linear_cuda),
                       ("linear_out", _linear_out_cuda), ("swiglu", _swiglu_cuda)):
    _CUDA_KERNELS.impl(_name, torch._disable_dynamo(_kernel), "CUDA")
del _name, _kernel


# ---- autograd: the backward in torch, from the saved inputs (the pre-activation is recomputed) ---------------

def _setup_linear(ctx, inputs, output, swiglu: bool) -> None:
    if swiglu:
        x, weight, bias, residual, alpha, beta, _, _ = inputs
        activation = "none"
    else:
        x, weight, bias, activation, residual, alpha, beta, _, _ = inputs
    ctx.swiglu, ctx.activation, ctx.alpha, ctx.beta = swiglu, activation, alpha, beta
    ctx.has_bias, ctx.residual_dtype = bias is not None, None if residual is None else residual.dtype
    ctx.save_for_backward(x, weight, bias)


def _backward_linear(ctx, grad: Tensor):
    x, weight, bias = ctx.saved_tensors
    g = grad.float()
    if ctx.swiglu or reference.ACTIVATIONS[ctx.activation] != reference.Activation.NONE:
        pre = reference.preactivation(x, weight, bias, ctx.alpha, compute_dtype=x.dtype).float()
        if ctx.swiglu:
            gate, up = pre.chunk(2, dim=-1)
            silu = torch.nn.functional.silu(gate)
            g = torch.cat([g * up * reference.activation_grad(gate, "silu"), g * silu], dim=-1)
        else:
            g = g * reference.activation_grad(pre, ctx.activation)
    n, k = weight.shape
    g_rows = g.reshape(-1, n)
    grad_x = grad_w = grad_bias = grad_residual = None
    if ctx.needs_input_grad[0]:
        grad_x = (torch.matmul(g_rows.to(x.dtype), weight) * ctx.alpha).reshape(x.shape)
    if ctx.needs_input_grad[1]:
        grad_w = torch.matmul(g_rows.to(x.dtype).T, x.reshape(-1, k)) * ctx.alpha
    if ctx.has_bias and ctx.needs_input_grad[2]:
        grad_bias = g_rows.sum(0).to(bias.dtype)
    residual_index = 3 if ctx.swiglu else 4
    if ctx.residual_dtype is not None and ctx.needs_input_grad[residual_index]:
        grad_residual = (grad.float() * ctx.beta).to(ctx.residual_dtype)
    if ctx.swiglu:
        return grad_x, grad_w, grad_bias, grad_residual, None, None, None, None
    return grad_x, grad_w, grad_bias, None, grad_residual, None, None, None, None


def _setup_gemm(ctx, inputs, output):
    a, b, _ = inputs
    ctx.save_for_backward(a, b)


def _backward_gemm(ctx, grad):
    a, b = ctx.saved_tensors
    grad = grad.to(a.dtype)
    return (grad @ b if ctx.needs_input_grad[0] else None, grad.T @ a if ctx.needs_input_grad[1] else None, None)


_gemm.register_autograd(_backward_gemm, setup_context=_setup_gemm)
_linear.register_autograd(_backward_linear,
                          setup_context=lambda ctx, inputs, output: _setup_linear(ctx, inputs, output, False))
_swiglu.register_autograd(_backward_linear,
                          setup_context=lambda ctx, inputs, output: _setup_linear(ctx, inputs, output, True))


def _recorded(name: str, impl_name: str, setup, backward):
    """An autograd.Function for the _AUTOGRAD path: the op's CUDA implementation (looked up by name at each call, so
    tests may swap it) with the op's own setup and backward, without the dispatcher."""
    def forward(ctx, *inputs):
        out = globals()[impl_name](*inputs)
        setup(ctx, inputs, out)
        return out

    return type(name, (torch.autograd.Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                                    "__doc__": f"ladder::{impl_name[1:-5]} on the _AUTOGRAD path."})


_LinearFunction = _recorded("_LinearFunction", "_linear_cuda",
                            lambda ctx, i, o: _setup_linear(ctx, i, o, False), _backward_linear)
_SwigluFunction = _recorded("_SwigluFunction", "_swiglu_cuda",
                            lambda ctx, i, o: _setup_linear(ctx, i, o, True), _backward_linear)
_GemmFunction = _recorded("_GemmFunction", "_gemm_cuda", _setup_gemm, _backward_gemm)


def _entry(direct, function, op_name, tensors):
    """What runs an op on these tensors: its CUDA implementation, its autograd.Function, or torch.ops (see _path)."""
    path = _path(*tensors)
    return direct if path == _DIRECT else function.apply if path == _AUTOGRAD else getattr(torch.ops.ladder, op_name)


def _linear_entry(*tensors):  # (x, weight, bias, residual)
    return _entry(_linear_cuda, _LinearFunction, "linear", tensors)


def _swiglu_entry(*tensors):
    return _entry(_swiglu_cuda, _SwigluFunction, "swiglu", tensors)


def _gemm_entry(*tensors):
    return _entry(_gemm_cuda, _GemmFunction, "gemm", tensors)


# ---- The Python functions (keyword options, out=) -------------------------------------------------------------

def _tensor(t, name):
    _launch._check_tensor(torch, t, name)


def _options(activation="none", out_dtype=None, step=None) -> None:
    """The non-tensor arguments' types, checked before either path runs (the op's schema would reject these with
    its own RuntimeError; the direct path must not accept what the op rejects)."""
    if not isinstance(activation, str):
        raise TypeError(f"activation must be a string such as 'gelu', not {type(activation).__name__}")
    if out_dtype is not None and not isinstance(out_dtype, torch.dtype):
        raise TypeError(f"out_dtype must be a torch.dtype (e.g. torch.float32), not {out_dtype!r}")
    _launch.check_step(step)


def gemm(a: Tensor, b: Tensor, out: Optional[Tensor] = None, step: Optional[str] = None) -> Tensor:
    """a @ b.T for 2-D a [M, K] and b [N, K] (torch.ops.ladder.gemm, or ladder::gemm_out into ``out``)."""
    _tensor(a, "a")
    _tensor(b, "b")
    _options(step=step)
    if out is None:
        return _gemm_entry(a, b)(a, b, step)
    _tensor(out, "out")
    if _direct(a, b, out):
        _gemm_out_cuda(a, b, out, step)
        torch.autograd.graph.increment_version(out)  # as the op's mutates_args does: autograd sees out changed
    else:
        torch.ops.ladder.gemm_out(a, b, out, step)
    return out


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, *, activation: str = "none",
           residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0,
           out_dtype: Optional[torch.dtype] = None, out: Optional[Tensor] = None, accumulate: bool = False,
           step: Optional[str] = None) -> Tensor:
    """act(alpha · x @ weight.T + bias) + beta · residual, in one GEMM with the epilogue fused.

    x [..., K] (fp16 or bf16), weight [N, K] (same dtype), bias [N] (fp16, bf16 or fp32), activation 'none',
    'relu', 'gelu' (erf), 'gelu_tanh' or 'silu'; residual: the output's shape and dtype. The output is x's
    dtype, or ``out_dtype=torch.float32``. ``out=``: write into this tensor; with ``accumulate=True`` add
    beta · out (D += ...). Leading dimensions of a contiguous x are flattened without a copy.
    """
    _tensor(x, "x")
    _tensor(weight, "weight")
    _options(activation, out_dtype, step)
    if out is None:
        if accumulate:
            raise ValueError("accumulate adds beta·out to the product: it needs out=")
        op = _linear_entry(x, weight, bias, residual)
        return op(x, weight, bias, activation, residual, float(alpha), float(beta), out_dtype, step)
    _tensor(out, "out")
    if out_dtype is not None and out_dtype != out.dtype:
        raise TypeError(f"out_dtype ({out_dtype}) and out ({out.dtype}) disagree")
    if _direct(x, weight, out, bias, residual):
        _linear_out_cuda(x, weight, out, bias, activation, residual, float(alpha), float(beta), bool(accumulate), step)
        torch.autograd.graph.increment_version(out)  # as the op's mutates_args does: autograd sees out changed
    else:
        torch.ops.ladder.linear_out(x, weight, out, bias, activation, residual, float(alpha), float(beta),
                                    bool(accumulate), step)
    return out


def swiglu(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, *, residual: Optional[Tensor] = None,
           alpha: float = 1.0, beta: float = 1.0, out_dtype: Optional[torch.dtype] = None,
           step: Optional[str] = None) -> Tensor:
    """silu(gate) · up (+ beta · residual) from one GEMM over the concatenated weight [gate; up] (2·I rows).

    x [..., K], weight [2·I, K] (rows 0..I-1 gate, I..2I-1 up), bias [2·I]; the output is [..., I].
    """
    _tensor(x, "x")
    _tensor(weight, "weight")
    _options(out_dtype=out_dtype, step=step)
    op = _swiglu_entry(x, weight, bias, residual)
    return op(x, weight, bias, residual, float(alpha), float(beta), out_dtype, step)


def plan(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, *, activation: str = "none",
         residual: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 1.0,
         out_dtype: Optional[torch.dtype] = None, swiglu: bool = False, step: Optional[str] = None) -> str:
    """What ladder would launch for ``linear(...)`` (or ``swiglu(...)`` with swiglu=True), in words; no launch."""
    call = _launch.check_call(torch, x, weight, bias, activation, residual, alpha, beta, out_dtype, step,
                              swiglu=swiglu)
    if not call.x_is_matrix:
        x = x.contiguous()
    out = _new_out(call, x)  # plan checks D's alignment and row stride like a launch; it never writes
    return _launch.plan(call, x, weight, out, bias, residual)
