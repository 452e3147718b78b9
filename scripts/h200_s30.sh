#!/usr/bin/env bash
# The thirtieth session's device calls (docs/notes.md, "Thirtieth session"); other groups run through h200_s29.sh and
# h200_s28.sh (GROUPS_ as there, one at a time):
#   GROUPS_=mc64   the 64×64 tile's weights multicast to two token tiles (LADDER_TUNE wg=1,mc=2; cuBLAS's k/v kernel is
#                  this geometry: 64×64 tiles, 128 CTAs, clusters of 2): its GPU test, the check suite forced, the
#                  suite's shapes a b b a against best and the unicast 64×64 tile, and k/v in the model's context.
#                  Predicted (L2's output: 128 → 96 MB read out of L2 at 512×1024×4096): 15.3 → ~12 µs at the 64×64 tile
#   GROUPS_=pdlab  the flushed suite's rows with PDL off (pdl=0) against best: does the flush kernel's overlap flatter
#                  small-M there (the suite's 14.6 µs at 512×1024×4096 against 18.4 under ncu)?
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    mc64)
      T 200 "$B/tests/ladder_tests" --gtest_filter='SmallM.Multicast*' > "$L/mc64-tests.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|differ" "$L/mc64-tests.log" | head -12
      LADDER_TUNE=wg=1,mc=2 T 150 "$B/ladder" check --steps best --suite smallm --seeds 1 > "$L/mc64-check-smallm.log" 2>&1
      echo "wg=1,mc=2 smallm: $(tail -1 "$L/mc64-check-smallm.log")"
      ab mc64 "512x1024x4096,384x1024x4096,256x1024x4096,128x1024x4096,512x1024x2048,128x4096x4096,256x2048x4096,128x2048x4096,512x1024x3072" \
        ";wg=1,mc=1;wg=1,mc=2"
      GROUPS_=pctx PCTX=";wg=1,mc=1;wg=1,mc=2;;wg=1,mc=2" PLAYERS=k/v bash "$(dirname "$0")/h200_s29.sh" | grep -v "^==" ;;
    pdlab)
      ab pdl "512x1024x4096,256x1024x4096,512x1024x8192,1x4096x4096,8x1024x8192,128x4096x4096" ";pdl=0" ;;
    ncu64)  # L2's sectors against the bytes delivered to the SMs, per kernel, for the k/v linear in the model's context:
            # best's pick, the 64×64 tile unicast and multicast (LADDER_TUNE per process), and cuBLAS (nvjet, 64×64 tiles,
            # clusters of 2). ncu at call 6 of the twenty-ninth session: cuBLAS's SMs received 134 MB for 55 MB of L2
            # sectors (2.45×), ours 101 MB for 93 MB: more than a 2-CTA multicast of one operand (1.33×) explains.
      local t i=0 m="gpu__time_duration.sum,lts__t_sectors.sum,lts__t_requests.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,launch__grid_size"
      local tunes; IFS=';' read -ra tunes <<< "${NCU_TUNES:-;wg=1,mc=1;wg=1,mc=2}"
      for t in "${tunes[@]}"; do
        i=$((i + 1))
        LADDER_TUNE=$t PYTHONPATH=$PWD/python T 200 ncu --cache-control none --clock-control none --metrics "$m" \
          -k "regex:nvjet|small_m" --launch-skip 12 --launch-count 16 --csv --page raw python3 scripts/context_gemm.py \
          > "$L/ncu64-$i.csv" 2> "$L/ncu64-$i.err"
        python3 - "$L/ncu64-$i.csv" "${t:-auto}" <<'Q'
import csv, io, sys
text = open(sys.argv[1]).read()
start = text.find('"ID"')
rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
by = {}
for r in rows[1:]:
    kern = "cublas" if "nvjet" in r.get("Kernel Name", "") else "ladder"
    by.setdefault(kern, []).append(r)
for kern, rs in by.items():
    def med(col):
        v = sorted(float(x[col].replace(",", "")) for x in rs if x.get(col, "") not in ("", "n/a"))
        return v[len(v) // 2] if v else float("nan")
    u = rows[0]
    print("units:", u.get("gpu__time_duration.sum"), u.get("lts__t_sectors.sum"), u.get("l1tex__m_xbar2l1tex_read_bytes.sum"))
    t_us = med("gpu__time_duration.sum") / (1e3 if u.get("gpu__time_duration.sum") == "nsecond" else 1)
    sec, req, xb = med("lts__t_sectors.sum"), med("lts__t_requests.sum"), med("l1tex__m_xbar2l1tex_read_bytes.sum")
    print(f"[{sys.argv[2]}] {kern:6s} {t_us:6.1f} us grid {med('launch__grid_size'):.0f} L2 sectors {sec * 32 / 1e6:6.1f} MB "
          f"reqs {req / 1e3:.0f}k fabric {med('lts__t_requests_srcunit_ltcfabric.sum') / 1e3:.0f}k read {med('lts__t_sectors_srcunit_tex_op_read.sum') * 32 / 1e6:.1f} MB "
          f"hit {med('lts__t_sectors_lookup_hit.sum') * 32 / 1e6:.1f} miss {med('lts__t_sectors_lookup_miss.sum') * 32 / 1e6:.1f} MB "
          f"to SMs {xb:.1f} (unit as ncu) n={len(rs)}")
Q
        tail -3 "$L/ncu64-$i.err"
      done ;;
    pdlsuite)  # the decode suite with every launch isolated (pdl=0) beside best's chained launches, one round
      T 200 "$B/ladder" bench --steps best --suite decode --tune ";pdl=0" --target-ms 20 --warmup-ms 10 \
        --csv "$OUT/bench-decode-pdl.csv" > "$L/bench-decode-pdl.log" 2>&1; tail -3 "$L/bench-decode-pdl.log" ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s29.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
