"""The ctypes mirror of struct ladder_gemm_desc and the C enums against include/ladder/ladder.h.

Two independent checks: the field names, order and C types parsed from the header text, and the offsets and
sizes a C compiler gives (tests/desc_layout.c, built by CMake; ctest passes its path in LADDER_DESC_LAYOUT).
"""
import ctypes
import os
import re
import subprocess
from pathlib import Path

import pytest

import ladder
from ladder import _library
from conftest import REPO

C_TYPES = {  # C type in ladder.h -> the ctypes type the mirror must use
    "uint32_t": ctypes.c_uint32, "int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32, "float": ctypes.c_float,
    "const void*": ctypes.c_void_p, "void*": ctypes.c_void_p, "const float*": ctypes.POINTER(ctypes.c_float),
    "const char*": ctypes.c_char_p,
}


def header_fields():
    text = (REPO / "include" / "ladder" / "ladder.h").read_text()
    body = re.search(r"struct ladder_gemm_desc \{(.*?)\};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = re.fullmatch(r"((?:const )?\w+\*?) (\w+(?:, \w+)*)", decl)
        assert m, f"cannot parse the declaration {decl!r} in ladder.h"
        fields += [(name, m.group(1)) for name in m.group(2).split(", ")]
    return fields


def test_mirror_has_the_header_fields_in_order_with_their_types():
    fields = header_fields()
    assert [n for n, _ in fields] == [n for n, _ in _library.GemmDesc._fields_]
    for (name, c_type), (_, py_type) in zip(fields, _library.GemmDesc._fields_):
        assert C_TYPES[c_type] == py_type, f"{name}: {c_type} in ladder.h, {py_type} in the mirror"


def test_enums_match_the_header():
    text = (REPO / "include" / "ladder" / "ladder.h").read_text()
    for enum, prefix, py in (("ladder_dtype", "LADDER_DTYPE_", ladder.DType),
                             ("ladder_activation", "LADDER_ACTIVATION_", ladder.Activation),
                             ("ladder_epilogue_kind", "LADDER_EPILOGUE_", ladder.Epilogue)):
        body = re.search(rf"enum {enum} \{{(.*?)\}};", text, re.S).group(1)
        values = {name: int(v) for name, v in re.findall(rf"\b{prefix}(\w+)\s*=\s*(\d+)", body)}
        assert values == {m.name: m.value for m in py}, enum


def layout_program() -> Path:
    env = os.environ.get("LADDER_DESC_LAYOUT")
    if env:
        return Path(env)
    built = REPO / "build" / "release" / "tests" / "ladder_desc_layout"
    if built.is_file():
        return built
    pytest.skip("tests/desc_layout.c is not built (ctest sets LADDER_DESC_LAYOUT; or cmake --build --preset release)")


def test_offsets_and_sizes_match_the_c_compiler():
    out = subprocess.run([str(layout_program())], capture_output=True, text=True, check=True).stdout
    c_layout, c_enums = {}, {}
    for line in out.splitlines():
        words = line.split()
        if words[0] == "sizeof":
            c_size = int(words[1])
        elif words[0] == "enum":
            c_enums[words[1]] = int(words[2])
        else:
            c_layout[words[0]] = (int(words[1]), int(words[2]))
    assert c_size == ctypes.sizeof(_library.GemmDesc)
    py_layout = {name: (getattr(_library.GemmDesc, name).offset, getattr(_library.GemmDesc, name).size)
                 for name, _ in _library.GemmDesc._fields_}
    assert c_layout == py_layout
    assert c_enums["LADDER_DTYPE_BF16"] == ladder.DType.BF16 and c_enums["LADDER_ACTIVATION_SILU"] == ladder.Activation.SILU
    assert c_enums["LADDER_EPILOGUE_SWIGLU"] == ladder.Epilogue.SWIGLU


def test_python_defaults_are_ladder_gemm_desc_init():
    desc = ladder.gemm_desc()
    assert (desc.struct_size, desc.alpha, desc.beta, desc.ab_dtype, desc.d_dtype) == (160, 1.0, 0.0, 0, 0)
    assert desc.step is None and desc.epilogue == desc.activation == 0 and not desc.A
    assert ladder.gemm_desc(M=3, step="h10").step == b"h10"
    with pytest.raises(AttributeError, match="no field 'lda_'"):
        ladder.gemm_desc(lda_=3)
    lib = ladder.library()
    if not hasattr(lib, "ladder_gemm_desc_init"):
        pytest.skip(f"{ladder.library_path()} does not export ladder_gemm_desc_init yet (compared field by field once it does)")
    c_desc = _library.GemmDesc()
    lib.ladder_gemm_desc_init(ctypes.byref(c_desc))
    assert bytes(c_desc) == bytes(ladder.gemm_desc())
