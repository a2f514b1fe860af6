#!/usr/bin/env bash
# README command 1: install netdp's dependencies (Debian/Ubuntu packages only), build, and run the built-in
# demo study (gossip loss by distance on four topologies, written to ./netdp-demo).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git libcli11-dev nlohmann-json3-dev libopenblas-dev liblapacke-dev
          libtomlplusplus-dev libssl-dev libboost-graph-dev libopenmpi-dev openmpi-bin libgtest-dev googletest
          python3-dev python3-numpy pybind11-dev python3-pytest python3-scipy python3-networkx python3-matplotlib
          python3-mpmath python3-pandas python3-venv clang libclang-rt-dev ccache ninja-build)  # pandas: tables as
          # DataFrames (docs/python.md "Tables"); venv: the Python package's virtual environments
          # (scripts/python_env.sh); mpmath: high-precision references (tests/python,
          # tests/data/gdp_reference.py); clang: the fuzz targets (scripts/sanitize.sh); ccache: rebuilds; ninja:
          # builds all layers at once (docs/reliability.md §5 "Compile time")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python package (docs/python.md "Installation"): `pip install .` for the python3 on PATH (the active virtual
# environment, else python3 itself when pip may install there, else a .venv in the clone: scripts/python_env.sh),
# with the optional libraries the examples and the tests use. It runs first: the wheel's build (build-wheel/)
# compiles the library, and the build below finds its objects in ccache.
source scripts/python_env.sh
python=$(netdp_install_python)
netdp_pip "$python" ".[all,test]"

# A new build directory uses Ninja when it is installed (scripts/generator.sh); an existing one keeps its generator.
# Its Python module is built for the same interpreter, so that it too comes from the cache.
source scripts/generator.sh
cmake -S . -B build $(netdp_generator build) -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$python"
# Only what the demo and the build tree's Python package need (docs/reliability.md): the tests and the benchmarks
# are left to scripts/test.sh, which builds everything.
targets=(--target netdp_cli)
if cmake --build build --target help | grep -E '(^|\.\.\. )netdp_python(: phony)?$' >/dev/null; then
  targets+=(netdp_python)
fi
cmake --build build -j"$(nproc)" "${targets[@]}"
./build/netdp demo --out netdp-demo
if [ "$python" = "$PWD/.venv/bin/python3" ]; then
  echo "setup.sh: netdp is installed in .venv: . .venv/bin/activate && python3 -c \"import netdp\""
else
  echo "setup.sh: netdp is installed for $python: python3 -c \"import netdp\""
fi
