#!/usr/bin/env bash
# ladder's own host path a call (checks, best's choice, the plan, the tensor maps, the launch arguments), timed on
# this machine's CPU with no GPU: libladder runs against tools/host_path/fake_cudart.cpp, a stand-in runtime that
# answers as an H100/H200 and launches nothing. The driver's time (the launch itself, tensor-map encoding) is not in
# these figures. Needs a release build (build/release/libladder.so).
#
#   bash scripts/host_path_cpu.sh [--calls N] [MxNxK ...]      # CSV on stdout
#   PERF=1 bash scripts/host_path_cpu.sh 1x1024x4096          # and a perf profile of the calls
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
out=build/host_path
mkdir -p "$out"

g++ -O2 -shared -fPIC -std=c++17 -I/usr/local/cuda/include -Wl,--version-script=tools/host_path/cudart.map \
  -Wl,-soname,libcudart.so.13 -o "$out/libcudart.so.13" tools/host_path/fake_cudart.cpp
g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include -o "$out/host_path" tools/host_path/host_path.cpp \
  -Lbuild/release -l:libladder.so.0 -Wl,-rpath-link,"$out" -L"$out" -l:libcudart.so.13
export LD_LIBRARY_PATH="$PWD/$out:$PWD/build/release"
if [[ "${PERF:-0}" == 1 ]]; then
  perf record -q -g -o "$out/perf.data" "$out/host_path" "$@" && perf report -i "$out/perf.data" --no-children --stdio 2>/dev/null | head -80
else
  "$out/host_path" "$@"
fi
