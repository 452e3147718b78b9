#!/usr/bin/env python3
"""The prefill suite's report (`ladder bench --suite prefill --csv`): the README table and its summary.

  scripts/prefill_report.py CSV [--readme README.md]

Other models' layers at 128-512 tokens (tools/report.cpp, suite "prefill"). The table (between
<!-- prefill-table:begin --> and <!-- prefill-table:end -->) gives, per layer and M, best's time, cuBLAS's time in
the same run and best's speed against cuBLAS; the summary their geometric mean, by M and overall, and the rows below
1.0×. Rows with a tune other than none are left out. Without --readme it prints the table.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from decode_report import geomean

BEGIN, END = "<!-- prefill-table:begin -->", "<!-- prefill-table:end -->"
LAYERS = [(2048, 2048, "3.2-1B q/o"), (512, 2048, "3.2-1B k/v"), (8192, 2048, "3.2-1B gate/up"), (2048, 8192, "3.2-1B down"),
          (3072, 3072, "3.2-3B q/o"), (1024, 3072, "3.2-3B k/v"), (8192, 3072, "3.2-3B gate/up"), (3072, 8192, "3.2-3B down"),
          (3584, 3584, "Qwen2.5-7B q/o"), (512, 3584, "Qwen2.5-7B k/v"), (18944, 3584, "Qwen2.5-7B gate/up"),
          (3584, 18944, "Qwen2.5-7B down"), (9216, 3072, "Phi-3-mini qkv"), (16384, 3072, "Phi-3-mini gate+up")]
MS = [128, 256, 384, 512]


def load(path):
    rows = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if not (row.get("tune") or "") and row["status"] == "pass":
                rows[(int(row["m"]), int(row["n"]), int(row["k"]))] = row
    return rows


def table(rows):
    lines = ["| layer (N×K) | M | best µs | cuBLAS µs | × cuBLAS |", "|---|--:|--:|--:|--:|"]
    ratios, by_m, below = [], {m: [] for m in MS}, []
    for n, k, name in LAYERS:
        for m in MS:
            r = rows.get((m, n, k))
            if r is None:
                lines.append(f"| {name} {n}×{k} | {m} | — | — | — |")
                continue
            us, cb = float(r["median_ms"]) * 1e3, float(r["cublas_median_ms"]) * 1e3
            ratio = float(r["ratio_to_cublas"])
            ratios.append(ratio), by_m[m].append(ratio)
            if ratio < 1.0:
                below.append((ratio, f"{m}×{n}×{k}"))
            lines.append(f"| {name} {n}×{k} | {m} | {us:.1f} | {cb:.1f} | {ratio:.2f} |")
    commits = sorted({r["commit"] for r in rows.values()})
    gpus = sorted({r["gpu"] for r in rows.values()})
    dates = sorted({r["date"][:10] for r in rows.values()})
    lines.append("")
    lines.append(f"{len(ratios)} of {len(LAYERS) * len(MS)} shapes: best against cuBLAS, geometric mean "
                 f"**{geomean(ratios):.2f}×**; by M " + ", ".join(f"{m} {geomean(v):.2f}" for m, v in by_m.items() if v) +
                 f"; {len(below)} below 1.0×" + (f" (lowest {', '.join(f'{s} {x:.2f}×' for x, s in sorted(below)[:3])})" if below else "") + ".")
    lines.append(f"Measured on {', '.join(gpus)}, commits {', '.join(commits)}, {', '.join(dates)}; source: "
                 "`docs/results/bench-prefill.csv` (regenerate with `scripts/prefill_report.py`).")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--readme")
    a = ap.parse_args()
    rows = load(a.csv)
    if not rows:
        sys.exit(f"{a.csv}: no passing rows without a tune")
    text = table(rows)
    if not a.readme:
        print(text)
        return
    readme = Path(a.readme).read_text()
    if BEGIN not in readme or END not in readme:
        sys.exit(f"{a.readme}: no {BEGIN} … {END} block")
    head, rest = readme.split(BEGIN, 1)
    Path(a.readme).write_text(head + BEGIN + "\n" + text + "\n" + END + rest.split(END, 1)[1])


if __name__ == "__main__":
    main()
