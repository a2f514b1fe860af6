#!/usr/bin/env bash
# CI stage (docs/reliability.md §5), run by scripts/test.sh after the normal tests: netdp built with
# AddressSanitizer + UndefinedBehaviorSanitizer at -O1 (the system C++ compiler; CUDA, MPI, Python and
# benchmarks off), only the test programs of the labels unit, cli and device-bodies and the CLI they call, those
# tests, then each libFuzzer target for FUZZ_SECONDS (default 30) with scripts/fuzz.sh (Debian's clang; skipped
# with a note when clang++ is absent).
# Usage: scripts/sanitize.sh [BUILD_DIR, default build-sanitize]. Any sanitizer report fails the test at fault.
# SANITIZE_TESTS=REGEX runs only the ctest names matching REGEX (ctest -R), e.g. while fixing one finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
started=$(date +%s)
# NETDP_SANITIZE (CMakeLists.txt): the library, the kernels, the netdp program and the device-body tests
# instrumented at -O1; the unit and CLI test programs compiled as in the Release build of scripts/test.sh (their
# objects come from ccache) and linked with the sanitizers' runtime.
source scripts/generator.sh
cmake -S . -B "$build" $(netdp_generator "$build") -DCMAKE_BUILD_TYPE=Release -DNETDP_SANITIZE=ON \
  -DNETDP_CUDA=OFF -DNETDP_MPI=OFF -DNETDP_PYTHON=OFF -DNETDP_BUILD_BENCHMARKS=OFF
# The test programs of the three labels (tests/CMakeLists.txt: tests/unit, tests/cli, tests/backend/*_bodies and
# the CUDA suites built for the emulated device), not the GPU suites nor the examples.
targets=(netdp_cli)
for source in tests/unit/test_*.cpp tests/cli/test_*.cpp tests/backend/test_*_bodies.cpp; do
  targets+=("$(basename "$source" .cpp)")
done
while read -r target; do targets+=("$target"); done < <(cmake --build "$build" --target help |
  sed -n -E 's/^(\.\.\. )?(test_[a-z_]*_emulated)(: phony)?$/\2/p')
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
echo "sanitize.sh: ${#targets[@]} targets built under ASan + UBSan in $(($(date +%s) - started)) s"
# Leaks are reported too; OpenMP's and OpenBLAS's thread pools live until exit and are not leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OPENBLAS_NUM_THREADS=1
tested=$(date +%s)
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -L "^(unit|cli|device-bodies)$" \
  ${SANITIZE_TESTS:+-R "$SANITIZE_TESTS"}
echo "sanitize.sh: tests under ASan + UBSan done in $(($(date +%s) - tested)) s"
if command -v "${CXX_FUZZ:-clang++}" >/dev/null; then
  fuzzed=$(date +%s)
  FUZZ_BUILD_DIR=$PWD/$build/fuzz bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
  echo "sanitize.sh: fuzz targets built and run in $(($(date +%s) - fuzzed)) s"
else
  echo "sanitize.sh: no clang++: fuzz targets skipped (apt-get install -y clang)"
fi
echo "sanitize.sh: stage done in $(($(date +%s) - started)) s"
