"""Runs the pytest suite for ctest: exits 77 (ctest's skip) without pytest, and fails on 'no tests ran'."""
import sys

try:
    import pytest
except ImportError:
    print("pytest is not installed for " + sys.executable + ": python3 -m pip install pytest", file=sys.stderr)
    sys.exit(77)

rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]])
if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
    print("pytest collected no tests: the suite is missing", file=sys.stderr)
    rc = 1
sys.exit(int(rc))
