"""The torch operators without a GPU: registration, schemas, fake and meta implementations, the CPU kernel
(the fp32 reference), autograd, opcheck and torch.compile(fullgraph=True). Skips, saying why, without torch.

What needs a GPU (libladder itself, streams, CUDA graphs, inductor on CUDA) is in test_gpu_ops.py.
"""
import dataclasses
import re

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (CI has none; these run where it is)")
import torch.nn.functional as F  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

import ladder  # noqa: E402
from ladder import ops, reference  # noqa: E402

SCHEMAS = {
    "gemm": "ladder::gemm(Tensor a, Tensor b, str? step=None) -> Tensor",
    "gemm_out": "ladder::gemm_out(Tensor a, Tensor b, Tensor(a2!) out, str? step=None) -> ()",
    "linear": ('ladder::linear(Tensor x, Tensor weight, Tensor? bias=None, str activation="none", '
               "Tensor? residual=None, float alpha=1., float beta=1., ScalarType? out_dtype=None, "
               "str? step=None) -> Tensor"),
    "linear_out": ('ladder::linear_out(Tensor x, Tensor weight, Tensor(a2!) out, Tensor? bias=None, '
                   'str activation="none", Tensor? residual=None, float alpha=1., float beta=1., '
                   "bool accumulate=False, str? step=None) -> ()"),
    "swiglu": ("ladder::swiglu(Tensor x, Tensor weight, Tensor? bias=None, Tensor? residual=None, "
               "float alpha=1., float beta=1., ScalarType? out_dtype=None, str? step=None) -> Tensor"),
}
DTYPES = [torch.float16, torch.bfloat16]


def test_ops_are_registered_with_the_documented_schemas():
    for name, schema in SCHEMAS.items():
        assert str(getattr(torch.ops.ladder, name).default._schema) == schema
    # ops.py's docstring lists the same signatures (whitespace aside)
    doc = " ".join(ops.__doc__.split())
    for schema in SCHEMAS.values():
        assert " ".join(schema.split()) in doc.replace("( ", "(")


def rand(*shape, dtype=torch.bfloat16, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return (torch.rand(shape, generator=g) * 2 - 1).to(dtype=dtype, device=device)


def rel_err(got, ref):
    return (torch.linalg.norm(got.float() - ref.float()) / torch.linalg.norm(ref.float())).item()


# ---- fake and meta: shapes, dtypes and strides without data --------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_fake_outputs_have_the_real_shapes_dtypes_and_strides(dtype):
    with FakeTensorMode():
        x = torch.empty(4, 7, 64, dtype=dtype, device="cuda")
        w = torch.empty(96, 64, dtype=dtype, device="cuda")
        y = ladder.linear(x, w, torch.empty(96, device="cuda"), activation="gelu")
        assert (y.shape, y.dtype, y.stride(), y.device.type) == ((4, 7, 96), dtype, (672, 96, 1), "cuda")
        y = ladder.linear(x, w, out_dtype=torch.float32)
        assert (y.dtype, y.stride()) == (torch.float32, (672, 96, 1))
        h = ladder.swiglu(x, w, residual=torch.empty(4, 7, 48, dtype=dtype, device="cuda"))
        assert (h.shape, h.stride(), h.dtype) == ((4, 7, 48), (336, 48, 1), dtype)
        strided = torch.empty(4, 13, 64, dtype=dtype, device="cuda")[:, ::2]   # copied by the real op
        assert ladder.linear(strided, w).stride() == (672, 96, 1)
        d = ladder.gemm(x[0], w)
        assert (d.shape, d.stride()) == ((7, 96), (96, 1))
        assert ladder.linear(torch.empty(0, 64, dtype=dtype, device="cuda"), w).shape == (0, 96)


def test_fake_implementations_reject_what_the_real_ones_reject():
    with FakeTensorMode():
        x = torch.empty(4, 64, dtype=torch.float16, device="cuda")
        with pytest.raises(ValueError, match="SwiGLU needs an even N"):
            ladder.swiglu(x, torch.empty(95, 64, dtype=torch.float16, device="cuda"))
        with pytest.raises(TypeError, match="same dtype"):
            ladder.linear(x, torch.empty(96, 64, dtype=torch.bfloat16, device="cuda"))
        with pytest.raises(ValueError, match="bias must be 1-D with N = 96"):
            ladder.linear(x, torch.empty(96, 64, dtype=torch.float16, device="cuda"),
                          torch.empty(48, device="cuda"))


def test_meta_tensors():
    x = torch.empty(2, 3, 64, dtype=torch.bfloat16, device="meta")
    w = torch.empty(128, 64, dtype=torch.bfloat16, device="meta")
    assert ladder.swiglu(x, w).shape == (2, 3, 64)
    assert ladder.linear(x, w, residual=torch.empty(2, 3, 128, dtype=torch.bfloat16, device="meta")).device.type == "meta"
    out = torch.empty(2, 3, 128, dtype=torch.float32, device="meta")
    assert ladder.linear(x, w, out=out, accumulate=True) is out


# ---- the CPU kernel: the fp32 reference, rounded once ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation, torch_act", [
    ("none", lambda t: t), ("relu", torch.relu), ("gelu", F.gelu), ("gelu_erf", F.gelu),
    ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")), ("silu", F.silu)])
def test_linear_epilogues_on_cpu(dtype, activation, torch_act):
    x, w = rand(3, 5, 64, dtype=dtype), rand(48, 64, dtype=dtype, seed=1)
    bias, residual = rand(48, dtype=torch.float32, seed=2), rand(3, 5, 48, dtype=dtype, seed=3)
    expected = torch_act(0.5 * (x.float() @ w.float().T) + bias) - 2.0 * residual.float()
    got = ladder.linear(x, w, bias, activation=activation, residual=residual, alpha=0.5, beta=-2.0)
    assert got.dtype == dtype and got.shape == (3, 5, 48)
    assert torch.equal(got, expected.to(dtype))  # the same fp32 math, rounded once
    wide = ladder.linear(x, w, bias, activation=activation, out_dtype=torch.float32)
    assert wide.dtype == torch.float32 and rel_err(wide, torch_act(x.float() @ w.float().T + bias)) < 1e-6


@pytest.mark.parametrize("dtype", DTYPES)
def test_swiglu_and_gemm_on_cpu(dtype):
    x, w = rand(7, 64, dtype=dtype), rand(96, 64, dtype=dtype, seed=1)
    bias = rand(96, dtype=dtype, seed=2)
    pre = x.float() @ w.float().T + bias.float()
    gate, up = pre[:, :48], pre[:, 48:]
    assert torch.equal(ladder.swiglu(x, w, bias), (F.silu(gate) * up).to(dtype))
    residual = rand(7, 48, dtype=dtype, seed=3)
    assert torch.equal(ladder.swiglu(x, w, bias, residual=residual), (F.silu(gate) * up + residual.float()).to(dtype))
    assert torch.equal(ladder.gemm(x, w), (x.float() @ w.float().T).to(dtype))
    out = torch.full((7, 96), float("nan"), dtype=torch.float32)
    assert ladder.gemm(x, w, out=out) is out and torch.equal(out, x.float() @ w.float().T)


def test_accumulate_into_out_on_cpu():
    x, w = rand(8, 32), rand(16, 32, seed=1)
    out = rand(8, 16, dtype=torch.float32, seed=2)
    before = out.clone()
    ladder.linear(x, w, out=out, accumulate=True, beta=0.25)
    assert torch.equal(out, x.float() @ w.float().T + 0.25 * before)


def test_errors_keep_their_python_types_through_the_dispatcher():
    x, w = rand(4, 64), rand(96, 64)
    with pytest.raises(ValueError, match="SwiGLU needs an even N"):
        ladder.swiglu(x, w[:95])
    with pytest.raises(TypeError, match="bias must be torch.float16, torch.bfloat16 or torch.float32"):
        ladder.linear(x, w, torch.zeros(96, dtype=torch.int32))
    with pytest.raises(ValueError, match="residual must have the output's shape"):
        ladder.linear(x, w, residual=torch.zeros(4, 95, dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="residual must have a contiguous last dimension"):
        ladder.linear(x, w, residual=torch.zeros(96, 4, dtype=torch.bfloat16).T)
    with pytest.raises(ValueError, match="residual has overlapping, column-major or non-uniform rows"):
        ladder.linear(rand(2, 2, 64), w, residual=torch.zeros(2, 3, 96, dtype=torch.bfloat16)[:, ::2])
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        ladder.linear([1.0], w)
    with pytest.raises(ValueError, match="same device"):
        ladder.linear(x, w.to("meta"))


# ---- opcheck: schema, fake vs real, autograd registration, AOT dispatch -----------------------------------------

def opcheck_cases():
    x, w = rand(3, 4, 32), rand(24, 32, seed=1)
    b, r = rand(24, dtype=torch.float32, seed=2), rand(3, 4, 24, seed=3)
    return [
        (torch.ops.ladder.gemm.default, (x[0], w), {}),
        (torch.ops.ladder.gemm_out.default, (x[0], w, torch.empty(4, 24, dtype=torch.float32)), {}),
        (torch.ops.ladder.linear.default, (x, w, b, "gelu_tanh", r, 0.5, 2.0, None, None), {}),
        (torch.ops.ladder.linear.default, (x, w), {"out_dtype": torch.float32}),
        (torch.ops.ladder.linear.default, (x[:, ::2], w, None, "silu"), {}),   # a copy for the strided rows
        (torch.ops.ladder.linear_out.default, (x, w, r.clone(), b, "relu", None, 1.0, 0.5, True, None), {}),
        (torch.ops.ladder.swiglu.default, (x, w, b.to(torch.bfloat16), r[..., :12], 1.0, 1.0, None, None), {}),
    ]


@pytest.mark.parametrize("case", range(len(opcheck_cases())))
def test_opcheck(case):
    op, args, kwargs = opcheck_cases()[case]
    torch.library.opcheck(op, args, kwargs)


def test_opcheck_with_gradients():
    x, w = rand(3, 32).requires_grad_(), rand(24, 32, seed=1).requires_grad_()
    b = rand(24, dtype=torch.float32, seed=2).requires_grad_()
    torch.library.opcheck(torch.ops.ladder.linear.default, (x, w, b, "gelu"))
    torch.library.opcheck(torch.ops.ladder.swiglu.default, (x, w, b))


# ---- autograd ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("activation", ["none", "relu", "gelu", "gelu_tanh", "silu", "swiglu"])
def test_gradients_match_torch_autograd(activation):
    x0, w0 = rand(2, 5, 32, dtype=torch.float32), rand(24, 32, dtype=torch.float32, seed=1)
    b0, r0 = rand(24, dtype=torch.float32, seed=2), rand(2, 5, 12 if activation == "swiglu" else 24,
                                                         dtype=torch.float32, seed=3)
    grad_out = rand(*r0.shape, dtype=torch.float32, seed=4)

    def grads(fn, dtype):
        x, w = x0.to(dtype).requires_grad_(), w0.to(dtype).requires_grad_()
        b, r = b0.clone().requires_grad_(), r0.to(dtype).requires_grad_()
        (fn(x, w, b, r).float() * grad_out).sum().backward()
        return [t.grad.float() for t in (x, w, b, r)]

    if activation == "swiglu":
        got = grads(lambda x, w, b, r: ladder.swiglu(x, w, b, residual=r, alpha=0.5, beta=3.0), torch.bfloat16)
        ref = grads(lambda x, w, b, r: reference.swiglu(x, w, b, r, 0.5, 3.0), torch.float32)
    else:
        got = grads(lambda x, w, b, r: ladder.linear(x, w, b, activation=activation, residual=r, alpha=0.5,
                                                     beta=3.0), torch.bfloat16)
        ref = grads(lambda x, w, b, r: reference.linear(x, w, b, activation, r, 0.5, 3.0), torch.float32)
    for name, g, e in zip(("x", "weight", "bias", "residual"), got, ref):
        assert rel_err(g, e) < 2e-2, name  # bf16 operands and gradients against fp32


def test_gemm_gradients():
    a, b = rand(6, 16, dtype=torch.float32).requires_grad_(), rand(8, 16, dtype=torch.float32).requires_grad_()
    ah, bh = a.detach().half().requires_grad_(), b.detach().half().requires_grad_()
    ladder.gemm(ah, bh).float().sum().backward()
    (a @ b.T).sum().backward()
    assert rel_err(ah.grad, a.grad) < 2e-3 and rel_err(bh.grad, b.grad) < 2e-3


@pytest.mark.parametrize("case", ["linear", "linear_epilogue", "swiglu", "gemm"])
@pytest.mark.parametrize("needs", ["all", "weight", "x", "bias", "residual"])
def test_the_autograd_function_path_records_what_the_op_records(monkeypatch, case, needs):
    """ops._*Function (the Python functions' path for CUDA tensors with gradients to record) against
    torch.ops.ladder.* with custom_op's autograd, here with the CPU kernel in place of the CUDA launch: the same
    output and the same gradient of every input, whichever inputs require grad."""
    monkeypatch.setattr(ops, "_linear_cuda", ops._linear_cpu)
    monkeypatch.setattr(ops, "_swiglu_cuda", ops._swiglu_cpu)
    monkeypatch.setattr(ops, "_gemm_cuda", ops._gemm_cpu)
    x, w, b = rand(2, 3, 32), rand(24, 32, seed=1), rand(24, dtype=torch.float32, seed=2)
    r = rand(2, 3, 12 if case == "swiglu" else 24, seed=3)
    if case == "gemm":
        fn, op, args = ops._GemmFunction, torch.ops.ladder.gemm, [x[0], w, None]
    elif case == "swiglu":
        fn, op, args = ops._SwigluFunction, torch.ops.ladder.swiglu, [x, w, b, r, 0.5, 2.0, None, None]
    elif case == "linear":
        fn, op, args = ops._LinearFunction, torch.ops.ladder.linear, [x, w, None, "none", None, 1.0, 1.0, None, None]
    else:
        fn, op, args = ops._LinearFunction, torch.ops.ladder.linear, [x, w, b, "gelu_tanh", r, 0.5, 2.0, None, None]
    tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    if needs in ("bias", "residual") and case in ("linear", "gemm"):
        pytest.skip(f"{case} takes no {needs}")
    grad_of = {"all": tensors, "weight": [1], "x": [0], "bias": [2],
               "residual": [3 if case == "swiglu" else 4]}[needs]
    results = []
    for impl in (fn.apply, op):
        inputs = [a.detach().clone().requires_grad_(i in grad_of) if i in tensors else a for i, a in enumerate(args)]
        out = impl(*inputs)
        grads = torch.autograd.grad((out.float() * rand(*out.shape, dtype=torch.float32, seed=9)).sum(),
                                    [inputs[i] for i in grad_of])
        results.append((out, grads))
    (out_fn, grads_fn), (out_op, grads_op) = results
    assert torch.equal(out_fn, out_op)
    for i, g_fn, g_op in zip(grad_of, grads_fn, grads_op):
        assert g_fn.dtype == g_op.dtype and torch.equal(g_fn, g_op), f"input {i}"


def test_the_functions_and_modules_choose_the_path_by_grad_mode(monkeypatch):
    """ladder.linear / swiglu / gemm and ladder.nn on tensors taken for CUDA ones (ops._is_cuda), with the CPU kernel
    as the implementation: the autograd.Function where a weight requires grad in grad mode, with the op's
    gradients for every input; the direct call under no_grad and in inference mode, enable_grad or not."""
    monkeypatch.setattr(ops, "_is_cuda", lambda t: True)
    monkeypatch.setattr(ops, "_linear_cuda", ops._linear_cpu)
    monkeypatch.setattr(ops, "_swiglu_cuda", ops._swiglu_cpu)
    monkeypatch.setattr(ops, "_gemm_cuda", ops._gemm_cpu)
    x, w = rand(2, 3, 32, dtype=torch.bfloat16), rand(24, 32, dtype=torch.bfloat16, seed=1).requires_grad_()
    b, r = rand(24, dtype=torch.float32, seed=2).requires_grad_(), rand(2, 3, 24, dtype=torch.bfloat16, seed=3)
    r.requires_grad_()
    y = ladder.linear(x, w, b, activation="gelu", residual=r, alpha=0.5, beta=2.0)
    y_op = torch.ops.ladder.linear(x, w, b, "gelu", r, 0.5, 2.0)
    assert type(y.grad_fn).__name__ == "_LinearFunctionBackward" and torch.equal(y, y_op)
    for g, g_op in zip(torch.autograd.grad(y.float().sum(), [w, b, r]), torch.autograd.grad(y_op.float().sum(), [w, b, r])):
        assert torch.equal(g, g_op)
    assert type(ladder.swiglu(x, w).grad_fn).__name__ == "_SwigluFunctionBackward"
    assert type(ladder.gemm(x[0], w).grad_fn).__name__ == "_GemmFunctionBackward"
    layer = ladder.nn.Linear(32, 24, dtype=torch.bfloat16)
    mlp = ladder.nn.SwiGLU(32, 12, dtype=torch.bfloat16)
    assert type(layer(x).grad_fn).__name__ == "_LinearFunctionBackward"
    assert type(mlp.gate_up_proj(x).grad_fn).__name__ == "_LinearFunctionBackward"
    assert type(mlp(x).grad_fn).__name__ == "_LinearFunctionBackward"  # down_proj's, over the swiglu's
    with torch.no_grad():
        assert ops._path(x, w) == ops._DIRECT and ladder.linear(x, w).grad_fn is None and layer(x).grad_fn is None
    with torch.inference_mode(), torch.enable_grad():
        assert ops._path(x, w) == ops._DIRECT
        out = ladder.linear(x, w, b)
        assert out.grad_fn is None and torch.is_inference(out)
    x.requires_grad_()
    assert ops._path(x) == ops._AUTOGRAD and ops._path(x.detach()) == ops._DIRECT


def test_the_cuda_kernels_are_registered_with_the_dispatcher_directly():
    """custom_op defines the ops and their CPU kernels; the CUDA kernels are ops.py's own functions, registered
    without custom_op's per-call wrapper (the GPU tests run them through torch.ops, torch.compile and graphs)."""
    for name in ("gemm", "gemm_out", "linear", "linear_out", "swiglu"):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"ladder::{name}", "CUDA"), name
        table = torch._C._dispatch_dump(f"ladder::{name}").splitlines()
        cuda = [line for line in table if line.startswith("CUDA:")]
        assert len(cuda) == 1 and "ladder/ops.py" in cuda[0], (name, cuda)
        assert any(line.startswith("CPU:") and "custom_ops.py" in line for line in table), name


def test_only_cuda_tensors_take_the_autograd_function_path():
    w = torch.randn(4, 8, requires_grad=True)
    assert ops._path(w) == ops._OP  # CPU: the op (its CPU kernel, custom_op's autograd)
    assert ops._linear_entry(torch.randn(2, 8), w) is torch.ops.ladder.linear
    assert ops._swiglu_entry(torch.randn(2, 8), w) is torch.ops.ladder.swiglu
    assert ops._gemm_entry(torch.randn(2, 8), w) is torch.ops.ladder.gemm


# ---- torch.compile ------------------------------------------------------------------------------------------------

def mlp_block(x, w_gate_up, w_down, bias):
    h = ladder.swiglu(x, w_gate_up)
    y = ladder.linear(h, w_down, bias, activation="gelu_tanh", residual=x)
    return ladder.gemm(y[0], w_down.T.contiguous()).sum() + y.float().mean()


@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph_has_the_ops_in_one_graph(dynamic):
    torch._dynamo.reset()
    x, wgu, wd = rand(2, 3, 32), rand(64, 32, seed=1), rand(32, 32, seed=2)
    bias = rand(32, dtype=torch.float32, seed=3)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(mlp_block, fullgraph=True, backend=backend, dynamic=dynamic)
    assert torch.equal(compiled(x, wgu, wd, bias), mlp_block(x, wgu, wd, bias))
    assert len(graphs) == 1
    targets = {str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"}
    assert {"ladder.swiglu", "ladder.linear", "ladder.gemm"} <= targets, targets
    explain = torch._dynamo.explain(mlp_block)(x, wgu, wd, bias)
    assert explain.graph_break_count == 0 and explain.graph_count == 1


def test_compile_aot_eager_and_inference_mode():
    torch._dynamo.reset()
    x, wgu, wd = rand(2, 3, 32), rand(64, 32, seed=1), rand(32, 32, seed=2)
    bias = rand(32, dtype=torch.float32, seed=3)
    with torch.inference_mode():
        compiled = torch.compile(mlp_block, fullgraph=True, backend="aot_eager")
        assert torch.equal(compiled(x, wgu, wd, bias), mlp_block(x, wgu, wd, bias))


def test_compile_reports_argument_errors_while_tracing():
    torch._dynamo.reset()
    f = torch.compile(lambda x, w: ladder.swiglu(x, w), fullgraph=True, backend="aot_eager")
    with pytest.raises(Exception, match="SwiGLU needs an even N"):
        f(rand(4, 32), rand(63, 32))


def test_plan_without_v2_says_what_is_missing():
    if ladder.has_v2():
        pytest.skip("this libladder.so has ladder_gemm_plan (test_gpu_ops.py checks its text)")
    with pytest.raises(ladder.MissingEntryPointError, match=re.escape("ladder.plan needs ladder_gemm_plan")):
        ladder.plan(rand(4, 32), rand(8, 32))


def test_the_cuda_path_reads_the_stream_inside_the_op_and_copies_only_what_it_must(monkeypatch):
    """ops._on_cuda, the CUDA kernel's body, with the CUDA calls replaced (no GPU here): test_gpu_ops.py runs it."""
    import contextlib

    from ladder import _launch
    launched, entered = [], []
    monkeypatch.setattr(_launch, "launch", lambda call, x, w, out, bias, residual, stream:
                        launched.append((x.data_ptr(), tuple(x.stride()), stream)))
    monkeypatch.setattr(ops, "_raw_stream", lambda index: 0x5EED)  # torch's current stream of that device
    monkeypatch.setattr(ops, "_current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "device", lambda d: entered.append(str(d)) or contextlib.nullcontext())
    w = rand(96, 64)
    x = rand(2, 5, 64)  # x[:, ::2] has rows 128 apart within a batch, 320 across: not one row stride
    for view in (x, x[:, -1:, :], x[:, ::2, :], x[:, :0, :]):
        call = _launch.check_call(torch, view, w)
        ops._on_cuda(call, view, w, torch.empty(call.out_shape, dtype=view.dtype), None, None)
    assert [p for p, _, _ in launched[:2]] == [x.data_ptr(), x[:, -1:, :].data_ptr()]  # flattened, not copied
    assert launched[2][1] == (192, 64, 1) and launched[2][0] != x[:, ::2].data_ptr()  # x[:, ::2]: a dense copy
    assert len(launched) == 3 and all(s == 0x5EED for _, _, s in launched)            # M = 0 launches nothing
    assert entered == ["cpu"] * 3  # the tensors' device is not the current one: switched to it for the launch


def test_direct_path_only_for_plain_cuda_tensors_with_nothing_to_record():
    """ops._direct: the Python functions skip the dispatcher only where torch.ops would do exactly the same."""
    from torch.utils._python_dispatch import TorchDispatchMode

    x = torch.randn(4, 8)
    assert not ops._direct(x)  # CPU: the op's CPU kernel (the reference)
    assert not ops._direct(torch.randn(4, 8, device="meta"))
    w = torch.randn(4, 8, requires_grad=True)
    assert not ops._direct(w)  # autograd records the op
    with torch.no_grad():
        assert not ops._direct(w)  # still CPU

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Mode():
        assert torch._C._len_torch_dispatch_stack() > 0 and not ops._direct()
    with FakeTensorMode():
        assert not ops._direct()


def test_direct_path_is_off_while_torch_jit_traces_and_options_are_typed():
    """torch.jit.trace records only dispatcher calls, so _direct says no while it traces; the functions check
    their non-tensor options the same way whichever path then runs."""
    assert ops._direct()  # nothing to record, no tensors
    seen = []

    def f(t):
        seen.append(ops._direct())
        return t * 2

    torch.jit.trace(f, torch.randn(2), check_trace=False)
    assert seen == [False]
    x, w = rand(4, 64), rand(8, 64)
    for kwargs in ({"out_dtype": "float16"}, {"activation": None}, {"step": 5}):
        with pytest.raises(TypeError):
            ladder.linear(x, w, **kwargs)
    with pytest.raises(TypeError):
        ladder.swiglu(x, w, out_dtype="float32")
    with pytest.raises(TypeError):
        ladder.gemm(x, w, step=3)


def test_check_call_keeps_passing_verdicts_by_metadata_only():
    from ladder import _launch
    _launch._CHECKED.clear()
    x, w = torch.randn(4, 3, 64, dtype=torch.float16), torch.randn(32, 64, dtype=torch.float16)
    first = _launch.check_call(torch, x, w)
    assert _launch.check_call(torch, torch.randn(4, 3, 64, dtype=torch.float16), w) is first  # other data: same call
    wide = torch.randn(4, 3, 96, dtype=torch.float16)[..., :64]  # other strides: checked again (lda 96)
    assert _launch.check_call(torch, wide, w).lda == 96 and first.lda == 64
    with pytest.raises(TypeError, match="same dtype"):  # a failing call is never kept: it fails every time
        _launch.check_call(torch, x, w.to(torch.bfloat16))
    with pytest.raises(TypeError, match="same dtype"):
        _launch.check_call(torch, x, w.to(torch.bfloat16))
    assert _launch.check_call(torch, x, w, activation="relu").activation != first.activation
    bias = torch.zeros(32, dtype=torch.float32)
    assert _launch.check_call(torch, x, w, bias).has_bias and not first.has_bias
    # a zero alpha is checked afresh each time (0.0 == -0.0, but the sign of a zero product is in D's bits)
    kept = len(_launch._CHECKED)
    assert _launch.check_call(torch, x, w, alpha=-0.0).alpha == 0.0 and len(_launch._CHECKED) == kept
    with pytest.raises(TypeError):  # a complex alpha equals 1.0 and hashes alike, but is no float: still rejected
        _launch.check_call(torch, x, w, alpha=1 + 0j)
    assert len(_launch._CHECKED) == kept
    sparse = torch.randn(4, 64).to_sparse_csr()  # no strides: the key cannot be built, the checks say what is wrong
    with pytest.raises(TypeError, match="float16 or torch.bfloat16"):
        _launch.check_call(torch, sparse, w)
    with pytest.raises(dataclasses.FrozenInstanceError):  # one Call serves many calls: it cannot change
        first.m = 7
    for i in range(_launch._CHECKED_MAX + 1):  # bounded
        _launch.check_call(torch, torch.empty(1 + i, 64, dtype=torch.float16), w)
    assert len(_launch._CHECKED) <= _launch._CHECKED_MAX
