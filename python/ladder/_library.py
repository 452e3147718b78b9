"""Finding and loading libladder.so, and the C ABI's signatures (include/ladder/ladder.h)."""
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


class LadderError(RuntimeError):
    """An error reported by libladder: ``code`` is a :class:`Status`, ``message`` the library's text."""

    def __init__(self, code: int, message: str):
        try:
            code = Status(code)
        except ValueError:  # a newer library with a code this package does not know yet
            pass
        self.code = code
        self.message = message
        name = code.name if isinstance(code, Status) else str(code)
        super().__init__(f"{message} [LADDER_ERROR_{name}]" if name != "OK" else message)


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


def check(code: int) -> None:
    """Raises LadderError for a non-zero status, with the library's message for this thread."""
    if code != Status.OK:
        message = library().ladder_last_error()
        raise LadderError(code, message.decode("utf-8", "replace") if message else "")
