#!/usr/bin/env python3
"""Regenerates the README's ladder table from a `ladder bench --csv` result.

  scripts/readme_table.py docs/results/bench.csv [--readme README.md] [--shape 4096] [--steps-info steps.txt]

Replaces what stands between the lines <!-- ladder-table:begin --> and <!-- ladder-table:end --> (both must
exist) with a table — step, [change,] shape, TFLOP/s, cuBLAS TFLOP/s, % of cuBLAS, % of peak, rel_err — and a
line naming the GPU, commit, date and source CSV. Running it twice changes nothing. --steps-info takes the
output of `ladder list` (or lines "h01  one tile") for the change column. --check: exit 1 if out of date.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_csv  # noqa: E402
from bench_csv import Row, shape_text  # noqa: E402

BEGIN = "<!-- ladder-table:begin -->"
END = "<!-- ladder-table:end -->"
_LIST_LINE = re.compile(r"^([hb]\d\d)\s+(?:hopper|blackwell)\s+sm_\w+\s+(.+?)(?:\s{2,}|$)")
_PLAIN_LINE = re.compile(r"^([hb]\d\d)[\s:]+(.+?)\s*$")


def read_steps_info(path: Path) -> Dict[str, str]:
    """step id → title, from `ladder list` output or 'id  title' lines."""
    titles: Dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = _LIST_LINE.match(line) or _PLAIN_LINE.match(line)
        if m and m.group(1) not in titles:
            titles[m.group(1)] = m.group(2).strip()
    return titles


def _num(value: float, fmt: str) -> str:
    return format(value, fmt) if value == value else "—"  # NaN → dash


def table(rows: List[Row], source: str, peak: float, titles: Optional[Dict[str, str]] = None) -> str:
    order = {s: i for i, s in enumerate(bench_csv.steps(rows))}
    rows = sorted(rows, key=lambda r: (order[r.step], r.shape[0] * r.shape[1] * r.shape[2], r.shape))
    head = ["step"] + (["change"] if titles is not None else []) + \
           ["shape", "TFLOP/s", "cuBLAS TFLOP/s", "% of cuBLAS", f"% of peak ({peak:g})", "rel_err"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i < 2 else "--:" for i in range(len(head))) + "|"]
    skipped = sorted({r.step for r in rows if r.status == "skip"} - {r.step for r in rows if r.status != "skip"})
    for r in rows:
        if r.status == "skip":  # the step does not accept this shape: nothing was measured
            continue
        cells = [f"`{r.step}`"] + ([titles.get(r.step, "")] if titles is not None else []) + [shape_text(r.shape)]
        if r.passed:
            cells += [_num(r.tflops, ".1f"), _num(r.cublas_tflops, ".1f"), _num(100 * r.ratio, ".1f"),
                      _num(100 * r.tflops / peak, ".1f"), _num(r.rel_err, ".1e")]
        else:
            cells += ["—", _num(r.cublas_tflops, ".1f"), "—", "—", f"{_num(r.rel_err, '.1e')} ({r.status})"]
        lines.append("| " + " | ".join(cells) + " |")
    p = bench_csv.provenance(rows)
    if skipped:
        lines += ["", "Not in the table (they accept none of these shapes): " + ", ".join(f"`{s}`" for s in skipped) + "."]
    lines += ["", f"Measured on {p['gpu']}, commit `{p['commit']}`, {p['date']}; source: `{source}` "
                  "(regenerate with `scripts/readme_table.py`)."]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """text with the part between the markers replaced by block; ValueError if the markers are not right."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"the README needs exactly one '{BEGIN}' line followed by one '{END}' line")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}\n{END}{tail}"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path, help="a CSV written by `ladder bench --csv`")
    ap.add_argument("--readme", type=Path, default=Path(__file__).resolve().parent.parent / "README.md")
    ap.add_argument("--shape", action="append", help="only this shape, MxNxK or M (repeatable; default: all)")
    ap.add_argument("--steps-info", type=Path, help="`ladder list` output, for a change column")
    ap.add_argument("--peak", type=float, default=bench_csv.H200_PEAK_TFLOPS, help="dense fp16 peak, TFLOP/s")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table is out of date")
    args = ap.parse_args(argv)
    try:
        rows = bench_csv.read(args.csv)
        if args.shape:
            wanted = {bench_csv.parse_shape(s) for s in args.shape}
            rows = [r for r in rows if r.shape in wanted]
            if not rows:
                raise bench_csv.CsvError(f"{args.csv} has no rows at {', '.join(args.shape)}")
        titles = read_steps_info(args.steps_info) if args.steps_info else None
        text = args.readme.read_text()
        source = os.path.relpath(args.csv.resolve(), args.readme.resolve().parent)
        new = replace_block(text, table(rows, source, args.peak, titles))
    except (OSError, ValueError) as e:  # CsvError is a ValueError
        print(f"readme_table.py: {e}", file=sys.stderr)
        return 2
    if new == text:
        print(f"{args.readme}: table up to date")
        return 0
    if args.check:
        print(f"{args.readme}: table out of date (run scripts/readme_table.py {args.csv})", file=sys.stderr)
        return 1
    args.readme.write_text(new)
    print(f"{args.readme}: table updated ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
