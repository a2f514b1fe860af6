#!/usr/bin/env bash
# Runs on the `device` machine after scripts/gpu_bundle.sh here (carry .carry): every CUDA test suite, then
# the GPU benchmarks (issue targets included: gossip-loss n = 65,536, walk-loss chebyshev n = 16,384), then
# compute-sanitizer's memcheck, racecheck, initcheck and synccheck on each suite (the bin-sync/ builds:
# -DNETDP_CUDA_SYNC_LAUNCHES=ON, so a faulting kernel is named at its launch); into 8 files in $OUT (default
# ./gpu-check; the device tool brings back at most 8): device.txt, tests.log, sanitizer.log (every tool, one
# "== TOOL SUITE" header per run), bench_*.csv.
# Usage (device tool): bash scripts/gpu_check.sh [quick]   (quick: the sanitizers on a few cases per suite,
# short benchmarks)
# Environment: TESTS=0 (skip the test run), BENCHMARKS=0 (skip the benchmarks), BENCH_SECONDS (the most one
# benchmark may take, default 150) and SANITIZERS="memcheck racecheck initcheck synccheck" (the default; a
# subset, or "" for none) keep one call within the device tool's 10 minutes; TEST_SECONDS (default 240) bounds
# each suite's run, plain or under a sanitizer (a hung kernel does not take the whole call).
# The sanitizers skip the *Large* cases (rows of 12,288 doubles in several pinned chunks: minutes under
# instrumentation); the plain test run covers them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-gpu-check}
mkdir -p "$out"
bundle=$(mktemp -d)
tar -C "$bundle" -xJf .carry/bundle.tar.xz
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
bin=$bundle/bin
sync_bin=$bundle/bin-sync
[ -d "$sync_bin" ] || sync_bin=$bin  # a bundle from before bin-sync/
# Each program loads the CUDA backend module packed beside it (docs/cuda_loader.md).
module_of() { echo "$(dirname "$1")/libnetdp_cuda.so"; }
quick=${1:-}
sanitizers=${SANITIZERS-memcheck racecheck initcheck synccheck}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
suites=(test_gossip_loss_cuda test_walk_loss_cuda test_walk_sim_cuda test_gossip_sim_cuda
        test_gossip_sim_varying_cuda)
filter='*:-*Large*'
[ "$quick" = quick ] && filter='*Complete*:*Sequence*:*Matches*:-*Large*'
filter=${SANITIZER_FILTER:-$filter}  # a gtest filter of one's own

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; date -u; } > "$out/device.txt" 2>&1
status=0
if [ "${TESTS:-1}" != 0 ]; then
  for t in "${suites[@]}"; do
    echo "== $t" >> "$out/tests.log"
    NETDP_CUDA_MODULE=$(module_of "$bin/$t") timeout "${TEST_SECONDS:-240}" "$bin/$t" >> "$out/tests.log" 2>&1 ||
      status=1
  done
fi
export NETDP_CUDA_MODULE=$bin/libnetdp_cuda.so
if [ "${BENCHMARKS:-1}" != 0 ]; then
  scale=()
  [ "$quick" = quick ] && scale=(--quick 1)
  bench() {  # bench NAME ARGS...: into $out/NAME.csv, at most BENCH_SECONDS
    local name=$1
    shift
    timeout "${BENCH_SECONDS:-150}" "$bin/$name" "$@" > "$out/$name.csv" 2>&1 || status=1
  }
  bench bench_walk_sim --device cuda --repeats 3 "${scale[@]}"
  bench bench_gossip_sim --device cuda --repeats 3
  bench bench_gossip_loss --device cuda --repeats 2 --sizes 4096,65536
  bench bench_walk_loss --device cuda --repeats 3
  bench bench_walk_loss_scaling --device cuda --graph er --sizes 16384 --solver chebyshev --numpy none \
    --repeats 2
fi
for tool in $sanitizers; do
  case $tool in
    memcheck) options=(--tool memcheck --leak-check full) ;;
    racecheck) options=(--tool racecheck --racecheck-report all) ;;
    initcheck) options=(--tool initcheck) ;;
    synccheck) options=(--tool synccheck) ;;
    *) echo "gpu_check: unknown sanitizer $tool" >&2; status=1; continue ;;
  esac
  for t in "${suites[@]}"; do
    echo "== $tool $t" >> "$out/sanitizer.log"
    NETDP_CUDA_MODULE=$(module_of "$sync_bin/$t") timeout "${TEST_SECONDS:-240}" "$sanitizer" "${options[@]}" \
      --error-exitcode 3 "$sync_bin/$t" --gtest_filter="$filter" >> "$out/sanitizer.log" 2>&1 || status=1
  done
done
touch "$out/tests.log" "$out/sanitizer.log"
grep -hE "^== |^\[  (PASSED|FAILED)  \] [0-9]|ERROR SUMMARY|RACECHECK SUMMARY" "$out/tests.log" "$out/sanitizer.log"
exit $status
