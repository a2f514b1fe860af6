#!/usr/bin/env bash
# README command 1: install netdp's dependencies (Debian/Ubuntu packages only), build, and run the built-in
# demo study (gossip loss by distance on four topologies, written to ./netdp-demo).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git libcli11-dev nlohmann-json3-dev libopenblas-dev liblapacke-dev
          libtomlplusplus-dev libssl-dev libboost-graph-dev libopenmpi-dev openmpi-bin libgtest-dev googletest
          python3-dev python3-numpy pybind11-dev python3-pytest python3-scipy python3-networkx python3-matplotlib
          python3-mpmath clang libclang-rt-dev ccache ninja-build)  # mpmath: high-precision references (tests/python,
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

# A new build directory uses Ninja when it is installed (scripts/generator.sh); an existing one keeps its generator.
source scripts/generator.sh
cmake -S . -B build $(netdp_generator build) -DCMAKE_BUILD_TYPE=Release
# Only what the demo and the Python package need (docs/reliability.md): the tests and the benchmarks are left to
# scripts/test.sh, which builds everything.
targets=(--target netdp_cli)
if cmake --build build --target help | grep -E '(^|\.\.\. )netdp_python(: phony)?$' >/dev/null; then
  targets+=(netdp_python)
fi
cmake --build build -j"$(nproc)" "${targets[@]}"
# The Python package (docs/python.md), when it was built: into Debian's python3 site directory
# (/usr/local/lib/python3.X/dist-packages), so that `python3 -c "import netdp"` works.
if compgen -G "build/python/netdp/_netdp*.so" >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo cmake --install build --component python
fi
./build/netdp demo --out netdp-demo
