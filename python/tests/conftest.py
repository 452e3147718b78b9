"""Shared fixtures: the repository layout and whether a CUDA GPU is usable (asked through libladder's cudart)."""
import ctypes
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "scripts"))

import ladder  # noqa: E402


def gpu_count() -> int:
    """CUDA devices visible to the runtime libladder links (0 when the driver is missing or too old)."""
    count = ctypes.c_int(0)
    rc = ladder.library().cudaGetDeviceCount(ctypes.byref(count))  # dlsym also searches libladder's dependencies
    return count.value if rc == 0 else 0


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
