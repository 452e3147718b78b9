"""Finding and loading libladder.so, and the C ABI's signatures and types (include/ladder/ladder.h)."""
from __future__ import annotations

import ctypes
import ctypes.util
import enum
import os
import threading
from pathlib import Path
from typing import List, Optional

LIBRARY_NAME = "libladder.so"
_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_DIR = _PACKAGE_DIR.parent.parent  # python/ladder -> python -> repository root


class Status(enum.IntEnum):
    """The C ABI's ``enum ladder_status``; the values must match include/ladder/ladder.h."""

    OK = 0
    INVALID_ARGUMENT = 1
    UNSUPPORTED_SHAPE = 2
    MISALIGNED = 3
    UNKNOWN_STEP = 4
    UNSUPPORTED_DEVICE = 5
    NO_DEVICE = 6
    CUDA = 7
    INTERNAL = 8


class DType(enum.IntEnum):
    """``enum ladder_dtype``."""

    F16 = 0
    BF16 = 1
    F32 = 2


class Activation(enum.IntEnum):
    """``enum ladder_activation``: applied after alpha and the bias."""

    NONE = 0
    RELU = 1
    GELU_TANH = 2
    GELU_ERF = 3
    SILU = 4


class Epilogue(enum.IntEnum):
    """``enum ladder_epilogue_kind``."""

    DEFAULT = 0  # D = act(alpha·acc + bias) + beta·C
    SWIGLU = 1   # D = silu(gate) · up, from the two halves of B's rows


class GemmDesc(ctypes.Structure):
    """``struct ladder_gemm_desc``, field for field (same order and C types; tests/desc_layout.cpp prints the
    C layout and python/tests/test_desc_layout.py compares the two). Build one with :func:`gemm_desc`."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("M", ctypes.c_int64),
        ("N", ctypes.c_int64),
        ("K", ctypes.c_int64),
        ("A", ctypes.c_void_p),
        ("lda", ctypes.c_int64),
        ("B", ctypes.c_void_p),
        ("ldb", ctypes.c_int64),
        ("D", ctypes.c_void_p),
        ("ldd", ctypes.c_int64),
        ("ab_dtype", ctypes.c_int32),
        ("d_dtype", ctypes.c_int32),
        ("alpha", ctypes.c_float),
        ("beta", ctypes.c_float),
        ("C", ctypes.c_void_p),
        ("ldc", ctypes.c_int64),
        ("bias", ctypes.c_void_p),
        ("bias_dtype", ctypes.c_int32),
        ("activation", ctypes.c_int32),
        ("epilogue", ctypes.c_int32),
        ("flags", ctypes.c_int32),
        ("a_scale", ctypes.POINTER(ctypes.c_float)),
        ("b_scale", ctypes.POINTER(ctypes.c_float)),
        ("step", ctypes.c_char_p),
    ]


# LP64 (every platform CUDA runs on): 160 bytes. A field added to ladder.h without this mirror changes the
# C size and fails tests/desc_layout's comparison; this catches an edit of the mirror itself at import.
assert ctypes.sizeof(GemmDesc) == 160, ctypes.sizeof(GemmDesc)


def gemm_desc(**fields) -> GemmDesc:
    """A descriptor as ``ladder_gemm_desc_init`` makes it (zeroed, struct_size set, fp16, alpha = 1), then
    ``fields`` set by name (``step`` may be a str)."""
    desc = GemmDesc()
    desc.struct_size = ctypes.sizeof(GemmDesc)
    desc.ab_dtype = desc.d_dtype = desc.bias_dtype = DType.F16
    desc.alpha = 1.0
    for name, value in fields.items():
        if name == "step" and isinstance(value, str):
            value = value.encode("utf-8")
        if not hasattr(desc, name):
            raise AttributeError(f"struct ladder_gemm_desc has no field {name!r}")
        setattr(desc, name, value)
    return desc


class LadderError(RuntimeError):
    """An error reported by libladder: ``code`` is a :class:`Status`, ``message`` the library's text."""

    def __init__(self, code: Optional[int], message: str):
        if code is not None:  # None: a call that reports a message only (ladder_gemm_plan's NULL)
            try:
                code = Status(code)
            except ValueError:  # a newer library with a code this package does not know yet
                pass
        self.code = code
        self.message = message
        name = code.name if isinstance(code, Status) else str(code)
        super().__init__(f"{message} [LADDER_ERROR_{name}]" if code is not None and name != "OK" else message)


class LibraryNotFoundError(OSError):
    """libladder.so was not found in any of the places :func:`candidate_paths` lists."""


def candidate_paths() -> List[Path]:
    """Where the library is looked for, in order (the system loader comes after these)."""
    paths = []
    env = os.environ.get("LADDER_LIBRARY")
    if env:
        paths.append(Path(env))
    paths.append(_PACKAGE_DIR / LIBRARY_NAME)
    for preset in ("release", "debug"):
        paths.append(_REPO_DIR / "build" / preset / LIBRARY_NAME)
    return paths


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    c_int64, c_void_p, c_char_p = ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
    lib.ladder_gemm.argtypes = [c_void_p, c_void_p, c_void_p, c_int64, c_int64, c_int64, c_char_p, c_void_p]
    lib.ladder_gemm.restype = ctypes.c_int
    lib.ladder_gemm_ld.argtypes = [c_void_p, c_int64, c_void_p, c_int64, c_void_p, c_int64,
                                   c_int64, c_int64, c_int64, c_char_p, c_void_p]
    lib.ladder_gemm_ld.restype = ctypes.c_int
    lib.ladder_last_error.argtypes = []
    lib.ladder_last_error.restype = c_char_p
    lib.ladder_step_count.argtypes = []
    lib.ladder_step_count.restype = ctypes.c_int
    lib.ladder_step_id.argtypes = [ctypes.c_int]
    lib.ladder_step_id.restype = c_char_p
    # The descriptor entry points (ladder.h): a library built before them lacks the symbols; the fp16 calls
    # above still work, and has_v2() says whether these do.
    desc_p = ctypes.POINTER(GemmDesc)
    if hasattr(lib, "ladder_gemm_v2"):
        lib.ladder_gemm_v2.argtypes = [desc_p, c_void_p]
        lib.ladder_gemm_v2.restype = ctypes.c_int
    if hasattr(lib, "ladder_gemm_desc_init"):
        lib.ladder_gemm_desc_init.argtypes = [desc_p]
        lib.ladder_gemm_desc_init.restype = None
    if hasattr(lib, "ladder_gemm_plan"):
        lib.ladder_gemm_plan.argtypes = [desc_p]
        lib.ladder_gemm_plan.restype = c_char_p
    return lib


def _open() -> ctypes.CDLL:
    env = os.environ.get("LADDER_LIBRARY")
    if env and not Path(env).is_file():
        # An explicit choice that is wrong is an error, not a reason to load some other build.
        raise LibraryNotFoundError(f"LADDER_LIBRARY={env} is not a file")
    tried = []
    for path in candidate_paths():
        if path.is_file():
            return ctypes.CDLL(str(path))  # a file that exists but fails to load raises its own OSError
        tried.append(str(path))
    for name in (LIBRARY_NAME, ctypes.util.find_library("ladder")):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            tried.append(f"system loader: {name}")
    raise LibraryNotFoundError(
        "cannot find libladder.so; build it (cmake --preset release && cmake --build --preset release) "
        "or set LADDER_LIBRARY to its path. Tried: " + ", ".join(tried))


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None


def library() -> ctypes.CDLL:
    """The loaded library (loaded on first use, then cached)."""
    global _lib
    with _lock:
        if _lib is None:
            _lib = _declare(_open())
        return _lib


def library_path() -> str:
    """The path (or loader name) libladder was loaded from."""
    return library()._name


def has_v2() -> bool:
    """Whether the loaded library has the descriptor entry point ``ladder_gemm_v2`` (bf16, fp32 output, epilogues)."""
    return hasattr(library(), "ladder_gemm_v2")


class MissingEntryPointError(RuntimeError):
    """The loaded libladder.so predates an entry point this call needs (rebuild the library)."""


def require_v2(what: str) -> ctypes.CDLL:
    """The library, if it has ladder_gemm_v2; else MissingEntryPointError naming what needed it."""
    lib = library()
    if not hasattr(lib, "ladder_gemm_v2"):
        raise MissingEntryPointError(
            f"{what} needs ladder_gemm_v2, which {lib._name} does not export (it was built "
            "before the descriptor API): rebuild libladder (cmake --build --preset release, or pip install .)")
    return lib


def check(code: int) -> None:
    """Raises LadderError for a non-zero status, with the library's message for this thread."""
    if code != Status.OK:
        message = library().ladder_last_error()
        raise LadderError(code, message.decode("utf-8", "replace") if message else "")
