#!/usr/bin/env bash
# Installs what ladder's build and tests need, only what is missing (Debian 12, as root; CUDA 13 is expected
# at /usr/local/cuda). Safe to run again: every install step first checks whether it is needed.
# Used by the README's two commands and by .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
export DEBIAN_FRONTEND=noninteractive

say() { echo "== setup: $*"; }

if ! command -v nvcc >/dev/null; then
  echo "setup: nvcc not found (expected CUDA 13 at /usr/local/cuda)" >&2
  exit 1
fi

# Debian packages: the first missing one triggers a single apt-get update.
apt_updated=no
apt_install() {
  if [ "$apt_updated" = no ]; then
    say "apt-get update"
    apt-get update -qq
    apt_updated=yes
  fi
  say "apt-get install $*"
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
need_pkgs=()
for pkg in cmake ninja-build g++ libcli11-dev libgtest-dev python3 git; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$pkg")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then apt_install "${need_pkgs[@]}"; fi

# Python test tools, for the python3 on PATH (the one CMake's FindPython3 finds): pip first, then Debian's
# packages (which serve /usr/bin/python3). pytest is required; matplotlib only un-skips the plot tests.
py_has() { python3 -c "import $1" 2>/dev/null; }
py_get() {  # module pip-name debian-package
  py_has "$1" && return 0
  say "installing $2 for $(command -v python3)"
  python3 -m pip install -q --disable-pip-version-check "$2" 2>/dev/null \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages "$2" 2>/dev/null \
    || apt_install "$3" || true
  py_has "$1"
}
py_get pytest pytest python3-pytest || { echo "setup: cannot install pytest" >&2; exit 1; }
py_get matplotlib matplotlib python3-matplotlib || say "matplotlib unavailable: the plot tests will skip"

# The CuTe headers of CUTLASS 4.2 (pip package nvidia-cutlass, under cutlass_library/source/include), for the
# test that compares our descriptor encoders with CuTe's (tests/cute.cmake finds them through python3).
# Test-only and pinned: the test was written against these headers. --no-deps: only the headers are used, not
# the package's Python code (numpy, scipy, cuda-python, ...).
cutlass_pin=4.2.0.0
have_cutlass() {
  python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('nvidia-cutlass') != '$cutlass_pin')" 2>/dev/null
}
if ! have_cutlass; then
  say "installing nvidia-cutlass==$cutlass_pin (headers only) for $(command -v python3)"
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  python3 -m pip install -q --disable-pip-version-check --no-deps "nvidia-cutlass==$cutlass_pin" 2>/dev/null \
    || python3 -m pip install -q --disable-pip-version-check --no-deps --break-system-packages "nvidia-cutlass==$cutlass_pin" \
    || true
  have_cutlass || { echo "setup: cannot install nvidia-cutlass==$cutlass_pin (the CuTe headers)" >&2; exit 1; }
fi

say "cmake $(cmake --version | head -1 | cut -d' ' -f3), $(nvcc --version | tail -1), $(python3 --version)"
