#!/bin/bash
# The Slurm templates of scripts/slurm (docs/cluster.md) run here without Slurm: each array task's script with
# a fake SLURM_ARRAY_TASK_ID, then the merge script, must give the results.csv of one unsharded run; submit.sh
# must send the array and the dependent merge (a fake sbatch records them); the MPI template, with mpirun as
# its launcher when one is given, must give the same results.csv.
#   test_slurm.sh NETDP SOURCE_DIR WORK_DIR [MPIEXEC]
set -euo pipefail
netdp=$1 source=$2 work=$3 mpiexec=${4:-}
slurm=$(cd "$source/scripts/slurm" && pwd)
rm -rf "$work" && mkdir -p "$work/bin"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

cp "$source/tests/data/studies/slurm_template.toml" study.toml
units=11  # 2 graphs x 2 sigmas x 2 replicates + 3 walk-sim points
"$netdp" run study.toml --out one --quiet > /dev/null

# The array: N = 3 tasks run by hand, as Slurm would run them (the scripts never call sbatch or srun).
for task in 0 1 2; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 NETDP=$netdp bash "$slurm/study_array.sbatch" study.toml arr \
    > "task-$task.log" 2>&1 || fail "task $task: $(cat "task-$task.log")"
  [ -f "arr/shard-$task/study.toml" ] || fail "task $task wrote no shard directory"
  [ -f "arr/shard-$task/results.csv" ] && fail "shard $task holds only a third of the units but wrote results.csv"
done
NETDP=$netdp bash "$slurm/study_merge.sbatch" arr 3 > merge.log 2>&1 || fail "merge: $(cat merge.log)"
cmp arr/merged/results.csv one/results.csv || fail "merged shards differ from the unsharded run"
grep -q "\"units\": $units" arr/merged/manifest.json || fail "merged manifest does not count $units units"

# A task outside a job array says so and runs nothing.
if NETDP=$netdp bash "$slurm/study_array.sbatch" study.toml stray > stray.log 2>&1; then fail "ran outside an array"; fi
grep -q "sbatch --array" stray.log || fail "no hint in: $(cat stray.log)"
[ -e stray ] && fail "a stray task wrote its directory"

# submit.sh: the array over 0..N-1, then the merge after it (afterok on the array's job id).
cat > bin/sbatch <<'SH'
#!/bin/bash
echo "$*" >> "$SBATCH_LOG"
[ "$1" = "--parsable" ] && echo "$((4100 + $(wc -l < "$SBATCH_LOG")));cluster0"
SH
chmod +x bin/sbatch
SBATCH_LOG=$work/sbatch.log PATH=$work/bin:$PATH bash "$slurm/submit.sh" study.toml arr 3 > submit.log
grep -qx -- "--parsable --array=0-2 $slurm/study_array.sbatch study.toml arr" sbatch.log || fail "array: $(cat sbatch.log)"
grep -qx -- "--parsable --dependency=afterok:4101 $slurm/study_merge.sbatch arr 3" sbatch.log ||
  fail "merge submission: $(cat sbatch.log)"
if PATH=$work/bin:$PATH SBATCH_LOG=$work/sbatch.log bash "$slurm/submit.sh" study.toml arr 0 2> /dev/null; then
  fail "submit.sh accepted N = 0"
fi

# The MPI template with mpirun in place of srun (srun needs Slurm).
if [ -n "$mpiexec" ]; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NETDP=$netdp \
    NETDP_LAUNCH="$mpiexec --oversubscribe -np 2" bash "$slurm/study_mpi.sbatch" study.toml mpi > mpi.log 2>&1 ||
    fail "mpi: $(cat mpi.log)"
  cmp mpi/results.csv one/results.csv || fail "the MPI run differs from one process"
  grep -q '"ranks": 2' mpi/manifest.json || fail "the MPI run did not run on 2 ranks"
fi
echo "ok: 3 array tasks + merge = one run ($units units)${mpiexec:+; MPI template on 2 ranks}"
