#!/usr/bin/env python3
"""Per-kernel medians of an `ncu --csv --page raw` file: one line for cuBLAS's kernels (nvjet) and one for ladder's.

  python3 scripts/ncu_raw.py FILE.csv LABEL [METRIC ...]

With no METRIC, every `.sum` metric in the file. Sector counts are also shown in MB (32 B a sector), durations in µs.
The thirtieth session's device script (h200_s30.sh: ncu64, lrc, lrcst) reads its ncu runs with it.
"""
import csv
import io
import sys


def load(path):
    text = open(path).read()
    start = text.find('"ID"')
    rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
    return (rows[0], rows[1:]) if rows else ({}, [])


def median(rows, col):
    v = sorted(float(r[col].replace(",", "")) for r in rows if r.get(col, "") not in ("", "n/a"))
    return v[len(v) // 2] if v else float("nan")


def cell(name, value, unit):
    short = name.replace(".sum", "").replace("lrc__", "")
    if unit in ("ns", "nsecond"):
        return f"{short}={value / 1e3:.1f}us"
    if unit == "sector":
        return f"{short}={value / 1e3:.0f}k({value * 32e-6:.1f}MB)"
    if unit == "byte":
        return f"{short}={value * 1e-6:.1f}MB"
    return f"{short}={value:.4g}{unit}"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    units, rows = load(argv[1])
    if not rows:
        print(f"[{argv[2]}] no kernels in {argv[1]}")
        return 1
    metrics = argv[3:] or [c for c in units if c.endswith(".sum")]
    by = {}
    for r in rows:
        by.setdefault("cublas" if "nvjet" in r.get("Kernel Name", "") else "ladder", []).append(r)
    for kern, rs in by.items():
        cells = [cell(m, median(rs, m), units.get(m, "")) for m in metrics if m in units]
        print(f"[{argv[2]}] {kern:6s} n={len(rs)} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
