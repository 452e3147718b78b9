#!/usr/bin/env bash
# The twenty-third session's device calls (docs/notes.md, "Twenty-third session").
#   GROUPS_=reg       the twenty-second session's decode regression (4096x14336 at 1-32 tokens; 1024x8192 at 32-64):
#                     build/ab/ladder-a (the build before, 9f0eb67) and HEAD in turn, and HEAD with two weight boxes
#   GROUPS_=early     small-M's early launch of the next grid: the build before and HEAD, HEAD with early=0 (9519c69;
#                     the key went with its revert, 3c3c4df)
#   GROUPS_=probe / probecheck / pdl0 / psuite  the LADDER_PROBE variants of calls 3-7 (their code:
#                     docs/results/dev/2026-12-05-s23/probe.patch)
#   GROUPS_=prodrev   HEAD (lane 0 alone issues for the tiles of up to 32 tokens) against fb1244b (the whole warp for
#                     every tile; rebuilt into build/ab/ladder-h), a b b a; then wbox=2 on HEAD
#   GROUPS_=verify    best's check suites, small-M with wbox=2, the sanitizers on small-M shapes, the GPU tests
#   GROUPS_=tests / final / model  the GPU suite; check suites and the three suites re-benched; the Llama model
# Build here (cmake --preset release && cmake --build --preset release), carry the binaries a group runs.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
WIDE="1x128256x4096,16x28672x8192,64x4096x4096,128x4096x4096,512x1024x4096,1x1024x4096,4x8192x8192"
MID="128x4096x4096,512x1024x4096,128x4096x14336,4x8192x8192"
REG="1x4096x14336,8x4096x14336,32x4096x14336,1x14336x4096,16x4096x4096,32x1024x8192,64x1024x8192,512x1024x8192"
session_group() {
  case $1 in
    reg)
      abx reg "$REG" ""
      ab regw "$REG" ";wbox=2" ;;
    early)  # the next grid's launch from the CTA's start (early=1, auto) or after its loads (early=0, 978d330-fb1244b)
      T 150 "$B/ladder" check --steps h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      abx early "$REG,$WIDE" ""
      ab early01 "$REG,$WIDE" ";early=0" ;;
    probecheck)
      LADDER_PROBE=64 T 150 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/check-smallm-64.log" 2>&1; tail -1 "$L/check-smallm-64.log" ;;
    probe)  # the producer's wait (bit 1: the elected lane alone) and byte-count order (bit 2: before the loads), with the build before
      local r bin
      for r in ${PROBES:-a 0 1 2 3 3b 2b 1b 0b ab}; do
        bin=$B/ladder; [ ${r:0:1} = a ] && bin=build/ab/ladder-a
        LADDER_PROBE=${r%b} T 250 "$bin" bench --steps best --shapes "$REG,$MID" --target-ms ${TMS:-20} --warmup-ms 10 --csv "$L/csv/probe-$r.csv" > "$L/probe-$r.log" 2>&1
      done
      python3 - "$L"/csv/probe-*.csv <<'P' | tee "$L/probe-summary.txt"
import csv, sys, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    tag = path.rsplit('-', 1)[1].split('.')[0].rstrip('b') or 'a'
    for r in csv.DictReader(open(path)):
        rows[(int(r['m']), int(r['n']), int(r['k']))][tag].append(float(r['median_ms']) * 1e3)
        rows[(int(r['m']), int(r['n']), int(r['k']))]['cublas'].append(float(r['cublas_median_ms']) * 1e3)
for key, v in rows.items():
    print("%4dx%6dx%5d " % key + " ".join(f"{t}=" + "/".join(f"{x:.1f}" for x in xs) for t, xs in sorted(v.items())))
P
      ;;
    pdl0)  # both builds without PDL (pdl=0), then ncu of one launch of each at two regressed shapes
      abx pdl0 "$REG" "pdl=0"
      local bin shape
      for bin in build/ab/ladder-a $B/ladder; do
        for shape in 1x4096x14336 32x1024x8192; do
          T 120 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
            -k "regex:small_m" --launch-skip 5 --launch-count 1 "$bin" bench --steps best --shapes "$shape" --target-ms 2 \
            --warmup-ms 1 > "$L/ncu-$(basename $bin)-$shape.txt" 2>&1
          echo "$(basename $bin) $shape: $(grep -E '^ +(Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|Warp Cycles Per Issued)' "$L/ncu-$(basename $bin)-$shape.txt" | awk '{print $1,$2,$(NF)}' | tr '\n' ';')"
        done
      done ;;
    psuite)  # two probe values over the decode suite and the mid-M rows, p q q p
      local r
      for r in ${PQ:-0 8 8b 0b}; do
        LADDER_PROBE=${r%b} T 280 "$B/ladder" bench --steps best --suite decode --target-ms ${TMS:-12} --warmup-ms 5 --csv "$L/csv/ps-$r.csv" > "$L/ps-$r.log" 2>&1
      done
      python3 - "$L"/csv/ps-*.csv <<'P' | tee "$L/psuite-summary.txt"
import csv, sys, math, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    tag = path.rsplit('-', 1)[1].split('.')[0].rstrip('b')
    for r in csv.DictReader(open(path)):
        t[(int(r['m']), int(r['n']), int(r['k']))][tag].append((float(r['median_ms']) * 1e3, float(r['cublas_median_ms']) * 1e3))
tags = sorted({g for v in t.values() for g in v})
geo = {g: [] for g in tags}
for key, v in sorted(t.items()):
    cells = []
    for g in tags:
        us = sum(x for x, _ in v[g]) / len(v[g]); cb = sum(c for _, c in v[g]) / len(v[g])
        geo[g].append(math.log(cb / us)); cells.append(f"{g}={us:.1f}({cb/us:.3f})")
    print("%4dx%6dx%5d " % key + " ".join(cells))
print("geomean vs cuBLAS: " + " ".join(f"{g}={math.exp(sum(x)/len(x)):.4f}" for g, x in geo.items()))
P
      ;;
    prodrev)  # HEAD (b) against fb1244b (a: build/ab/ladder-h)
      T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
      T 100 "$B/ladder" check --steps best --suite decode --seeds 1 > "$L/check-decode.log" 2>&1; tail -1 "$L/check-decode.log"
      AB_A=build/ab/ladder-h abx prodrev "$REG,$MID,256x4096x4096,2x4096x4096,64x4096x4096,256x1024x4096,128x8192x8192,16x14336x4096,64x28672x8192" ""
      ab prodwbox "32x1024x8192,64x1024x8192,1x1024x8192,16x1024x8192,32x1024x4096,1x4096x14336,128x4096x4096" ";wbox=2" ;;
    *) common_group "$1" ;;  # tests, verify, final, model
  esac
}
run_groups
