"""What the torch ops hand to the C ABI, checked everywhere (no torch, no GPU): ladder._launch with stand-ins.

The stand-in tensors have only what _launch reads (shape, stride(), dtype, device, data_ptr()); the library is
replaced by a recorder of ladder_gemm_ld / ladder_gemm_v2 calls. test_ops.py runs the same checks through the
real torch operators, and test_gpu_ops.py on a GPU.
"""
import ctypes
import math
import sys
import types

import pytest

from ladder import _launch, _library
from ladder._library import Activation, DType, Epilogue, MissingEntryPointError


class Device:
    def __init__(self, spec):
        self.type, _, index = spec.partition(":")
        self.index = int(index) if index else None

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class Tensor:
    def __init__(self, shape, strides=None, dtype="float16", device="cuda:0", ptr=0x10000):
        self.shape = tuple(shape)
        self._strides = tuple(strides) if strides else tuple(
            int(math.prod(self.shape[i + 1:])) for i in range(len(self.shape)))
        self.dtype, self.device, self._ptr = dtype, Device(device), ptr

    def dim(self):
        return len(self.shape)

    def stride(self, i=None):
        return self._strides if i is None else self._strides[i]

    def data_ptr(self):
        return self._ptr


TORCH = types.SimpleNamespace(Tensor=Tensor)  # check_call only needs torch.Tensor for isinstance


def check(*args, **kw):
    return _launch.check_call(TORCH, *args, **kw)


# ---- as_matrix: which layouts flatten into rows without a copy ----------------------------------------------

@pytest.mark.parametrize("shape, strides, expected", [
    ((2, 3, 64), None, (6, 64, 64)),                 # contiguous: [B, T, K] -> [B·T, K]
    ((2, 3, 32), (192, 64, 1), (6, 32, 64)),         # x[..., :32] of [2, 3, 64]: rows 64 apart
    ((2, 1, 64), (320, 64, 1), (2, 64, 320)),        # x[:, -1:, :] of [2, 5, 64]: the last token of each batch
    ((64,), None, (1, 64, 64)),                      # a single vector
    ((0, 64), None, (0, 64, 64)),                    # no rows
    ((1, 64), (7, 1), (1, 64, 64)),                  # one row: its stride is never used
    ((128, 1), (1, 1), (128, 1, 1)),                 # one column
])
def test_layouts_that_are_one_matrix(shape, strides, expected):
    m = _launch.as_matrix(Tensor(shape, strides))
    assert (m.rows, m.cols, m.ld) == expected


@pytest.mark.parametrize("shape, strides", [
    ((2, 3, 64), (320, 128, 1)),   # x[:, ::2, :]: the rows are not evenly spaced
    ((64, 32), (1, 64)),           # transposed: the last dimension is not contiguous
    ((4, 64), (32, 1)),            # overlapping rows
    ((3, 2, 64), (64, 192, 1)),    # a permutation of the leading dimensions
])
def test_layouts_that_are_not(shape, strides):
    assert _launch.as_matrix(Tensor(shape, strides)) is None


# ---- check_call: every rule, before anything is launched ----------------------------------------------------

X, W = Tensor((4, 8, 64)), Tensor((96, 64))


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(x=Tensor((4, 64), dtype="float32")), TypeError, "x must be torch.float16 or torch.bfloat16, not torch.float32"),
    (dict(x=Tensor((4, 64), dtype="bfloat16")), TypeError, r"same dtype \(x is torch.bfloat16, weight torch.float16\)"),
    (dict(weight=Tensor((96, 64), device="cuda:1")), ValueError, "same device"),
    (dict(weight=Tensor((2, 96, 64))), ValueError, r"weight must be 2-D \[N, K\], not 3-D"),
    (dict(weight=Tensor((96, 32))), ValueError, "their K differ"),
    (dict(x=Tensor((4, 0)), weight=Tensor((96, 0))), ValueError, "must be positive"),
    (dict(weight=Tensor((96, 64), strides=(1, 96))), ValueError, "weight must have a contiguous last dimension"),
    (dict(x=[[1.0]]), TypeError, "x must be a torch.Tensor, not list"),
    (dict(bias=Tensor((95,))), ValueError, r"bias must be 1-D with N = 96 values \(one per row of weight\)"),
    (dict(bias=Tensor((1, 96))), ValueError, "bias must be 1-D"),
    (dict(bias=Tensor((96,), dtype="int64")), TypeError, "bias must be torch.float16, torch.bfloat16 or torch.float32"),
    (dict(bias=Tensor((96,), strides=(2,))), ValueError, r"bias must be contiguous \(stride 1\)"),
    (dict(bias=Tensor((96,), device="cpu")), ValueError, r"bias must be on x's device \(cuda:0\), not cpu"),
    (dict(activation="tanh"), ValueError, "activation must be one of 'none', 'relu', 'gelu'"),
    (dict(activation=None), ValueError, "activation must be one of"),
    (dict(residual=Tensor((4, 8, 48))), ValueError, r"residual must have the output's shape \(4, 8, 96\)"),
    (dict(residual=Tensor((96,))), ValueError, "no broadcasting"),
    (dict(residual=Tensor((4, 8, 96), dtype="float32")), TypeError, r"residual must have the output's dtype \(torch.float16\)"),
    (dict(residual=Tensor((4, 8, 96), strides=(96, 384, 1))), ValueError, "residual has overlapping, column-major or non-uniform rows"),
    (dict(residual=Tensor((4, 8, 96), strides=(768, 1, 8))), ValueError, "residual must have a contiguous last dimension"),
    (dict(residual=Tensor((4, 8, 96), device="cuda:1")), ValueError, "residual must be on x's device"),
    (dict(out_dtype="float16", x=Tensor((4, 64), dtype="bfloat16"), weight=Tensor((96, 64), dtype="bfloat16")),
     TypeError, r"out_dtype must be x's dtype \(torch.bfloat16\) or torch.float32, not torch.float16"),
    (dict(beta=0.5), ValueError, "beta scales the residual"),
    (dict(step=3), TypeError, "step must be a string"),
])
def test_wrong_calls_are_rejected(kwargs, error, text):
    args = dict(x=X, weight=W)
    args.update(kwargs)
    x, weight = args.pop("x"), args.pop("weight")
    with pytest.raises(error, match=text):
        check(x, weight, **args)


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(weight=Tensor((97, 64))), ValueError, r"SwiGLU needs an even N: weight holds \[gate; up\] as 2·I rows, and has N=97"),
    (dict(activation="silu"), ValueError, "swiglu applies silu"),
    (dict(bias=Tensor((48,))), ValueError, r"N = 96 values \(one per row of the \[gate; up\] weight, 2·I\)"),
    (dict(residual=Tensor((4, 8, 96))), ValueError, r"output's shape \(4, 8, 48\)"),
])
def test_wrong_swiglu_calls_are_rejected(kwargs, error, text):
    args = dict(x=X, weight=W)
    args.update(kwargs)
    with pytest.raises(error, match=text):
        check(args.pop("x"), args.pop("weight"), swiglu=True, **args)


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(out=Tensor((4, 8, 95))), ValueError, r"out must have shape \(4, 8, 96\)"),
    (dict(out=Tensor((4, 8, 96), dtype="bfloat16")), TypeError, "out must be x's dtype"),
    (dict(out=Tensor((4, 8, 96), strides=(8, 1, 32))), ValueError, "out must have a contiguous last dimension"),
    (dict(out=Tensor((4, 8, 96), device="cuda:1")), ValueError, "out must be on x's device"),
    (dict(out=Tensor((4, 8, 96)), out_dtype="float32"), TypeError, "disagree"),
    (dict(accumulate=True), ValueError, "it needs out="),
    (dict(out=Tensor((4, 8, 96)), accumulate=True, residual=Tensor((4, 8, 96))), ValueError, "not both"),
])
def test_wrong_outputs_are_rejected(kwargs, error, text):
    with pytest.raises(error, match=text):
        check(X, W, **kwargs)


@pytest.mark.parametrize("a, b, text", [
    (Tensor((2, 128, 64)), Tensor((128, 64)), "a must be 2-D, not 3-D"),
    (Tensor((128, 64), strides=(1, 128)), Tensor((128, 64)), "a must have a contiguous last dimension"),
    (Tensor((128, 64), strides=(32, 1)), Tensor((128, 64)), "a has overlapping"),
    (Tensor((0, 64)), Tensor((128, 64)), "must be positive"),
    (Tensor((128, 64)), Tensor((128, 32)), r"a is \[M, K\] = \(128, 64\) and b is \[N, K\] = \(128, 32\): their K differ"),
])
def test_gemm_keeps_its_strict_2d_rules(a, b, text):
    with pytest.raises(ValueError, match=text):
        check(a, b, strict_2d=True, names=("a", "b"))


def test_a_layout_that_needs_a_copy_is_flagged_not_rejected():
    assert check(Tensor((2, 3, 64), strides=(320, 128, 1)), W).x_is_matrix is False
    assert check(Tensor((2, 3, 32), strides=(192, 64, 1)), Tensor((96, 32))).x_is_matrix is True
    assert check(Tensor((2, 1, 64), strides=(320, 64, 1)), W).x_is_matrix is True


def test_call_sizes_and_output():
    call = check(Tensor((4, 8, 64), dtype="bfloat16"), Tensor((96, 64), dtype="bfloat16"), out_dtype="float32",
                 swiglu=True)
    assert (call.m, call.n, call.k, call.out_shape, call.out_dtype) == (32, 96, 64, (4, 8, 48), "float32")
    assert (call.ab_dtype, call.d_dtype, call.epilogue) == (DType.BF16, DType.F32, Epilogue.SWIGLU)
    assert check(Tensor((0, 64)), W).empty and not check(X, W).empty
    assert check(X, W).plain_fp16
    assert not check(X, W, alpha=2.0).plain_fp16 and not check(X, W, activation="relu").plain_fp16
    assert check(X, W, activation="gelu").activation == Activation.GELU_ERF
    assert check(X, W, activation="gelu_tanh").activation == Activation.GELU_TANH
    assert check(X, W, beta=0.5, residual=Tensor((4, 8, 96))).beta == 0.5
    assert check(X, W).beta == 0.0  # nothing is added: C is not read


# ---- the descriptor and the entry point ---------------------------------------------------------------------

class FakeLib:
    """Records calls at the ctypes boundary; `v2=False` is a library built before ladder_gemm_v2."""

    _name = "/fake/libladder.so"

    def __init__(self, v2=True, code=0, plan=b"h10 cooperative 128x256"):
        self.calls, self.code, self.plan_text = [], code, plan
        if v2:
            self.ladder_gemm_v2 = self._v2
            self.ladder_gemm_plan = self._plan

    def ladder_gemm_ld(self, *args):
        self.calls.append(("ladder_gemm_ld", tuple(a.value if isinstance(a, ctypes.c_void_p) else a for a in args)))
        return self.code

    def _v2(self, desc_ref, stream):
        desc = desc_ref._obj
        self.calls.append(("ladder_gemm_v2", {name: getattr(desc, name) for name, _ in desc._fields_}, stream.value))
        return self.code

    def _plan(self, desc_ref):
        return self.plan_text

    def ladder_last_error(self):
        return b"h01 does not accept this problem: M must be exactly 128"


@pytest.fixture
def lib(monkeypatch):
    def install(**kw):
        fake = FakeLib(**kw)
        monkeypatch.setattr(_library, "library", lambda: fake)
        return fake
    return install


def test_the_descriptor_carries_every_epilogue_field(lib):
    fake = lib()
    x = Tensor((4, 8, 64), dtype="bfloat16", ptr=0x1000)
    w = Tensor((96, 64), dtype="bfloat16", ptr=0x2000)
    bias = Tensor((96,), dtype="float32", ptr=0x3000)
    res = Tensor((4, 8, 96), dtype="float32", ptr=0x4000)
    out = Tensor((4, 8, 96), dtype="float32", ptr=0x5000)
    call = check(x, w, bias, "gelu_tanh", res, 0.5, 2.0, "float32", "h10")
    _launch.launch(call, x, w, out, bias, res, stream=0xABC)
    (name, d, stream), = fake.calls
    assert name == "ladder_gemm_v2" and stream == 0xABC
    assert d["struct_size"] == ctypes.sizeof(_library.GemmDesc) == 160
    assert (d["M"], d["N"], d["K"], d["lda"], d["ldb"], d["ldd"]) == (32, 96, 64, 64, 64, 96)
    assert (d["A"], d["B"], d["D"], d["C"], d["bias"]) == (0x1000, 0x2000, 0x5000, 0x4000, 0x3000)
    assert (d["ab_dtype"], d["d_dtype"], d["bias_dtype"]) == (DType.BF16, DType.F32, DType.F32)
    assert (d["alpha"], d["beta"], d["ldc"]) == (0.5, 2.0, 96)
    assert (d["activation"], d["epilogue"], d["flags"]) == (Activation.GELU_TANH, Epilogue.DEFAULT, 0)
    assert d["step"] == b"h10" and not d["a_scale"] and not d["b_scale"]


def test_swiglu_and_strided_rows_in_the_descriptor(lib):
    fake = lib()
    x = Tensor((2, 1, 64), strides=(320, 64, 1), ptr=0x1000)       # the last token of [2, 5, 64]
    w = Tensor((96, 64), ptr=0x2000)
    out = Tensor((2, 1, 48), ptr=0x3000)
    call = check(x, w, swiglu=True)
    _launch.launch(call, x, w, out)
    d = fake.calls[0][1]
    assert (d["M"], d["N"], d["K"], d["lda"], d["ldd"]) == (2, 96, 64, 320, 48)
    assert (d["epilogue"], d["activation"], d["beta"], d["C"], d["bias"]) == (Epilogue.SWIGLU, 0, 0.0, None, None)
    assert d["step"] is None and d["alpha"] == 1.0


def test_a_kept_call_reuses_its_descriptor_template_with_each_calls_pointers(lib):
    """descriptor() copies the Call's zero-pointer template and sets the pointers (and the step) of this call: a
    second launch of the same Call on other tensors carries their addresses, and the step string stays alive."""
    import gc
    fake = lib()
    call = check(Tensor((4, 64)), W, Tensor((96,)), "relu", Tensor((4, 96)), 0.5, 2.0, step="h10")
    for base in (0x10000, 0x20000):
        x, b, r, out = (Tensor((4, 64), ptr=base), Tensor((96,), ptr=base + 0x100), Tensor((4, 96), ptr=base + 0x200),
                        Tensor((4, 96), ptr=base + 0x300))
        _launch.launch(call, x, W, out, b, r)
        gc.collect()
        d = fake.calls[-1][1]
        assert (d["A"], d["D"], d["bias"], d["C"]) == (base, base + 0x300, base + 0x100, base + 0x200)
        assert d["step"] == b"h10" and (d["alpha"], d["beta"], d["ldc"], d["M"]) == (0.5, 2.0, 96, 4)
    assert isinstance(call._desc_template, bytes) and len(call._desc_template) == ctypes.sizeof(_library.GemmDesc)
    same = check(Tensor((4, 64)), W, Tensor((96,)), "relu", Tensor((4, 96)), 0.5, 2.0, step="h10")
    assert same == call and hash(same) == hash(call)  # the template is not part of the Call's value


def test_accumulate_reads_c_from_d(lib):
    fake = lib()
    out = Tensor((32, 96), strides=(128, 1), ptr=0x7000)   # rows of a wider buffer
    call = check(Tensor((32, 64)), W, beta=1.0, out=out, accumulate=True)
    _launch.launch(call, Tensor((32, 64)), W, out)
    d = fake.calls[0][1]
    assert (d["C"], d["ldc"], d["D"], d["ldd"], d["beta"]) == (0x7000, 128, 0x7000, 128, 1.0)


def test_a_library_without_v2_runs_plain_fp16_through_ladder_gemm_ld(lib):
    fake = lib(v2=False)
    x, w, out = Tensor((32, 64), ptr=0x1000), Tensor((96, 64), ptr=0x2000), Tensor((32, 96), ptr=0x3000)
    _launch.launch(check(x, w, step="h03"), x, w, out, stream=7)
    assert fake.calls == [("ladder_gemm_ld", (0x1000, 64, 0x2000, 64, 0x3000, 96, 32, 96, 64, b"h03", 7))]
    with pytest.raises(MissingEntryPointError, match="a GEMM with bf16, bias needs ladder_gemm_v2, which "
                                                     "/fake/libladder.so does not export"):
        bx, bw = Tensor((32, 64), dtype="bfloat16"), Tensor((96, 64), dtype="bfloat16")
        _launch.launch(check(bx, bw, Tensor((96,))), bx, bw, out, Tensor((96,)))
    assert len(fake.calls) == 1


def test_library_errors_become_ladder_errors(lib):
    lib(code=2)
    with pytest.raises(_library.LadderError, match="M must be exactly 128") as info:
        _launch.launch(check(X, W), X, W, Tensor((4, 8, 96)))
    assert info.value.code is _library.Status.UNSUPPORTED_SHAPE


def test_plan_returns_the_library_text_or_its_error(lib):
    lib()
    assert _launch.plan(check(X, W), X, W, Tensor((4, 8, 96))) == "h10 cooperative 128x256"
    lib(plan=None)
    with pytest.raises(_library.LadderError, match="M must be exactly 128") as info:
        _launch.plan(check(X, W), X, W, Tensor((4, 8, 96)))
    assert info.value.code is None and str(info.value) == info.value.message
    lib(v2=False)
    with pytest.raises(MissingEntryPointError, match="ladder.plan needs ladder_gemm_plan"):
        _launch.plan(check(X, W), X, W, Tensor((4, 8, 96)))


def test_without_torch_the_torch_api_says_what_it_needs(repo):
    import subprocess
    code = ("import sys; sys.modules['torch'] = None; import ladder\n"
            "for f in ('gemm', 'linear', 'swiglu', 'patch'):\n"
            "    try:\n"
            "        getattr(ladder, f)(None, None) if f == 'gemm' else getattr(ladder, f)\n"
            "    except ImportError as e:\n"
            "        print(f, e)\n")
    env = {"PYTHONPATH": str(repo / "python"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["gemm", "linear", "swiglu", "patch"]
    assert all("needs PyTorch" in line for line in lines), lines
