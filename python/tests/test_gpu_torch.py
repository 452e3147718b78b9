"""ladder.gemm against torch.matmul on a real GPU. Skips (saying why) without torch or a CUDA GPU.

Run on the H200:  LADDER_LIBRARY=build/release/libladder.so python3 -m pytest -rs python/tests
"""
import pytest

import ladder

torch = pytest.importorskip("torch", reason="torch is not installed (the GPU tests run where it is)")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA GPU", allow_module_level=True)

HOPPER = torch.cuda.get_device_capability() == (9, 0)
needs_hopper = pytest.mark.skipif(not HOPPER, reason="the runnable steps (h..) need a Hopper GPU (sm_90)")


def operands(m, n, k, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.rand((m, k), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1).half()
    b = torch.rand((n, k), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1).half()
    return a, b


def assert_matches_matmul(d, a, b):
    # Both accumulate in fp32 and round once to fp16: they differ by an fp16 rounding or two at most.
    torch.testing.assert_close(d, torch.matmul(a, b.T), rtol=4e-3, atol=4e-3)


@needs_hopper
@pytest.mark.parametrize("m, n, k", [(128, 128, 64), (256, 384, 192), (1024, 768, 512)])
def test_best_matches_torch_matmul(m, n, k):
    a, b = operands(m, n, k)
    d = ladder.gemm(a, b)
    torch.cuda.synchronize()
    assert d.shape == (m, n) and d.dtype == torch.float16 and d.device == a.device
    assert_matches_matmul(d, a, b)


# The first of these that a step accepts is the one it is tested on (h01 takes only 128×128×64).
CANDIDATE_SHAPES = [(768, 512, 320), (1024, 1024, 1024), (128, 128, 256), (128, 128, 64)]


@needs_hopper
@pytest.mark.parametrize("step", [s for s in ladder.steps() if s.startswith("h")])
def test_every_hopper_step_matches_torch_matmul(step):
    for m, n, k in CANDIDATE_SHAPES:
        a, b = operands(m, n, k, seed=1)
        try:
            d = ladder.gemm(a, b, step=step)
        except ladder.LadderError as e:
            assert e.code is ladder.Status.UNSUPPORTED_SHAPE, e
            continue
        torch.cuda.synchronize()
        assert_matches_matmul(d, a, b)
        return
    pytest.fail(f"{step} accepted none of {CANDIDATE_SHAPES}")


@needs_hopper
def test_runs_on_the_current_stream_and_writes_out():
    a, b = operands(256, 256, 128, seed=2)
    out = torch.full((256, 256), float("nan"), dtype=torch.float16, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        assert ladder.gemm(a, b, out=out) is out
        expected = torch.matmul(a, b.T)  # queued behind ladder's kernel on the same stream
    side.synchronize()
    torch.testing.assert_close(out, expected, rtol=4e-3, atol=4e-3)


@needs_hopper
def test_strided_rows_reach_the_leading_dimension_entry():
    wide_a, wide_b = operands(256, 256, 192, seed=3)
    a, b = wide_a[:, :128], wide_b[:, :128]  # rows 192 elements apart: lda = ldb = 192
    assert a.stride() == (192, 1) and b.stride() == (192, 1)
    wide_out = torch.full((256, 320), float("nan"), dtype=torch.float16, device="cuda")
    out = wide_out[:, :256]  # ldd = 320
    # best takes any leading dimensions: a correct result, and the padding between rows of out untouched
    assert ladder.gemm(a, b, out=out) is out
    torch.cuda.synchronize()
    assert_matches_matmul(out, a, b)
    assert torch.isnan(wide_out[:, 256:]).all()
    # h03's copies address dense rows: it refuses strided ones, naming the rule
    with pytest.raises(ladder.LadderError) as info:
        ladder.gemm(a, b, step="h03")
    assert info.value.code is ladder.Status.UNSUPPORTED_SHAPE and "dense rows" in info.value.message, info.value


def test_argument_errors_with_real_tensors():
    a, b = operands(128, 128, 64)
    with pytest.raises(TypeError, match="torch.float16"):
        ladder.gemm(a.float(), b)
    with pytest.raises(ValueError, match="same device"):
        ladder.gemm(a, b.cpu())
    with pytest.raises(ValueError, match="contiguous last dimension"):
        ladder.gemm(a, b.T.contiguous().T)
    with pytest.raises(ValueError, match="2-D"):
        ladder.gemm(a[None], b)
    with pytest.raises(ValueError, match="their K differ"):
        ladder.gemm(a, b[:, :32])
    with pytest.raises(ladder.LadderError) as info:
        ladder.gemm(a, b, step="h99")
    assert info.value.code is ladder.Status.UNKNOWN_STEP


@needs_hopper
def test_library_errors_with_real_tensors():
    a, b = operands(256, 128, 64)
    with pytest.raises(ladder.LadderError, match="h01 does not accept") as info:
        ladder.gemm(a, b, step="h01")
    assert info.value.code is ladder.Status.UNSUPPORTED_SHAPE
    flat = torch.zeros(128 * 64 + 8, dtype=torch.float16, device="cuda")
    misaligned = flat[1:1 + 128 * 64].view(128, 64)  # 2 bytes past a 16-byte boundary
    with pytest.raises(ladder.LadderError, match="16-byte aligned") as info:
        ladder.gemm(misaligned, b[:128], step="h10")
    assert info.value.code is ladder.Status.MISALIGNED
    # best takes any fp16-aligned pointer (it copies such rows into an aligned workspace first)
    misaligned.copy_(torch.randn(128, 64, device="cuda").half())
    d = ladder.gemm(misaligned, b[:128])
    ref = misaligned.float() @ b[:128].float().T
    assert torch.linalg.norm(d.float() - ref) / torch.linalg.norm(ref) < 2e-3


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_operands_on_two_devices_are_rejected():
    a, _ = operands(128, 128, 64)
    b = torch.zeros((128, 64), dtype=torch.float16, device="cuda:1")
    with pytest.raises(ValueError, match="same device"):
        ladder.gemm(a, b)
