#!/usr/bin/env bash
# CI stage (docs/reliability.md §5), run by scripts/test.sh after the normal tests: netdp built with
# AddressSanitizer + UndefinedBehaviorSanitizer (the system C++ compiler; CUDA, MPI, Python and benchmarks off),
# its unit, CLI and device-bodies tests, then each libFuzzer target for FUZZ_SECONDS (default 60) with
# scripts/fuzz.sh (Debian's clang; skipped with a note when clang++ is absent).
# Usage: scripts/sanitize.sh [BUILD_DIR, default build-sanitize]. Any sanitizer report fails the test at fault.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
started=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DNETDP_CUDA=OFF -DNETDP_MPI=OFF -DNETDP_PYTHON=OFF \
  -DNETDP_BUILD_BENCHMARKS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build" -j"$(nproc)"
# Leaks are reported too; OpenMP's and OpenBLAS's thread pools live until exit and are not leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OPENBLAS_NUM_THREADS=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -L "^(unit|cli|device-bodies)$"
echo "sanitize.sh: tests under ASan + UBSan done in $(($(date +%s) - started)) s"
if command -v "${CXX_FUZZ:-clang++}" >/dev/null; then
  FUZZ_BUILD_DIR=$PWD/$build/fuzz bash scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
else
  echo "sanitize.sh: no clang++: fuzz targets skipped (apt-get install -y clang)"
fi
echo "sanitize.sh: stage done in $(($(date +%s) - started)) s"
