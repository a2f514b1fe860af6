#!/usr/bin/env bash
# Runs on the `device` machine after scripts/gpu_bundle.sh here (carry .carry): every CUDA test suite, then
# compute-sanitizer's memcheck, racecheck, initcheck and synccheck on each suite (the bin-sync/ builds:
# -DNETDP_CUDA_SYNC_LAUNCHES=ON, so a faulting kernel is named at its launch), then the GPU benchmarks; into
# 7 files in $OUT (default ./gpu-check; the device tool brings back at most 8): device.txt, tests.log,
# sanitizer.log (every tool, one "== TOOL SUITE" header per run), bench_*.csv.
# Usage (device tool): bash scripts/gpu_check.sh [quick]   (quick: the sanitizers on a few cases per suite,
# short benchmarks)
# Environment: SANITIZERS="memcheck racecheck initcheck synccheck" (the default; a subset, or "" for none) and
# BENCHMARKS=0 (skip the benchmarks) keep one call within the device tool's 10 minutes.
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

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; date -u; } > "$out/device.txt" 2>&1
status=0
for t in "${suites[@]}"; do
  echo "== $t" >> "$out/tests.log"
  NETDP_CUDA_MODULE=$(module_of "$bin/$t") "$bin/$t" >> "$out/tests.log" 2>&1 || status=1
done
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
    NETDP_CUDA_MODULE=$(module_of "$sync_bin/$t") "$sanitizer" "${options[@]}" --error-exitcode 3 "$sync_bin/$t" --gtest_filter="$filter" \
      >> "$out/sanitizer.log" 2>&1 || status=1
  done
done
export NETDP_CUDA_MODULE=$bin/libnetdp_cuda.so
if [ "${BENCHMARKS:-1}" != 0 ]; then
  scale=()
  [ "$quick" = quick ] && scale=(--quick 1)
  "$bin/bench_walk_sim" --device cuda --repeats 3 "${scale[@]}" > "$out/bench_walk_sim.csv" 2>&1 || status=1
  "$bin/bench_gossip_sim" --device cuda --repeats 3 > "$out/bench_gossip_sim.csv" 2>&1 || status=1
  "$bin/bench_gossip_loss" --device cuda --repeats 3 > "$out/bench_gossip_loss.csv" 2>&1 || status=1
  "$bin/bench_walk_loss" --device cuda --repeats 3 > "$out/bench_walk_loss.csv" 2>&1 || status=1
fi
touch "$out/sanitizer.log"
grep -hE "^== |^\[  (PASSED|FAILED)  \] [0-9]|ERROR SUMMARY|RACECHECK SUMMARY" "$out/tests.log" "$out/sanitizer.log"
exit $status
