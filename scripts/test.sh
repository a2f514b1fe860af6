#!/usr/bin/env bash
# README command 2: build netdp with its tests and run them (CUDA tests skip when no GPU answers).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
