"""pyproject.toml (pip install .) and the CMake rules it relies on agree with each other and with the package.

Building the wheel compiles the CUDA library (minutes), so it is not done here; ctest's python_package_layout
installs the same `python` component from the test build and imports it from outside the repository.
"""
import re

import pytest

import ladder
from conftest import REPO

tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11")


@pytest.fixture(scope="module")
def pyproject():
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_build_backend_is_scikit_build_core(pyproject):
    build = pyproject["build-system"]
    assert build["build-backend"] == "scikit_build_core.build"
    assert any(re.fullmatch(r"scikit-build-core>=0\.1\d.*", r) for r in build["requires"]), build["requires"]


def test_the_wheel_is_the_python_install_component(pyproject):
    sk = pyproject["tool"]["scikit-build"]
    assert sk["install"]["components"] == ["python"]
    assert sk["wheel"]["packages"] == []  # the .py files come from the component too: one rule for both
    defines = sk["cmake"]["define"]
    assert defines == {"LADDER_PYTHON_PACKAGE": "ON", "LADDER_BUILD_TOOLS": "OFF", "LADDER_BUILD_TESTS": "OFF",
                       "LADDER_INSTALL": "OFF"}
    cmakelists = (REPO / "CMakeLists.txt").read_text()
    for option in defines:
        assert re.search(rf"option\({option}\b", cmakelists), f"pyproject.toml sets {option}, CMakeLists.txt has no such option"
    assert "include(cmake/python.cmake)" in cmakelists
    rules = (REPO / "cmake" / "python.cmake").read_text()
    assert re.search(r"install\(TARGETS ladder LIBRARY DESTINATION ladder COMPONENT python EXCLUDE_FROM_ALL\)", rules)
    assert re.search(r"install\(DIRECTORY python/ladder/ DESTINATION ladder COMPONENT python EXCLUDE_FROM_ALL", rules)


def test_one_version_everywhere(pyproject):
    assert pyproject["project"]["dynamic"] == ["version"]
    version_source = pyproject["tool"]["scikit-build"]["metadata"]["version"]
    assert version_source["input"] == "python/ladder/__init__.py"
    cmake_version = re.search(r"project\(ladder VERSION (\S+)", (REPO / "CMakeLists.txt").read_text()).group(1)
    assert ladder.__version__ == cmake_version


def test_torch_is_optional(pyproject):
    assert pyproject["project"]["dependencies"] == []
    assert any(d.startswith("torch") for d in pyproject["project"]["optional-dependencies"]["torch"])
