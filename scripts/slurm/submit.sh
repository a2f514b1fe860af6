#!/bin/bash
# Submits a netdp study as a Slurm job array of N shards and the merge that waits for it (docs/cluster.md):
#   scripts/slurm/submit.sh STUDY.toml OUT N      -> OUT/shard-0 .. OUT/shard-(N-1), then OUT/merged
# Extra sbatch options (partition, account) go in SBATCH_PARTITION, SBATCH_ACCOUNT... (sbatch reads them).
set -euo pipefail
if [ $# -ne 3 ] || ! [[ $3 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 STUDY.toml OUT N   (N >= 1 shards)" >&2
  exit 2
fi
study=$1 out=$2 shards=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/study_array.sbatch" "$study" "$out")
array=${array%%;*}  # --parsable prints "jobid[;cluster]"
merge=$(sbatch --parsable --dependency=afterok:"$array" "$here/study_merge.sbatch" "$out" "$shards")
echo "netdp: job array $array ($shards shards) then merge job ${merge%%;*} -> $out/merged"
