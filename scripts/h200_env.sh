# Sourced by the h200_* device scripts: the build, $OUT and its logs folder, the library's environment, the commit
# stamp, T (a command under a timeout, failures listed in logs/failures.txt), the GPU's state, and the decode layers.
B=${LADDER_BUILD:-build/release}
OUT=${OUT:-/tmp/ladder-out}
L=$OUT/logs; mkdir -p "$L"
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-} LADDER_LIBRARY=$PWD/$B/libladder.so CI=1 PYTHONUNBUFFERED=1
export LADDER_COMMIT=$(sed -n 's/.*LADDER_GIT_COMMIT "\(.*\)".*/\1/p' "$B/generated/ladder_version.hpp" 2>/dev/null)
# T returns the command's status (the scripts run without set -e: a failure is logged and the next command runs).
T() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; [ $rc -ne 0 ] && echo "!! rc=$rc: $*" | tee -a "$L/failures.txt"; return $rc; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$L/gpu.txt" 2>&1
echo "commit $LADDER_COMMIT" >> "$L/gpu.txt"
LAYERS=${LAYERS:-"4096x4096 1024x4096 14336x4096 4096x14336 128256x4096 8192x8192 1024x8192 28672x8192 8192x28672"}
shapes() { local s=""; for m in $1; do for l in $LAYERS; do s="$s,${m}x$l"; done; done; echo "${s#,}"; }
# One line a shape: cuBLAS, the floor and every candidate's median (µs) of a `ladder bench --tune` CSV.
summary() {
  python3 - "$@" <<'P'
import csv, sys
by = {}
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)): by.setdefault((int(r['m']), int(r['n']), int(r['k'])), []).append(r)
for key, rs in by.items():
    cells = " ".join(f"{(r['tune'] or 'auto')}={float(r['median_ms'] or 'nan')*1e3:.1f}" for r in rs)
    print(f"{key[0]:>3}x{key[1]:>6}x{key[2]:>5} cublas={float(rs[0]['cublas_median_ms'] or 'nan')*1e3:.1f} floor={float(rs[0]['floor_ms'] or 'nan')*1e3:.1f} {cells}")
P
}
# ab <name> <shapes> <candidates "a;b;…">: `ladder bench --tune` over the shapes in two rounds, the second in reverse
# candidate order (CSVs in logs/csv/<name>-{1,2}.csv), then the summary (logs/<name>-summary.txt). $AB_BIN: the binary
# (default $B/ladder).
ab() {
  local rev=$(echo "$3" | tr ';' '\n' | tac | paste -sd';') r
  mkdir -p "$L/csv"
  for r in 1 2; do
    T 250 "${AB_BIN:-$B/ladder}" bench --steps best --shapes "$2" --tune "$([ $r = 1 ] && echo "$3" || echo "$rev")" \
      --target-ms ${TMS:-20} --warmup-ms 10 --csv "$L/csv/$1-$r.csv" > "$L/$1-$r.log" 2>&1
  done
  summary "$L/csv/$1-1.csv" "$L/csv/$1-2.csv" | tee "$L/$1-summary.txt"
}
# abx <name> <shapes> <tunes>: $AB_A (before; default build/ab/ladder-a) and $AB_B (after; default $B/ladder) benched in
# turn, a b b a, each with cuBLAS in its own interleaved run; the summary gives each run's median, its ratio to that
# run's cuBLAS and, where the CSV has it, the host's time a call (h, µs).
abx() {
  local r bin
  for r in a1 b1 b2 a2; do
    bin=${AB_B:-$B/ladder}; [ ${r:0:1} = a ] && bin=${AB_A:-build/ab/ladder-a}
    T 250 "$bin" bench --steps best --shapes "$2" --tune "$3" --target-ms ${TMS:-20} --warmup-ms 10 --csv "$L/csv/$1-$r.csv" > "$L/$1-$r.log" 2>&1
  done
  python3 - "$L/csv/$1-"{a1,b1,b2,a2}.csv <<'P' | tee "$L/$1-summary.txt"
import csv, sys
rows = {}
for path in sys.argv[1:]:
    tag = path.rsplit('-', 1)[1][:2]
    for r in csv.DictReader(open(path)):
        rows.setdefault((int(r['m']), int(r['n']), int(r['k']), r['tune'] or 'auto'), []).append(
            (tag, float(r['median_ms'] or 'nan') * 1e3, float(r['cublas_median_ms'] or 'nan') * 1e3,
             f"h{float(r['host_us']):.1f}" if r.get('host_us') else ""))
for (m, n, k, t), v in rows.items():
    cells = " ".join(f"{tag}={us:.1f}({cb / us:.3f}){h}" for tag, us, cb, h in v)
    print(f"{m:>3}x{n:>6}x{k:>5} {t:<10} {cells}")
P
}
# knob_ab <key> <a> <b> <shapes> <seconds>: LADDER_TUNE <key>=<a> against <key>=<b> (an epilogue switch of best's), the
# fused GEMMs' cost over the plain one at <shapes> (scripts/epilogue_cost.py) in rounds a b b a, then issue 12's MLP
# under each (no compile baselines). CSVs and JSONs in logs/csv/epicost-<key><v>*.csv, logs/torch-<key><v>.json.
knob_ab() {
  local key=$1 r v
  for r in "$2" "$3" "$3b" "$2b"; do
    v=${r%b}
    LADDER_TUNE=$key=$v T "$5" python3 scripts/epilogue_cost.py --out "$L/csv/epicost-$key$r.csv" --dtypes float16,bfloat16 \
      --shapes "$4" --impls cublas,plain,residual > "$L/epicost-$key$r.log" 2>&1
    echo "$key=$r"; grep -E "residual|plain" "$L/epicost-$key$r.log" | cut -c1-100
  done
  for v in "$2" "$3"; do
    LADDER_TUNE=$key=$v T 250 python3 scripts/torch_bench.py --no-compile --cases mlp --out "$L/torch-$key$v.json" > "$L/torch-$key$v.log" 2>&1
    echo "torch $key=$v"; tail -8 "$L/torch-$key$v.log" | cut -c1-150
  done
}
# best's check suites (2 seeds) and the small-M suite through h12, h13 and best: one line each.
check_suites() {
  local su
  for su in sweep decode standard fewtile prefill; do
    T 100 "$B/ladder" check --steps best --suite $su --seeds 2 > "$L/check-$su.log" 2>&1; echo "check $su: $(tail -1 "$L/check-$su.log")"
  done
  T 150 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 2 > "$L/check-smallm.log" 2>&1; tail -1 "$L/check-smallm.log"
}
# The decode, few-tile, standard and prefill suites benched with the same-run floor (CSVs in $OUT); $1: target ms a shape. The
# decode suite also isolated (pdl=0: no overlap with the call before; scripts/decode_report.py's "isolated" column).
bench_suites() {
  local O="--target-ms ${1:-60} --warmup-ms 30"
  T 280 "$B/ladder" bench --steps best --suite decode --tune ";pdl=0" $O --csv "$OUT/bench-decode.csv" > "$L/bench-decode.log" 2>&1
  T 60 "$B/ladder" bench --steps best --suite fewtile $O --csv "$OUT/bench-fewtile.csv" > "$L/bench-fewtile.log" 2>&1
  T 100 "$B/ladder" bench --steps best --suite standard $O --csv "$OUT/bench-standard.csv" > "$L/bench-standard.log" 2>&1
  T 150 "$B/ladder" bench --steps best --suite prefill $O --csv "$OUT/bench-prefill.csv" > "$L/bench-prefill.log" 2>&1
  tail -7 "$L/bench-fewtile.log" | cut -c1-110
}
# The full GPU test suite under a timeout of $1 s (default 240): its PASSED/FAILED lines.
gpu_tests() {
  T "${1:-240}" "$B/tests/ladder_tests" > "$L/tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests.log" | head -12
}
# The Llama-architecture model through ladder (scripts/llama_model.py, parts $PARTS): its JSON and CSV in $OUT.
llama_model() {
  T 300 python3 scripts/llama_model.py --parts ${PARTS:-fp16,bf16} --out "$OUT/llama-model.json" > "$L/llama-model.log" 2>&1
  tail -30 "$L/llama-model.log"
}
# ncu_pingpong_epilogue <dir>: ncu source counters on the ping-pong's plain and bias copies at 2048×16384×4096 fp16
# (LADDER_TUNE kernel=pingpong, the third launch): per-SASS stall samples (<dir>/epi-{none,bias}-sass.csv) and details.
ncu_pingpong_epilogue() {
  local d=$1 act
  mkdir -p "$d"
  for act in none bias; do
    PYTHONPATH=$PWD/python LADDER_TUNE=kernel=pingpong T 200 ncu --clock-control none --section SourceCounters \
      --section WarpStateStats --section SpeedOfLight --import-source yes -k "regex:pingpong" --launch-skip 2 \
      --launch-count 1 -f -o "$d/epi-$act" python3 -c "
import torch, ladder
x = torch.randn(2048, 4096, device='cuda', dtype=torch.float16); w = torch.randn(16384, 4096, device='cuda', dtype=torch.float16)
b = torch.randn(16384, device='cuda', dtype=torch.float16)
for _ in range(4): ladder.linear(x, w, b if '$act' == 'bias' else None)
torch.cuda.synchronize()" > "$L/ncu-epi-$act.log" 2>&1
    ncu -i "$d/epi-$act.ncu-rep" --page source --csv --print-source sass > "$d/epi-$act-sass.csv" 2>&1
    ncu -i "$d/epi-$act.ncu-rep" --page details --print-details all > "$d/epi-$act-details.txt" 2>&1
    grep -E "Duration|Elapsed Cycles|Warp Cycles Per Issued" "$d/epi-$act-details.txt" | head -4 | sed "s/^/$act: /"
    rm -f "$d/epi-$act.ncu-rep"
  done
}
# ncu_compare <dir> <shape> <name:LADDER_TUNE:kernel filter>...: ncu (source counters, warp states, memory, launch) of
# one launch of each kernel at the shape; the SASS source page (gzipped CSV) and the details page in logs/<dir>/.
ncu_compare() {
  local dir=$1 shape=$2 v name tune kfilt kre d
  shift 2
  mkdir -p "$L/$dir"
  for v in "$@"; do
    IFS=: read -r name tune kfilt kre <<< "$v"
    d="$L/$dir/$name"
    LADDER_TUNE=$tune T 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section LaunchStats -k "$kfilt:$kre" --launch-skip 2 --launch-count 1 -f -o "$d" \
      "$B/ladder" bench --steps best --shapes "$shape" --target-ms 1 --warmup-ms 1 > "$d.log" 2>&1
    ncu -i "$d.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip > "$d-sass.csv.gz"
    ncu -i "$d.ncu-rep" --page details --print-details all > "$d-details.txt" 2>&1
    echo "$name: $(grep -E 'Duration|Grid Size|DRAM Throughput|L2 Cache Throughput|Warp Cycles Per Issued' "$d-details.txt" | head -5 | tr -s ' ' | tr '\n' '|')"
    rm -f "$d.ncu-rep"
  done
}
# sanitize <tag> <shapes>: compute-sanitizer memcheck, racecheck and synccheck over `ladder check --steps h12,best` on
# the shapes (under the LADDER_TUNE in force), one line each (logs/sanitize-<tag>-<tool>.log). memcheck runs with its
# bulk-copy check off (it flags every bulk copy to a mapa address: small-M's push, and ladder_cluster_probe's; see
# small_m.cuh), then in full with the partials pulled (post=1, no bulk copies): memcheck-pull.
sanitize() {
  local tool
  for tool in memcheck racecheck synccheck memcheck-pull; do
    local opts="--tool ${tool%-pull}" tune=${LADDER_TUNE:-}
    [ $tool = memcheck ] && opts="$opts --check-bulk-copy no"
    [ $tool = memcheck-pull ] && tune="${tune:+$tune,}post=1"
    LADDER_TUNE=$tune T 150 compute-sanitizer $opts --error-exitcode 9 "$B/ladder" check --steps h12,best --shapes "$2" \
      --seeds 1 > "$L/sanitize-$1-$tool.log" 2>&1
    echo "$1 $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$L/sanitize-$1-$tool.log" | tr '\n' ' ')"
  done
}
# The groups every session script (h200_s15.sh on) shares, after its own: tests (the GPU suite), verify (best's check
# suites, small-M with two weight boxes, the sanitizers on small-M shapes, the GPU suite), final (best's check suites,
# then the three suites re-benched: their CSVs come back in $OUT), model (the Llama model) and resc2 (resc=1's test,
# cost and MLP).
common_group() {
  case $1 in
    tests) gpu_tests 240 ;;
    verify)
      check_suites
      LADDER_TUNE=wbox=2 T 100 "$B/ladder" check --steps h12,h13,best --suite smallm --seeds 1 > "$L/check-smallm-wbox2.log" 2>&1; echo "wbox=2: $(tail -1 "$L/check-smallm-wbox2.log")"
      sanitize main 64x8192x256,1x1024x4096,8x4096x4096,40x344x1032,100x1000x520,512x1024x4096,512x4096x1024
      gpu_tests 240 ;;
    final) check_suites; bench_suites ${TMS:-60} ;;
    model) llama_model ;;
    resc2)  # resc=1 (best's residual GEMM with its whole C early): its GPU test, its cost at 2048x16384x4096, the MLP
      T 120 "$B/tests/ladder_tests" --gtest_filter='Cooperative.WholeResidualEarlyGivesTheSameBits' > "$L/tests-resc.log" 2>&1
      grep -E "OK|FAILED|PASSED" "$L/tests-resc.log" | tail -3
      knob_ab resc 0 1 2048x16384x4096 150 ;;  # predicted: the residual's +4.3 % to ~+1 % (measured: +5.4-6.4 %)
    *) echo "unknown group $1" ;;
  esac
}
# Runs each group of $GROUPS_ (default: tests) through the script's session_group, then tars the logs into $OUT.
run_groups() {
  local g
  for g in ${GROUPS_:-tests}; do
    echo "== $g $(date -u +%T)"
    session_group "$g"
  done
  tar czf "$OUT/logs.tgz" -C "$OUT" logs
}
