O=$OUT; mkdir -p $O/l
export LD_LIBRARY_PATH=$PWD/build/release LADDER_LIBRARY=$PWD/build/release/libladder.so PYTHONUNBUFFERED=1 CI=1
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $O/l/pytest.log 2>&1; tail -3 $O/l/pytest.log
timeout 120 python3 scripts/host_overhead.py --out $O/host.csv > $O/l/host.log 2>&1; grep "us/call" $O/l/host.log
timeout 120 build/release/ladder bench --steps best --shapes 4096x4096x4096,8192x8192x8192,2048x16384x4096,1024x4096x4096,8191x8191x8191 --target-ms 80 --warmup-ms 20 --csv $O/std.csv > $O/l/std.log 2>&1; tail -8 $O/l/std.log | cut -c1-120
OUT=$O/t SECTIONS=torch bash scripts/h200_verify.sh 2>&1 | grep -E "speedup|pass|agree|graph_breaks" | cut -c1-150
tar czf $O/logs.tgz -C $O l && rm -rf $O/l
