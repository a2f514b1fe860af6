#!/usr/bin/env bash
# README command 2: build netdp with its tests and run them (CUDA tests skip when no GPU answers).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The sanitizer stage (docs/reliability.md §5): ASan + UBSan build, its unit, CLI and device-bodies tests and 60 s
# per fuzz target. Opt-in until its time within CI's 90 minutes is measured: NETDP_SANITIZE=1 bash scripts/test.sh
if [ "${NETDP_SANITIZE:-0}" = 1 ]; then
  bash scripts/sanitize.sh build-sanitize
fi
