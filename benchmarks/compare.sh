#!/usr/bin/env bash
# A/B timing of two builds of the benchmarks on this machine: benchmarks/compare.sh BASE_DIR NEW_DIR [ROUNDS]
# runs each benchmark of BASE_DIR and NEW_DIR alternately ROUNDS times (default 3) with the arguments below and
# prints every CSV row tagged base/new, so medians and ratios come from runs interleaved in one command
# (these machines are noisy). The checksum column must agree between base and new.
set -euo pipefail
base=$1 new=$2 rounds=${3:-3}
declare -A args=(
  [bench_gossip_loss]="--sizes 1024,2048 --repeats 3"
  [bench_walk_loss]="--sizes 512,1024 --repeats 3"
  [bench_walk_sim]="--quick 1 --repeats 3"
  [bench_gossip_sim]="--sizes 2048 --dims 1,64 --seconds 1 --repeats 3"
)
for bench in bench_gossip_loss bench_walk_loss bench_walk_sim bench_gossip_sim; do
  for ((r = 1; r <= rounds; ++r)); do
    for side in base new; do
      dir=$base; [ "$side" = new ] && dir=$new
      # shellcheck disable=SC2086
      "$dir/$bench" ${args[$bench]} | sed "s/^/$bench,$side,$r,/"
    done
  done
done
