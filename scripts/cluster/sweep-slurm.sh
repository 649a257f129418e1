#!/bin/bash
# Runs a sweep on a Slurm cluster (docs/cluster.md): a job array of N shards, then a merge job
# that depends on the whole array. OUT must be on a file system every node shares.
#   sweep-slurm.sh SPEC OUT N [sbatch options...]   e.g. --partition=cpu --time=02:00:00
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: sweep-slurm.sh SPEC OUT N [sbatch options...]" >&2
  exit 2
fi
spec=$1 out=$2 n=$3
shift 3
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$out/logs"
trainvp sweep "$spec" --dry-run >/dev/null  # a bad SPEC fails here, not in N queued tasks
array=$(sbatch --parsable --array="1-$n" --output="$out/logs/shard-%a.out" "$@" \
        "$here/sweep-shard.sbatch" "$spec" "$out")
array=${array%%;*}  # --parsable prints "jobid[;cluster]"
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$out/logs/merge.out" "$@" \
        "$here/sweep-merge.sbatch" "$out" "$n")
echo "shards: job $array (array 1-$n); merge: job ${merge%%;*} -> $out/all"
