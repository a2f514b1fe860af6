#!/usr/bin/env bash
# Runs on the `device` machine after scripts/gpu_bundle.sh here (carry .carry): every CUDA test suite,
# compute-sanitizer memcheck on each, and the GPU benchmarks, into 7 files in $OUT (default ./gpu-check; the
# device tool brings back at most 8).
# Usage (device tool): bash scripts/gpu_check.sh [quick]   (quick: sanitizer on one case per suite, short
# benchmarks)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
bundle=$(mktemp -d)
tar -C "$bundle" -xJf .carry/bundle.tar.xz
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
bin=$bundle/bin
quick=${1:-}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; date -u; } > "$out/device.txt" 2>&1
status=0
for t in test_gossip_loss_cuda test_walk_loss_cuda test_walk_sim_cuda test_gossip_sim_cuda test_gossip_sim_varying_cuda; do
  echo "== $t" | tee -a "$out/tests.log" >> "$out/memcheck.log"
  "$bin/$t" >> "$out/tests.log" 2>&1 || status=1
  filter='*'
  [ "$quick" = quick ] && filter='*Complete*:*Sequence*:*Matches*'
  "$sanitizer" --tool memcheck --leak-check full --error-exitcode 3 "$bin/$t" --gtest_filter="$filter" \
    >> "$out/memcheck.log" 2>&1 || status=1
done
scale=()
[ "$quick" = quick ] && scale=(--quick 1)
"$bin/bench_walk_sim" --device cuda --repeats 3 "${scale[@]}" > "$out/bench_walk_sim.csv" 2>&1 || status=1
"$bin/bench_gossip_sim" --device cuda --repeats 3 > "$out/bench_gossip_sim.csv" 2>&1 || status=1
"$bin/bench_gossip_loss" --device cuda --repeats 3 > "$out/bench_gossip_loss.csv" 2>&1 || status=1
"$bin/bench_walk_loss" --device cuda --repeats 3 > "$out/bench_walk_loss.csv" 2>&1 || status=1
grep -hE "^== |^\[  (PASSED|FAILED)  \] [0-9]|ERROR SUMMARY" "$out/tests.log" "$out/memcheck.log"
exit $status
