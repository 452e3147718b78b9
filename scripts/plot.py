#!/usr/bin/env python3
"""Pictures of a `ladder bench --csv` result.

  scripts/plot.py docs/results/bench.csv -o docs/results      → ladder_steps.png (+ ladder_sizes.png)

ladder_steps.png: TFLOP/s of each step at one shape (--shape, default: the shape most steps passed at),
  the cuBLAS line, and each bar labelled with its share of cuBLAS.
ladder_sizes.png: TFLOP/s against problem size for each step and cuBLAS (only when the CSV has several shapes).
Titles carry the GPU, the commit and the date from the CSV. Needs matplotlib.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_csv  # noqa: E402
from bench_csv import Row, shape_text  # noqa: E402


def _title(rows: List[Row], what: str) -> str:
    p = bench_csv.provenance(rows)
    return f"ladder — {what}\n{p['gpu']} · commit {p['commit']} · {p['date']}"


def plot_steps(plt, rows: List[Row], shape, path: Path) -> None:
    at = [r for r in rows if r.shape == shape]
    names = bench_csv.steps(at)
    by_step = {r.step: r for r in at}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(names) + 2), 4.5))
    heights = [by_step[s].tflops if by_step[s].passed else 0.0 for s in names]
    bars = ax.bar(names, heights, color="#4C72B0")
    for bar, s in zip(bars, names):
        r = by_step[s]
        label = f"{100 * r.ratio:.0f}%" if r.passed else r.status
        ax.annotate(label, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom",
                    xytext=(0, 2), textcoords="offset points", fontsize=8)
    cublas = [r.cublas_tflops for r in at if r.passed and math.isfinite(r.cublas_tflops)]
    if cublas:
        level = sorted(cublas)[len(cublas) // 2]
        ax.axhline(level, color="#C44E52", linestyle="--", label=f"cuBLAS {level:.0f} TFLOP/s")
        ax.legend(loc="upper left")
    ax.set_ylabel("TFLOP/s")
    ax.set_xlabel("step (bar label: share of cuBLAS)")
    ax.set_title(_title(rows, f"TFLOP/s per step at {shape_text(shape)}"), fontsize=10)
    ax.margins(y=0.15)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_sizes(plt, rows: List[Row], path: Path) -> None:
    sizes = bench_csv.shapes(rows)
    x = {s: i for i, s in enumerate(sizes)}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(sizes) + 3), 4.5))
    for step in bench_csv.steps(rows):
        got = {x[r.shape]: r.tflops for r in rows if r.step == step and r.passed}
        if got:  # NaN where the step did not run: the line breaks instead of bridging the gap
            ax.plot(range(len(sizes)), [got.get(i, math.nan) for i in range(len(sizes))], marker="o", label=step)
    cublas = {}
    for r in rows:
        if r.passed and math.isfinite(r.cublas_tflops):
            cublas.setdefault(r.shape, []).append(r.cublas_tflops)
    if cublas:
        pts = sorted((x[s], sorted(v)[len(v) // 2]) for s, v in cublas.items())
        ax.plot(*zip(*pts), color="black", linestyle="--", marker="s", label="cuBLAS")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([shape_text(s) for s in sizes], rotation=30, ha="right")
    ax.set_xlabel("M×N×K (by number of FLOPs)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(_title(rows, "TFLOP/s versus size"), fontsize=10)
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path, help="a CSV written by `ladder bench --csv`")
    ap.add_argument("-o", "--out", type=Path, default=Path("."), help="folder for the PNG files (default: .)")
    ap.add_argument("--shape", help="shape of the per-step picture, MxNxK or M (default: most passing steps)")
    args = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py needs matplotlib: python3 -m pip install matplotlib", file=sys.stderr)
        return 2
    try:
        rows = bench_csv.read(args.csv)
        shape = bench_csv.parse_shape(args.shape) if args.shape else bench_csv.default_shape(rows)
    except (OSError, bench_csv.CsvError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    if not any(r.shape == shape for r in rows):
        print(f"plot.py: no rows at {shape_text(shape)}; the CSV has "
              + ", ".join(shape_text(s) for s in bench_csv.shapes(rows)), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    written = [args.out / "ladder_steps.png"]
    plot_steps(plt, rows, shape, written[0])
    if len(bench_csv.shapes(rows)) > 1:
        written.append(args.out / "ladder_sizes.png")
        plot_sizes(plt, rows, written[-1])
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
