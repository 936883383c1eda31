#!/usr/bin/env bash
# Spread one kex sweep over a SLURM job array: task I of N runs the deterministic
# 1/N of the points that `kex run --shard I/N` selects and writes its own file.
# Reassemble with `kex merge` (see merge-shards.md), e.g. as a dependent job:
#
#   jid=$(sbatch --parsable examples/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#     "kex merge results/$jid/shard-*.json -o results/$jid/merged.json"
#
# Every task must run on the same kind of node (same CPU model and caches):
# `kex merge` groups files by the machine in their context and refuses a shard
# that is given twice or shards that disagree on N.
#
#SBATCH --job-name=kex-sweep
#SBATCH --array=0-7
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --exclusive
#SBATCH --time=01:00:00
#SBATCH --output=kex-%A_%a.log
set -euo pipefail

# Shard index from 0 whatever range --array uses; N = number of tasks in the array.
I=$(( ${SLURM_ARRAY_TASK_ID:?run under sbatch} - ${SLURM_ARRAY_TASK_MIN:-0} ))
N=${SLURM_ARRAY_TASK_COUNT:?run under sbatch}

KEX=${KEX:-kex}                        # path to the kex binary on the nodes
CONFIG=${KEX_CONFIG:-}                 # a sweep config; empty: the built-in default sweep
OUT=${KEX_OUT:-results/${SLURM_ARRAY_JOB_ID}}
mkdir -p "$OUT"

# shellcheck disable=SC2086  # CONFIG may be empty
exec "$KEX" run $CONFIG --shard "$I/$N" -o "$OUT/shard-$I-of-$N.json"
