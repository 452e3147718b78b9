#!/usr/bin/env bash
# The twenty-third session's device calls (docs/notes.md, "Twenty-third session").
#   GROUPS_=reg       the twenty-second session's decode regression (4096x14336 at 1-32 tokens; 1024x8192 at 32-64):
#                     build/ab/ladder-a (the build before, 9f0eb67) and HEAD in turn, and HEAD with two weight boxes
#   GROUPS_=early     small-M's early launch of the next grid: the build before and HEAD, HEAD with early=0
#   GROUPS_=tests / final / model  the GPU suite; check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry the binaries a group runs.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
WIDE="1x128256x4096,16x28672x8192,64x4096x4096,128x4096x4096,512x1024x4096,1x1024x4096,4x8192x8192"
REG="1x4096x14336,8x4096x14336,32x4096x14336,1x14336x4096,16x4096x4096,32x1024x8192,64x1024x8192,512x1024x8192"
# abx <name> <shapes> <tunes>: build/ab/ladder-a (before) and $B/ladder (after) benched in turn, a b b a, each with
# cuBLAS in its own interleaved run; the summary gives each run's median and its ratio to that run's cuBLAS.
abx() {
  local r bin
  for r in a1 b1 b2 a2; do
    bin=$B/ladder; [ ${r:0:1} = a ] && bin=build/ab/ladder-a
    T 250 "$bin" bench --steps best --shapes "$2" --tune "$3" --target-ms ${TMS:-20} --warmup-ms 10 --csv "$L/csv/$1-$r.csv" > "$L/$1-$r.log" 2>&1
  done
  python3 - "$L/csv/$1-"{a1,b1,b2,a2}.csv <<'P' | tee "$L/$1-summary.txt"
import csv, sys
rows = {}
for path in sys.argv[1:]:
    tag = path.rsplit('-', 1)[1][:2]
    for r in csv.DictReader(open(path)):
        rows.setdefault((int(r['m']), int(r['n']), int(r['k']), r['tune'] or 'auto'), []).append(
            (tag, float(r['median_ms'] or 'nan') * 1e3, float(r['cublas_median_ms'] or 'nan') * 1e3))
for (m, n, k, t), v in rows.items():
    cells = " ".join(f"{tag}={us:.1f}({cb / us:.3f})" for tag, us, cb in v)
    print(f"{m:>3}x{n:>6}x{k:>5} {t:<10} {cells}")
P
}
session_group() {
  case $1 in
    reg)
      abx reg "$REG" ""
      ab regw "$REG" ";wbox=2" ;;
    early)  # the next grid's launch from the CTA's start (early=1, auto) or after its loads (early=0, 978d330-fb1244b)
      T 150 "$B/ladder" check --steps h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      abx early "$REG,$WIDE" ""
      ab early01 "$REG,$WIDE" ";early=0" ;;
    *) common_group "$1" ;;  # tests, final, model
  esac
}
run_groups
