"""Reading the CSV that `ladder bench --csv` writes (tools/report.cpp: csv_header) for plot.py and readme_table.py."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

COLUMNS = ("step,arch,m,n,k,median_ms,tflops,cublas_tflops,ratio_to_cublas,rel_err,status,min_ms,max_ms,"
           "cublas_median_ms,reps,input_sets,resolved_step,gpu,commit,date").split(",")
H200_PEAK_TFLOPS = 989.5  # dense fp16 (docs/design.md)

Shape = Tuple[int, int, int]


@dataclass
class Row:
    step: str
    arch: str
    shape: Shape
    tflops: float
    cublas_tflops: float
    ratio: float       # tflops / cublas_tflops
    rel_err: float
    status: str        # "pass", or why not
    gpu: str
    commit: str
    date: str

    @property
    def passed(self) -> bool:
        return self.status == "pass"


class CsvError(ValueError):
    pass


def shape_text(shape: Shape) -> str:
    m, n, k = shape
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def parse_shape(text: str) -> Shape:
    """'4096x4096x4096' or '4096' (a cube)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise CsvError(f"bad shape '{text}': expected MxNxK or M") from None
    if len(values) == 1:
        values *= 3
    if len(values) != 3:
        raise CsvError(f"bad shape '{text}': expected MxNxK or M")
    return tuple(values)  # type: ignore[return-value]


def _float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return float("nan")


def read(path: Path) -> List[Row]:
    """The rows of a bench CSV; CsvError names what is wrong with the file."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in ("step", "m", "n", "k", "tflops", "cublas_tflops", "ratio_to_cublas", "rel_err",
                               "status", "gpu", "commit", "date") if c not in (reader.fieldnames or [])]
        if missing:
            raise CsvError(f"{path}: not a ladder bench CSV (missing columns: {', '.join(missing)})")
        rows = []
        for line, r in enumerate(reader, start=2):
            try:
                shape = (int(r["m"]), int(r["n"]), int(r["k"]))
            except (TypeError, ValueError):
                raise CsvError(f"{path}:{line}: bad m, n or k") from None
            rows.append(Row(r["step"], r.get("arch", ""), shape, _float(r["tflops"]), _float(r["cublas_tflops"]),
                            _float(r["ratio_to_cublas"]), _float(r["rel_err"]), r["status"], r["gpu"], r["commit"],
                            r["date"]))
    if not rows:
        raise CsvError(f"{path}: no rows")
    return rows


def shapes(rows: List[Row]) -> List[Shape]:
    """The shapes in the CSV, smallest problem first."""
    return sorted({r.shape for r in rows}, key=lambda s: (s[0] * s[1] * s[2], s))


def steps(rows: List[Row]) -> List[str]:
    """The steps in CSV order."""
    return list(dict.fromkeys(r.step for r in rows))


def default_shape(rows: List[Row]) -> Shape:
    """The shape most steps passed at; among those, the largest problem."""
    passes: Dict[Shape, int] = {}
    for r in rows:
        passes[r.shape] = passes.get(r.shape, 0) + r.passed
    return max(shapes(rows), key=lambda s: (passes[s], s[0] * s[1] * s[2]))


def provenance(rows: List[Row]) -> Dict[str, str]:
    """gpu, commit, date: each distinct value once, in order (a CSV normally has one of each)."""
    def distinct(values):
        return ", ".join(dict.fromkeys(v for v in values if v)) or "unknown"
    return {"gpu": distinct(r.gpu for r in rows), "commit": distinct(r.commit for r in rows),
            "date": distinct(r.date for r in rows)}
