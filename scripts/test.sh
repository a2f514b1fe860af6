#!/usr/bin/env bash
# README command 2: build netdp with its tests and run them (CUDA tests skip when no GPU answers). With
# NETDP_SANITIZE=1, then the sanitizer stage (docs/reliability.md §5): an ASan + UBSan build, its unit, CLI and
# device-bodies tests and 30 s per fuzz target (scripts/sanitize.sh, docs/reliability.md §5; CI runs it
# after this script, .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
source scripts/generator.sh
cmake -S . -B build $(netdp_generator build) -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
echo "test.sh: build and tests done in $(($(date +%s) - started)) s"
if [ "${NETDP_SANITIZE:-0}" != 0 ]; then
  bash scripts/sanitize.sh build-sanitize
fi
echo "test.sh: done in $(($(date +%s) - started)) s"
