#!/usr/bin/env bash
# Muffliato-GD at the Fig. 6.1c settings (examples/fig6_1c_muffliato_gd_time_varying_er), two builds side by side:
#
#   benchmarks/bench_muffliato_gd.sh BASE/netdp NEW/netdp [REPEATS=3] [N=2000]
#
# Cases (one run each, the privacy accountant left out: its cost is the kernel's, docs/muffliato_gd.md "Cost"):
#   federated  --averaging exact (the trusted-aggregator baseline)
#   er         fresh G(n, ln n / n) per step, K = 30 accelerated gossip steps
# Prints the median of summary.json `seconds` (the runs and their metrics) per build and case, new / base, and
# whether curves.csv is byte-identical between the builds (it must be: same seed, same arithmetic).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0"
  exit 2
fi
base=$1 new=$2 repeats=${3:-3} n=${4:-2000}
threads=${OMP_NUM_THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--graph "er:n=$n,c=1,seed=1" --objective logistic --dim 10 --steps 10 --gossip-rounds 30 --step-size 0.7
        --gradient-noise 1.5 --clip 0.4 --reference-code --runs 1 --seed 1 --threads "$threads" --quiet)
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
seconds() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['seconds'])" "$1"; }
printf '%-10s %6s %12s %12s %8s %s\n' case n base_s new_s new/base curves.csv
for case in federated er; do
  extra=(--averaging exact)
  [ "$case" = er ] && extra=(--er-c 1)
  for side in base new; do
    : > "$work/$side.times"
    for ((r = 0; r < repeats; ++r)); do
      bin=$base
      [ "$side" = new ] && bin=$new
      rm -rf "$work/$side-$case"
      "$bin" muffliato-gd "${common[@]}" "${extra[@]}" --out "$work/$side-$case"
      seconds "$work/$side-$case/summary.json" >> "$work/$side.times"
    done
  done
  b=$(median < "$work/base.times") w=$(median < "$work/new.times")
  same=differ
  cmp -s "$work/base-$case/curves.csv" "$work/new-$case/curves.csv" && same=identical
  printf '%-10s %6s %12.3f %12.3f %8.3f %s\n' "$case" "$n" "$b" "$w" "$(echo "$w / $b" | bc -l)" "$same"
done
