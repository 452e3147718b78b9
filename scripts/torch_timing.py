"""What scripts/torch_bench.py and scripts/llama_model.py share: provenance, timing, errors, result files.

- provenance(): commit (--commit, $LADDER_COMMIT, git, or the stamp in build/release/generated), date, GPU,
  torch / CUDA versions and which libladder was loaded;
- interleaved(): CUDA-event samples (perf_counter on CPU), one sample of each implementation in turn, after a
  warm-up, so all share the clock and the thermals; medians, not means;
- graphed(): a callable captured in a CUDA graph (its replay and output);
- rel_err(): normwise relative error against a reference;
- write_results(): JSON (provenance + rows) and a CSV of the rows next to it; table(): the closing summary.
"""
from __future__ import annotations

import csv
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))  # this repository's package (libladder: $LADDER_LIBRARY or build/)


def commit(explicit: Optional[str] = None, repo: Path = REPO) -> str:
    """The commit the results belong to: --commit, $LADDER_COMMIT, git, or the build's stamp."""
    if explicit:
        return explicit
    if os.environ.get("LADDER_COMMIT"):
        return os.environ["LADDER_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=repo, capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    for preset in ("release", "debug"):  # the GPU machine has no .git; the build carries its commit
        stamp = repo / "build" / preset / "generated" / "ladder_version.hpp"
        if stamp.is_file():
            m = re.search(r'LADDER_GIT_COMMIT "([^"]+)"', stamp.read_text())
            if m:
                return m.group(1)
    return "unknown"


def gpu_or_cpu(torch, dry_run: bool, script: str):
    """The device a benchmark script runs on (the CPU with --dry-run), with TF32 off so the fp32 references are
    IEEE fp32; None (after saying why) when a GPU run finds no GPU."""
    device = torch.device("cpu" if dry_run else "cuda")
    if device.type == "cuda" and not torch.cuda.is_available():
        print(f"{script}: torch sees no CUDA GPU (use --dry-run to exercise the script on the CPU)", file=sys.stderr)
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    return device


def provenance(torch, explicit_commit: Optional[str], device) -> Dict[str, object]:
    info = {"commit": commit(explicit_commit),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "torch": torch.__version__, "python": platform.python_version(), "host": platform.node()}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(gpu=props.name, cuda=torch.version.cuda, sm_count=props.multi_processor_count,
                    l2_bytes=getattr(props, "L2_cache_size", 0))
    else:
        info.update(gpu="none (dry run on CPU)")
    try:
        import ladder
        info.update(ladder_package=str(Path(ladder.__file__).parent), ladder_library=ladder.library_path(),
                    ladder_v2=ladder.has_v2())
    except Exception as e:  # the dry run works without the library
        info.update(ladder_library=f"not loaded: {e}")
    return info


class Clock:
    """Times one call: CUDA events on a GPU (read after a synchronize), perf_counter on the CPU."""

    def __init__(self, torch, device):
        self.torch, self.cuda = torch, device.type == "cuda"

    def sample(self, fn: Callable[[], object]):
        if self.cuda:
            start, end = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            return start, end
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3

    def ms(self, samples) -> List[float]:
        if self.cuda:
            self.torch.cuda.synchronize()
            return [s.elapsed_time(e) for s, e in samples]
        return list(samples)


def interleaved(torch, device, impls: Dict[str, Callable[[int], object]], warmup: int = 3,
                budget_s: float = 0.4, min_reps: int = 10, max_reps: int = 100,
                warmup_s: float = 0.3) -> Dict[str, Dict[str, float]]:
    """Median/min/max milliseconds per call of each implementation; impls[name](i) runs call i (i picks the
    rotated input set). Samples alternate between implementations; the repetitions fill ``budget_s``."""
    clock = Clock(torch, device)
    for name, fn in impls.items():
        for i in range(warmup):
            fn(i)
    # Then at least warmup_s of calls, so the clocks have ramped up whatever ran before (after three calls alone,
    # the first case of a run, the 512-token MLP, measured up to 61 % slow: docs/results/dev/2026-12-01-s5-torch-first/).
    start, i = time.perf_counter(), 0
    while time.perf_counter() - start < min(warmup_s, budget_s):
        for fn in impls.values():
            fn(i)
        i += 1
        if clock.cuda:
            torch.cuda.synchronize()
    probe = {name: statistics.median(clock.ms([clock.sample(lambda: fn(0)) for _ in range(2)]))
             for name, fn in impls.items()}
    reps = int(min(max_reps, max(min_reps, budget_s * 1e3 / max(sum(probe.values()), 1e-3))))
    samples = {name: [] for name in impls}
    for r in range(reps):
        for name, fn in impls.items():
            samples[name].append(clock.sample(lambda: fn(r)))
    out = {}
    for name, s in samples.items():
        ms = clock.ms(s)
        out[name] = {"median_ms": statistics.median(ms), "min_ms": min(ms), "max_ms": max(ms), "reps": len(ms)}
    return out


def graphed(torch, fn):
    """fn captured in a CUDA graph (after a warm-up on a side stream, as torch's docs ask): returns replay, output."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph.replay, out


def rel_err(got, ref) -> float:
    got, ref = got.float(), ref.float()
    den = float(ref.norm())
    return float((got - ref).norm()) / den if den > 0 else float((got - ref).norm())


def input_sets(nbytes: int, l2_bytes: int, cap: int = 8) -> int:
    """How many copies of an input rotate so that they cover at least 2.5× the L2 (at least 2)."""
    if l2_bytes <= 0 or nbytes <= 0:
        return 2
    return int(max(2, min(cap, math.ceil(2.5 * l2_bytes / nbytes))))


def guarded(rows: List[dict], base: dict, fn: Callable[[], List[dict]]) -> None:
    """Runs one case; its failure becomes a row with status 'error' (and the traceback's last line)."""
    try:
        rows.extend(fn())
    except Exception as e:  # one case failing must not hide the others
        tb = traceback.format_exc().strip().splitlines()
        print(f"  FAILED {base}: {type(e).__name__}: {e}", file=sys.stderr)
        rows.append({**base, "status": f"error: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}",
                     "where": tb[-3].strip() if len(tb) >= 3 else ""})


def write_results(path: Path, meta: dict, rows: List[dict]) -> Path:
    """JSON {meta, rows} at ``path`` and the rows (with the provenance columns) as CSV beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2, default=str) + "\n")
    csv_path = path.with_suffix(".csv")
    columns: List[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    prov = ["commit", "date", "gpu", "torch"]
    with csv_path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns + prov, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({**{k: _fmt(v) for k, v in row.items()}, **{k: meta.get(k, "") for k in prov}})
    return csv_path


def write_csv(path: Path, rows: List[dict]) -> None:
    """The rows as CSV at ``path`` (columns: the first row's keys); the diagnostics' output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def table(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """A plain-text table of ``columns`` (missing values: '—')."""
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _cell(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.3f}".rstrip("0").rstrip(".")
    return str(v)
