"""ladder.gemm's argument checks and what it hands to the C ABI, with a small stand-in for torch.

Runs everywhere (no torch, no GPU): the stand-in has just the tensor attributes gemm reads, and the call
into the library is recorded instead of made. test_gpu_torch.py runs the same paths with real torch on a GPU.
"""
import contextlib
import math
import sys
import types

import pytest

import ladder


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


@pytest.fixture
def torch(monkeypatch):
    """A stand-in torch module; `entered` records the devices gemm switched to."""
    fake = types.ModuleType("torch")
    fake.Tensor, fake.float16, fake.float32 = Tensor, "float16", "float32"
    fake.empty = lambda shape, dtype, device: Tensor(shape, dtype=dtype, device=str(device), ptr=0x30000)
    fake.entered = []

    @contextlib.contextmanager
    def device(d):
        fake.entered.append(str(d))
        yield

    fake.cuda = types.SimpleNamespace(
        device=device, current_stream=lambda d: types.SimpleNamespace(cuda_stream=0x5EED + (d.index or 0)))
    monkeypatch.setitem(sys.modules, "torch", fake)
    return fake


@pytest.fixture
def calls(monkeypatch):
    recorded = []
    monkeypatch.setattr(ladder, "gemm_raw", lambda *args, **kw: recorded.append((args, kw)))
    return recorded


def test_dense_operands_take_the_dense_entry_on_the_current_stream(torch, calls):
    a, b = Tensor((256, 64), ptr=0x1000, device="cuda:1"), Tensor((384, 64), ptr=0x2000, device="cuda:1")
    out = ladder.gemm(a, b, step="h03")
    assert out.shape == (256, 384) and out.dtype == "float16" and str(out.device) == "cuda:1"
    assert calls == [((0x1000, 0x2000, 0x30000, 256, 384, 64), {"step": "h03", "stream": 0x5EED + 1})]
    assert torch.entered == ["cuda:1"]  # the library launches on the current device: a's


def test_strided_rows_pass_leading_dimensions(torch, calls):
    a = Tensor((256, 64), strides=(128, 1))   # a[:, :64] of a [256, 128] tensor
    b = Tensor((128, 64), strides=(64, 1))
    out = Tensor((256, 128), strides=(256, 1), ptr=0x40000)
    assert ladder.gemm(a, b, out=out) is out
    (args, kw), = calls
    assert args == (0x10000, 0x10000, 0x40000, 256, 128, 64)
    assert kw == {"step": "best", "stream": 0x5EED, "lda": 128, "ldb": 64, "ldd": 256}


def test_a_single_row_needs_no_row_stride(torch, calls):
    ladder.gemm(Tensor((1, 64), strides=(7, 1)), Tensor((128, 64)))
    (args, kw), = calls
    assert args[3:] == (1, 128, 64) and "lda" not in kw


@pytest.mark.parametrize("a, b, error, text", [
    (Tensor((128, 64), dtype="float32"), Tensor((128, 64)), TypeError, "a must be torch.float16, not float32"),
    (Tensor((128, 64)), Tensor((128, 64), device="cpu"), ValueError, "b must be a CUDA tensor, not on cpu"),
    (Tensor((2, 128, 64)), Tensor((128, 64)), ValueError, "a must be 2-D, not 3-D"),
    (Tensor((128, 64)), Tensor((128, 32)), ValueError, "their K differ"),
    (Tensor((128, 64)), Tensor((128, 64), device="cuda:1"), ValueError, "same device"),
    (Tensor((128, 64), strides=(1, 128)), Tensor((128, 64)), ValueError, "contiguous last dimension"),
    (Tensor((128, 64), strides=(32, 1)), Tensor((128, 64)), ValueError, "overlapping"),
    (Tensor((0, 64)), Tensor((128, 64)), ValueError, "must be positive"),
    ([[1.0]], Tensor((128, 64)), TypeError, "a must be a torch.Tensor, not list"),
])
def test_wrong_arguments_raise_before_the_library(torch, calls, a, b, error, text):
    with pytest.raises(error, match=text):
        ladder.gemm(a, b)
    assert calls == []


@pytest.mark.parametrize("out, text", [
    (Tensor((128, 96)), r"out must have shape \[M, N\] = \(128, 128\), not \(128, 96\)"),
    (Tensor((128, 128), dtype="float32"), "out must be torch.float16"),
    (Tensor((128, 128), device="cuda:3"), "out must be on a's device"),
])
def test_a_wrong_out_is_rejected(torch, calls, out, text):
    with pytest.raises((TypeError, ValueError), match=text):
        ladder.gemm(Tensor((128, 64)), Tensor((128, 64)), out=out)
    assert calls == []
