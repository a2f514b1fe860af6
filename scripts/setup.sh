#!/usr/bin/env bash
# README command 1: install netdp's dependencies (Debian/Ubuntu packages only), build, and run the built-in
# demo study (gossip loss by distance on four topologies, written to ./netdp-demo).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git libcli11-dev nlohmann-json3-dev libopenblas-dev liblapacke-dev
          libtomlplusplus-dev libssl-dev libopenmpi-dev openmpi-bin libgtest-dev googletest)
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
./build/netdp demo --out netdp-demo
