"""The package over the C ABI without torch or a GPU: loading, step enumeration, status codes, messages.

Fake device pointers as in tests/test_registry.cpp: every call here is rejected by validation before any
device access, except the no-device test, which runs only where no GPU is visible.
"""
import ctypes
import os
import re
import subprocess
import sys

import pytest

import ladder
from ladder import _library
from conftest import REPO, gpu_count

FAKE = 0x10000       # 16-byte aligned, never dereferenced
FAKE_OUT = 0x20000


def test_status_codes_match_the_c_header(repo):
    header = (repo / "include" / "ladder" / "ladder.h").read_text()
    codes = {name: int(value) for name, value in re.findall(r"\bLADDER_(OK|ERROR_\w+)\s*=\s*(\d+)", header)}
    assert codes, "no status codes found in ladder.h"
    assert codes == {("OK" if s.name == "OK" else "ERROR_" + s.name): s.value for s in ladder.Status}


def test_library_is_found_in_the_documented_order(monkeypatch, tmp_path):
    monkeypatch.setenv("LADDER_LIBRARY", str(tmp_path / "custom.so"))
    paths = _library.candidate_paths()
    assert paths[0] == tmp_path / "custom.so"
    assert paths[1:] == [REPO / "python" / "ladder" / "libladder.so", REPO / "build" / "release" / "libladder.so",
                         REPO / "build" / "debug" / "libladder.so"]


def test_a_wrong_ladder_library_is_an_error_not_a_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("LADDER_LIBRARY", str(tmp_path / "missing.so"))
    with pytest.raises(ladder.LibraryNotFoundError, match="LADDER_LIBRARY=.*missing.so is not a file"):
        _library._open()


def test_no_library_anywhere_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.delenv("LADDER_LIBRARY", raising=False)
    monkeypatch.setattr(_library, "candidate_paths", lambda: [tmp_path / "libladder.so"])
    monkeypatch.setattr(_library, "LIBRARY_NAME", "libladder-does-not-exist.so")
    monkeypatch.setattr(_library.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(ladder.LibraryNotFoundError) as info:
        _library._open()
    assert "set LADDER_LIBRARY" in str(info.value)
    assert str(tmp_path / "libladder.so") in str(info.value)


def test_import_needs_neither_torch_nor_the_library():
    code = ("import sys; sys.modules['torch'] = None; import ladder; "
            "assert ladder._library._lib is None; print(ladder.steps()[0])")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "h01"


def test_steps_enumerate_the_registry_through_the_c_abi():
    lib = ladder.library()
    ids = ladder.steps()
    assert len(ids) == lib.ladder_step_count() > 0
    assert ids[0] == "h01"
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[hb]\d\d|best", s) for s in ids), ids
    assert "best" in ids  # the library default is a registered step too
    assert lib.ladder_step_id(-1) is None
    assert lib.ladder_step_id(len(ids)) is None


def c_gemm(a, b, d, m, n, k, step=b"h01"):
    vp = ctypes.c_void_p
    return ladder.library().ladder_gemm(vp(a), vp(b), vp(d), m, n, k, step, None)


def last_error():
    return ladder.library().ladder_last_error().decode()


@pytest.mark.parametrize("args, step, code, text", [
    ((0, FAKE, FAKE_OUT, 128, 128, 64), b"h01", ladder.Status.INVALID_ARGUMENT, "non-null"),
    ((FAKE, FAKE, FAKE_OUT, 0, 128, 64), b"h01", ladder.Status.INVALID_ARGUMENT, "positive"),
    ((FAKE, FAKE, FAKE_OUT, 128, -1, 64), None, ladder.Status.INVALID_ARGUMENT, "positive"),
    ((FAKE, FAKE, FAKE_OUT, 1 << 40, 128, 1 << 40), b"h03", ladder.Status.INVALID_ARGUMENT, "overflow"),
    ((FAKE, FAKE, FAKE_OUT, 128, 128, 64), b"h99", ladder.Status.UNKNOWN_STEP, "unknown step 'h99'"),
    ((0x10008, FAKE, FAKE_OUT, 128, 128, 64), b"h01", ladder.Status.MISALIGNED, "16-byte aligned"),
    ((FAKE, FAKE, FAKE_OUT, 256, 128, 64), b"h01", ladder.Status.UNSUPPORTED_SHAPE, "h01 does not accept"),
])
def test_c_abi_rejects_bad_arguments_with_code_and_message(args, step, code, text):
    assert c_gemm(*args, step=step) == code
    assert text in last_error()


def test_leading_dimensions_are_checked():
    vp = ctypes.c_void_p
    lib = ladder.library()
    assert lib.ladder_gemm_ld(vp(FAKE), 32, vp(FAKE), 64, vp(FAKE_OUT), 128, 128, 128, 64, b"h01", None) == \
        ladder.Status.INVALID_ARGUMENT
    assert "lda must be >= K" in last_error()
    assert lib.ladder_gemm_ld(vp(FAKE), 0, vp(FAKE), 64, vp(FAKE_OUT), 128, 128, 128, 64, b"h01", None) == \
        ladder.Status.INVALID_ARGUMENT


def test_gemm_raw_raises_ladder_error_with_code_and_message():
    with pytest.raises(ladder.LadderError) as info:
        ladder.gemm_raw(FAKE, FAKE, FAKE_OUT, 128, 128, 64, step="h99")
    assert info.value.code is ladder.Status.UNKNOWN_STEP
    assert "unknown step 'h99'" in info.value.message
    assert str(info.value).endswith("[LADDER_ERROR_UNKNOWN_STEP]")
    # Strided rows go through ladder_gemm_ld: h03 wants dense rows, and says so.
    with pytest.raises(ladder.LadderError, match="dense rows") as info:
        ladder.gemm_raw(FAKE, FAKE, FAKE_OUT, 256, 256, 64, lda=128, step="h03")
    assert info.value.code is ladder.Status.UNSUPPORTED_SHAPE
    with pytest.raises(TypeError, match="step must be a string"):
        ladder.gemm_raw(FAKE, FAKE, FAKE_OUT, 128, 128, 64, step=3)


def test_check_maps_status_to_exceptions():
    assert ladder.check(ladder.Status.OK) is None
    with pytest.raises(ladder.LadderError):
        ladder.check(ladder.Status.INTERNAL)


@pytest.mark.skipif(gpu_count() > 0, reason="a GPU is visible: the no-device path runs on machines without one")
def test_no_device_is_an_error_not_a_crash():
    with pytest.raises(ladder.LadderError) as info:
        ladder.gemm_raw(FAKE, FAKE, FAKE_OUT, 128, 128, 64, step="h01")
    assert info.value.code is ladder.Status.NO_DEVICE
    assert "GPU" in info.value.message


def test_gemm_v2_on_a_descriptor():
    desc = ladder.gemm_desc(M=128, N=128, K=64, A=FAKE, B=FAKE, D=FAKE_OUT)
    if not ladder.has_v2():
        with pytest.raises(ladder.MissingEntryPointError, match="ladder.gemm_v2 needs ladder_gemm_v2"):
            ladder.gemm_v2(desc)
        pytest.skip(f"{ladder.library_path()} does not export ladder_gemm_v2 yet (its argument checks run once it does)")
    # Rejected by the argument checks, before any device access (fake pointers, as above).
    for fields, code in ((dict(M=0), ladder.Status.INVALID_ARGUMENT), (dict(step=b"h99"), ladder.Status.UNKNOWN_STEP),
                         (dict(A=0), ladder.Status.INVALID_ARGUMENT)):
        bad = ladder.gemm_desc(**{**dict(M=128, N=128, K=64, A=FAKE, B=FAKE, D=FAKE_OUT), **fields})
        with pytest.raises(ladder.LadderError) as info:
            ladder.gemm_v2(bad)
        assert info.value.code is code, (fields, info.value)
    odd = ladder.gemm_desc(M=128, N=127, K=64, A=FAKE, B=FAKE, D=FAKE_OUT, epilogue=ladder.Epilogue.SWIGLU)
    with pytest.raises(ladder.LadderError):  # SwiGLU needs an even N: the C rules agree with ladder._launch's
        ladder.gemm_v2(odd)
