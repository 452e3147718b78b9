#!/usr/bin/env python3
"""The decode suite's report: one CSV from the runs that measured the committed code, the README table, the plot.

  scripts/decode_report.py CSV [CSV ...] [--out docs/results/bench-decode.csv] [--readme README.md]
                           [--plot docs/results/decode.png]

Each CSV is a `ladder bench --csv` file; for a shape measured in several, the LAST file given wins (pass the runs
oldest first). The combined CSV keeps every column and each row's own commit and date. The README table (between
<!-- decode-table:begin --> and <!-- decode-table:end -->) gives, per layer and M: best's time, GB/s
(2·(MK + NK + MN) bytes over the time), the same-run read floor's GB/s, best's share of that floor, and its speed
against cuBLAS. The plot draws GB/s against M for every layer: best, cuBLAS, the read floor.

The suite times each GEMM back to back, as a chain of best's own calls: with programmatic dependent launch each call's
launch and prologue overlap the previous call's tail, which cuBLAS's launches do not. Where a CSV also has the suite's
rows under `--tune "pdl=0"` (each call launched as after a kernel that is not ladder's), the table adds their ratio to
cuBLAS (column "isolated") and the summary their geometric mean: the honest figure for a GEMM called alone.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

BEGIN, END = "<!-- decode-table:begin -->", "<!-- decode-table:end -->"
LAYERS = [(4096, 4096, "8B q/o"), (1024, 4096, "8B k/v"), (14336, 4096, "8B gate/up"), (4096, 14336, "8B down"),
          (128256, 4096, "8B lm_head"), (8192, 8192, "70B q/o"), (1024, 8192, "70B k/v"), (28672, 8192, "70B gate/up"),
          (8192, 28672, "70B down")]
MS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


ISOLATED = "pdl=0"


def load(paths):
    """best's rows (no tune) and its isolated rows (tune pdl=0) by shape; other tunes are left out."""
    rows, iso, header = {}, {}, None
    for p in paths:
        with open(p) as f:
            r = csv.DictReader(f)
            header = header or r.fieldnames
            for row in r:
                tune = row.get("tune") or ""
                if tune in ("", ISOLATED):
                    (iso if tune else rows)[(int(row["m"]), int(row["n"]), int(row["k"]))] = row
    return rows, iso, header


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summary(rows):
    want = [(m, n, k) for m in MS for n, k, _ in LAYERS]
    have = [rows[s] for s in want if s in rows and rows[s]["status"] == "pass"]
    if not have:
        return {"shapes": 0, "missing": len(want), "geomean_all": float("nan"), "geomean_m16": float("nan"),
                "min_floor_m16": float("nan"), "at_or_above_cublas": 0}
    small = [r for r in have if int(r["m"]) <= 16]
    ratio = lambda r: float(r["ratio_to_cublas"])  # noqa: E731
    return {
        "shapes": len(have), "missing": len(want) - len(have),
        "geomean_all": geomean([ratio(r) for r in have]),
        "geomean_m16": geomean([ratio(r) for r in small]),
        "min_floor_m16": min(float(r["pct_floor"]) for r in small) if small else float("nan"),
        "at_or_above_cublas": sum(ratio(r) >= 1.0 for r in have),
    }


def table(rows, iso=None) -> str:
    iso = iso or {}
    s = summary(rows)
    commits = sorted({r["commit"] for r in list(rows.values()) + list(iso.values())})
    dates = sorted({r["date"][:10] for r in list(rows.values()) + list(iso.values())})
    gpus = sorted({r["gpu"] for r in list(rows.values()) + list(iso.values())})
    # CSVs from 2026-12-06 on carry the host's time a call (host_us): shown, and the rows it may have paced counted.
    host = all(r.get("host_us") not in (None, "") for r in rows.values())
    out = ["| layer (N×K) | M | best µs | best GB/s | floor GB/s | % of floor | cuBLAS GB/s | × cuBLAS |"
           + (" host µs |" if host else "") + (" isolated × cuBLAS |" if iso else ""),
           "|---|--:|--:|--:|--:|--:|--:|--:|" + ("--:|" if host else "") + ("--:|" if iso else "")]
    paced = 0
    for n, k, name in LAYERS:
        for m in MS:
            r = rows.get((m, n, k))
            if not r or r["status"] != "pass":
                continue
            out.append(f"| {name} {n}×{k} | {m} | {1e3 * float(r['median_ms']):.1f} | {float(r['gbps']):.0f} | "
                       f"{float(r['floor_gbps']):.0f} | {100 * float(r['pct_floor']):.0f} | {float(r['cublas_gbps']):.0f} | "
                       f"{float(r['ratio_to_cublas']):.2f} |" + (f" {float(r['host_us']):.1f} |" if host else "")
                       + (f" {float(iso[(m, n, k)]['ratio_to_cublas']):.2f} |" if (m, n, k) in iso and
                          iso[(m, n, k)]["status"] == "pass" else " – |" if iso else ""))
            paced += host and float(r["host_us"]) >= 0.9e3 * float(r["median_ms"])
    out.append("")
    out.append(f"{s['shapes']} shapes ({s['missing']} missing): best against cuBLAS, geometric mean "
               f"**{s['geomean_all']:.2f}×** (M ≤ 16: {s['geomean_m16']:.2f}×); {s['at_or_above_cublas']} at or above "
               f"cuBLAS; lowest share of the same-run read floor at M ≤ 16: {100 * s['min_floor_m16']:.0f} %."
               + (f" Host-paced rows (the host's time a call within 10 % of the GPU's): {paced}." if host else ""))
    if iso:
        si = summary(iso)
        out.append(f"Isolated (`--tune \"pdl=0\"`: no overlap with the call before, as after a kernel that is not "
                   f"ladder's), {si['shapes']} shapes: geometric mean **{si['geomean_all']:.2f}×** (M ≤ 16: "
                   f"{si['geomean_m16']:.2f}×); {si['at_or_above_cublas']} at or above cuBLAS.")
    out.append(f"Measured on {', '.join(gpus)}, commits {', '.join(commits)}, {', '.join(dates)}; source: "
               "`docs/results/bench-decode.csv` (regenerate with `scripts/decode_report.py`).")
    return "\n".join(out)


def plot(rows, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 3, figsize=(13, 10), sharex=True)
    for ax, (n, k, name) in zip(axes.flat, LAYERS):
        pts = [(m, rows[(m, n, k)]) for m in MS if (m, n, k) in rows and rows[(m, n, k)]["status"] == "pass"]
        ms = [m for m, _ in pts]
        ax.plot(ms, [float(r["gbps"]) for _, r in pts], "o-", label="best")
        ax.plot(ms, [float(r["cublas_gbps"]) for _, r in pts], "s--", label="cuBLAS")
        ax.plot(ms, [float(r["floor_gbps"]) for _, r in pts], ":", color="gray", label="read floor")
        ax.set_xscale("log", base=2)
        ax.set_title(f"{name} {n}×{k}", fontsize=9)
        ax.set_ylabel("GB/s")
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("M (tokens)")
    commits = ", ".join(sorted({r["commit"] for r in rows.values()}))
    fig.suptitle(f"ladder decode suite — GB/s against M (same-run read floor)\n"
                 f"{next(iter(rows.values()))['gpu']} · commits {commits}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--readme")
    ap.add_argument("--plot")
    a = ap.parse_args()
    rows, iso, header = load(a.csv)
    want = {(m, n, k) for m in MS for n, k, _ in LAYERS}
    rows = {s: r for s, r in rows.items() if s in want}
    iso = {s: r for s, r in iso.items() if s in want}
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header)
            w.writeheader()
            for m in MS:
                for n, k, _ in LAYERS:
                    for src in (rows, iso):
                        if (m, n, k) in src:
                            w.writerow(src[(m, n, k)])
    text = table(rows, iso)
    if a.readme:
        p = Path(a.readme)
        s = p.read_text()
        if BEGIN not in s or END not in s:
            print(f"{p} has no {BEGIN} … {END} markers", file=sys.stderr)
            return 1
        p.write_text(s[: s.index(BEGIN) + len(BEGIN)] + "\n" + text + "\n" + s[s.index(END):])
    else:
        print(text)
    if a.plot:
        plot(rows, Path(a.plot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
