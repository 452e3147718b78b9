"""The torch operators through libladder on a GPU: every epilogue against an fp32 torch reference, streams,
CUDA graphs, torch.compile, inference mode, ladder.nn and ladder.patch. Skips, saying why, without torch, without
a CUDA GPU, or (for everything past plain fp16) with a libladder.so that does not export ladder_gemm_v2 yet.

Run on the H200:  LADDER_LIBRARY=build/release/libladder.so python3 -m pytest -rs python/tests/test_gpu_ops.py
"""
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the GPU tests run where it is)")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA GPU", allow_module_level=True)
import torch.nn.functional as F  # noqa: E402

import ladder  # noqa: E402
import ladder.nn  # noqa: E402
from ladder import _launch, reference  # noqa: E402

if torch.cuda.get_device_capability() != (9, 0):
    pytest.skip("ladder's runnable kernels need a Hopper GPU (sm_90)", allow_module_level=True)
needs_v2 = pytest.mark.skipif(not ladder.has_v2(), reason=f"{ladder.library_path()} does not export ladder_gemm_v2 "
                                                          "yet (bf16, fp32 output and the epilogues need it)")
DTYPES = [torch.float16, torch.bfloat16]
UNIT = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -24}
ACTIVATIONS = ["none", "relu", "gelu", "gelu_tanh", "silu"]


def rand(*shape, dtype=torch.float16, seed=0, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return ((torch.rand(shape, generator=g, device="cuda") * 2 - 1) * scale).to(dtype)


def poisoned(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def assert_close_to_fp32(got, ref, k, activation="none"):
    """Normwise against the fp32 reference: one rounding of the output (2u), fp32 accumulation growth over K,
    and for the transcendental activations the error of a fast fp32 evaluation (1e-3)."""
    assert torch.isfinite(got).all(), "NaN or Inf in the output: an element was not written, or overflowed"
    tol = 2 * UNIT[got.dtype] + 2 * k * 2.0 ** -24 + (1e-3 if activation in ("gelu", "gelu_tanh", "silu") else 0)
    err = (torch.linalg.norm(got.float() - ref) / torch.linalg.norm(ref)).item()
    assert err <= tol, f"normwise relative error {err:.3e} > {tol:.3e}"


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("bias_dtype", [None, "same", torch.float32])
@pytest.mark.parametrize("with_residual", [False, True])
def test_linear_epilogues_against_fp32(dtype, activation, bias_dtype, with_residual):
    m, n, k = 300, 520, 384
    x, w = rand(m, k, dtype=dtype, seed=1), rand(n, k, dtype=dtype, seed=2, scale=0.1)
    bias = None if bias_dtype is None else rand(n, dtype=dtype if bias_dtype == "same" else bias_dtype, seed=3)
    residual = rand(m, n, dtype=dtype, seed=4) if with_residual else None
    kw = dict(activation=activation, residual=residual, alpha=0.75, beta=-1.5 if with_residual else 1.0)
    ref = reference.linear(x, w, bias, activation, residual, kw["alpha"], kw["beta"])
    out = ladder.linear(x, w, bias, out=poisoned((m, n), dtype), **kw)
    torch.cuda.synchronize()
    assert_close_to_fp32(out, ref, k, activation)
    again = ladder.linear(x, w, bias, **kw)
    assert torch.equal(again, out), "a rerun on the same input is not bit-identical"


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, inter, k", [(1, 384, 256), (37, 1000, 512), (512, 1408, 1024)])
@pytest.mark.parametrize("with_bias_and_residual", [False, True])
def test_swiglu_against_fp32(dtype, m, inter, k, with_bias_and_residual):
    x, w = rand(m, k, dtype=dtype, seed=5), rand(2 * inter, k, dtype=dtype, seed=6, scale=0.1)
    bias = rand(2 * inter, dtype=torch.float32, seed=7) if with_bias_and_residual else None
    residual = rand(m, inter, dtype=dtype, seed=8) if with_bias_and_residual else None
    got = ladder.swiglu(x, w, bias, residual=residual)
    ref = reference.swiglu(x, w, bias, residual)
    assert got.shape == (m, inter)
    torch.cuda.synchronize()
    assert_close_to_fp32(got, ref, k, "silu")
    assert torch.equal(ladder.swiglu(x, w, bias, residual=residual), got)
    gate, up = (x.float() @ w.float().T + (0 if bias is None else bias)).chunk(2, dim=-1)  # the formula, spelled out
    assert_close_to_fp32(got, F.silu(gate) * up + (0 if residual is None else residual.float()), k, "silu")


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
def test_fp32_output_and_accumulate_into_d(dtype):
    m, n, k = 256, 384, 4099  # K not a multiple of 8: 'best' pads
    x, w = rand(m, k, dtype=dtype, seed=9), rand(n, k, dtype=dtype, seed=10)
    wide = ladder.linear(x, w, out_dtype=torch.float32)
    assert wide.dtype == torch.float32
    assert_close_to_fp32(wide, reference.linear(x, w), k)
    d = rand(m, n, dtype=torch.float32, seed=11)
    expected = reference.linear(x, w, residual=d, beta=0.5)
    assert ladder.linear(x, w, out=d, accumulate=True, beta=0.5) is d
    assert_close_to_fp32(d, expected, k)
    half = rand(m, n, dtype=dtype, seed=12)
    expected = reference.linear(x, w, activation="relu", residual=half)
    ladder.linear(x, w, activation="relu", out=half, accumulate=True)
    assert_close_to_fp32(half, expected, k)


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
def test_bf16_and_fp16_gemm(dtype):
    a, b = rand(384, 256, dtype=dtype, seed=13), rand(640, 256, dtype=dtype, seed=14)
    d = ladder.gemm(a, b)
    assert d.dtype == dtype
    assert_close_to_fp32(d, a.float() @ b.float().T, 256)
    out = poisoned((384, 640), torch.float32)
    ladder.gemm(a, b, out=out)
    assert_close_to_fp32(out, a.float() @ b.float().T, 256)


def test_bad_calls_raise_before_anything_launches(monkeypatch):
    launched = []
    monkeypatch.setattr(_launch, "launch", lambda *args, **kw: launched.append(args))
    x, w = rand(64, 128, dtype=torch.bfloat16), rand(96, 128, dtype=torch.bfloat16)
    bad = [
        (TypeError, "same dtype", lambda: ladder.linear(x, w.half())),
        (ValueError, "bias must be 1-D with N = 96", lambda: ladder.linear(x, w, torch.zeros(95, device="cuda"))),
        (TypeError, "bias must be torch.float16", lambda: ladder.linear(x, w, torch.zeros(96, device="cuda",
                                                                                          dtype=torch.int64))),
        (ValueError, "SwiGLU needs an even N", lambda: ladder.swiglu(x, w[:95])),
        (ValueError, "residual must have the output's shape", lambda: ladder.linear(x, w, residual=x)),
        (ValueError, "residual must have a contiguous last dimension",
         lambda: ladder.linear(x, w, residual=torch.zeros(96, 64, device="cuda", dtype=torch.bfloat16).T)),
        (TypeError, "residual must have the output's dtype",
         lambda: ladder.linear(x, w, residual=torch.zeros(64, 96, device="cuda"))),
        (ValueError, "same device", lambda: ladder.linear(x, w.cpu())),
    ]
    for error, text, call in bad:
        with pytest.raises(error, match=text):
            call()
    assert launched == []


@needs_v2
def test_leading_dimensions_are_flattened_without_a_copy(monkeypatch):
    seen = []
    real = _launch.launch
    monkeypatch.setattr(_launch, "launch", lambda call, x, *a, **kw: (seen.append(x.data_ptr()), real(call, x, *a, **kw)))
    x = rand(4, 33, 256, dtype=torch.bfloat16, seed=15)
    w = rand(512, 256, dtype=torch.bfloat16, seed=16)
    y = ladder.linear(x, w)
    last = ladder.linear(x[:, -1:, :], w)               # the last token of each sequence: rows 33·256 apart
    strided = ladder.linear(x[:, ::2, :], w)            # not one row stride: copied
    assert seen[0] == x.data_ptr() and seen[1] == x[:, -1:, :].data_ptr() and seen[2] != x[:, ::2].data_ptr()
    ref = reference.linear(x, w)
    assert_close_to_fp32(y, ref, 256)
    assert_close_to_fp32(last, ref[:, -1:], 256)
    assert_close_to_fp32(strided, ref[:, ::2], 256)


def test_runs_on_the_current_stream():
    x_new, w = rand(512, 512, seed=17), rand(512, 512, seed=18)
    ladder.linear(x_new, w)  # warm-up (first use loads the library)
    x = torch.zeros_like(x_new)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # the side stream is busy for a while, then writes x ...
        x.copy_(x_new)
        out = ladder.linear(x, w)      # ... which a GEMM on any other stream would read too early (zeros)
    side.synchronize()
    torch.testing.assert_close(out, x_new @ w.T, rtol=4e-3, atol=4e-3)


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_graph_capture_and_replay(dtype):
    x, wgu = rand(8, 256, dtype=dtype, seed=19), rand(1024, 256, dtype=dtype, seed=20, scale=0.1)
    wd = rand(256, 512, dtype=dtype, seed=21, scale=0.1)

    def block(x):
        return ladder.linear(ladder.swiglu(x, wgu), wd, residual=x)

    block(x)  # warm-up outside the capture
    graph = torch.cuda.CUDAGraph()
    static_x = x.clone()
    with torch.cuda.graph(graph):
        static_y = block(static_x)
    for seed in (22, 23):
        static_x.copy_(rand(8, 256, dtype=dtype, seed=seed))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, block(static_x))


@needs_v2
def test_torch_compile_inductor_and_cudagraphs_match_eager():
    x, wgu = rand(2, 16, 256, dtype=torch.bfloat16, seed=24), rand(1024, 256, dtype=torch.bfloat16, seed=25)
    wd, bias = rand(256, 512, dtype=torch.bfloat16, seed=26), rand(256, dtype=torch.float32, seed=27)

    def block(x):  # only ladder ops and exact arithmetic: compiled and eager agree bit for bit
        h = ladder.swiglu(x * 2, wgu)
        return ladder.linear(h, wd, bias, activation="gelu_tanh", residual=x) * 2

    expected = block(x)
    torch._dynamo.reset()
    with torch.inference_mode():
        for mode in ("default", "reduce-overhead"):
            compiled = torch.compile(block, fullgraph=True, mode=mode)
            for _ in range(3):  # reduce-overhead records a CUDA graph on a later call
                got = compiled(x)
            torch.cuda.synchronize()
            assert torch.equal(got, expected), mode


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
def test_nn_linear_and_patch_on_the_gpu(dtype):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(approximate="tanh"),
                                torch.nn.Linear(512, 256)).to("cuda", dtype)
    x = rand(3, 7, 256, dtype=dtype, seed=28)
    with torch.inference_mode():
        expected = model(x)
        report = ladder.patch(model)
        assert [n for n, _ in report.replaced] == ["0", "2"] and report.skipped == []
        got = model(x)
    torch.testing.assert_close(got, expected, rtol=2e-2, atol=2e-2)
    fused = ladder.nn.Linear.from_linear(model[0], activation="gelu_tanh")
    with torch.inference_mode():
        assert_close_to_fp32(fused(x), reference.linear(x, model[0].weight, model[0].bias, "gelu_tanh"), 256,
                             "gelu_tanh")


@needs_v2
def test_patched_llama_on_the_gpu():
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    config = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_attention_heads=4,
                                      num_key_value_heads=2, num_hidden_layers=2, vocab_size=1000)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, 1000, (2, 64), device="cuda")
    with torch.inference_mode():
        expected = model(ids).logits.float()
        report = ladder.patch(model, fuse_swiglu=True)
        assert len(report.fused) == 2 and report.skipped == [], report
        got = model(ids).logits.float()
    err = (torch.linalg.norm(got - expected) / torch.linalg.norm(expected)).item()
    assert err < 3e-2, err  # two bf16 computations of the same model (scripts/llama_model.py measures more)


@needs_v2
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "silu", "swiglu", "residual"])
def test_best_defers_the_epilogue_on_a_large_layer(dtype, activation):
    """2048 tokens through a 4096 -> 16384 layer: best takes the cooperative 128x256 tile, whose copy for these
    activations, and for a residual without one, applies them under the next tile's mainloop (each CTA runs several
    tiles here). Against fp32 with the output poisoned, and a rerun bit-identical."""
    m, n, k = 2048, 16384, 4096
    x, w = rand(m, k, dtype=dtype, seed=11), rand(n, k, dtype=dtype, seed=12, scale=k ** -0.5)
    bias = rand(n, dtype=torch.float32, seed=13)
    swiglu = activation == "swiglu"
    residual = rand(m, n, dtype=dtype, seed=14) if activation == "residual" else None
    if residual is not None:
        activation = "none"
    kw = dict(swiglu=True) if swiglu else dict(activation=activation, residual=residual)
    assert "deferred" in ladder.plan(x, w, bias, **kw)
    if swiglu:
        got = ladder.swiglu(x, w, bias)
        again = ladder.swiglu(x, w, bias)
        ref = reference.swiglu(x, w, bias, None)
    else:
        got = ladder.linear(x, w, bias, out=poisoned((m, n), dtype), **kw)
        again = ladder.linear(x, w, bias, **kw)
        ref = reference.linear(x, w, bias, activation, residual, 1.0, 1.0)
    torch.cuda.synchronize()
    assert_close_to_fp32(got, ref, k, "silu" if swiglu else activation)
    assert torch.equal(again, got), "a rerun on the same input is not bit-identical"


@needs_v2
def test_plan_names_a_kernel():
    text = ladder.plan(rand(512, 1024), rand(2048, 1024), swiglu=True)
    assert isinstance(text, str) and text


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_the_second_gpu_runs_on_its_own_current_stream():
    x, w = rand(128, 256).to("cuda:1"), rand(256, 256).to("cuda:1")
    with torch.cuda.device(0):
        out = ladder.linear(x, w)
    assert out.device == x.device
    torch.testing.assert_close(out, x @ w.T, rtol=4e-3, atol=4e-3)


@needs_v2
def test_direct_path_matches_the_op_and_modes_still_see_the_op():
    """ladder.linear / swiglu / gemm on plain CUDA tensors run the op's implementation without the dispatcher
    (ops._direct): the same bits as torch.ops.ladder.*; a dispatch mode still sees the op."""
    from torch.utils._python_dispatch import TorchDispatchMode

    x, w, b, r = rand(64, 256, seed=1), rand(512, 256, seed=2, scale=1 / 16), rand(512, seed=3), rand(64, 512, seed=4)
    with torch.inference_mode():
        assert ladder.ops._direct(x, w, b, r)
        assert torch.equal(ladder.linear(x, w, b, activation="gelu", residual=r),
                           torch.ops.ladder.linear(x, w, b, "gelu", r))
        assert torch.equal(ladder.swiglu(x, w), torch.ops.ladder.swiglu(x, w))
        assert torch.equal(ladder.gemm(x, w), torch.ops.ladder.gemm(x, w))
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Record():
        ladder.linear(x, w, b)
    assert any("ladder.linear" in s for s in seen), seen
    d = torch.empty(64, 512, dtype=x.dtype, device="cuda")
    version = d._version
    ladder.linear(x, w, out=d)  # direct: bumps out's version as the op's mutates_args would
    assert d._version > version and torch.equal(d, ladder.linear(x, w))
    w.requires_grad_(True)
    assert not ladder.ops._direct(x, w)  # autograd must record it: the op's formulas in an autograd.Function
    assert ladder.ops._path(x, w) == ladder.ops._AUTOGRAD
    y, y_op = ladder.linear(x, w, b, activation="gelu"), torch.ops.ladder.linear(x, w, b, "gelu")
    assert type(y.grad_fn).__name__ == "_LinearFunctionBackward" and torch.equal(y, y_op)
    g = rand(64, 512, seed=5)
    assert torch.equal(torch.autograd.grad(y, w, g)[0], torch.autograd.grad(y_op, w, g)[0])
    h, h_op = ladder.swiglu(x, w), torch.ops.ladder.swiglu(x, w)
    assert type(h.grad_fn).__name__ == "_SwigluFunctionBackward" and torch.equal(h, h_op)
    g = rand(64, 256, seed=6)
    assert torch.equal(torch.autograd.grad(h, w, g)[0], torch.autograd.grad(h_op, w, g)[0])
    layer = ladder.nn.Linear(256, 512, device="cuda", dtype=torch.float16)
    assert type(layer(x).grad_fn).__name__ == "_LinearFunctionBackward"  # Parameters require grad by default
    with torch.no_grad():
        assert layer(x).grad_fn is None
