#!/bin/sh
# Submit a sweep as a Slurm job array of N tasks and the merge job that
# depends on it; prints the merge job's id. README "Sweeping on a cluster".
#   submit.sh corpus  N OUTDIR CORPUS... [check options]
#   submit.sh mapping N OUTDIR GEN-OPTIONS...     (e.g. --lang c --random 100000 --seed 1)
#   submit.sh gpu     N OUTDIR CORPUS... [run options]
# Set PTXL to the ptx-litmus binary (default: ptx-litmus on PATH); extra
# sbatch options (a partition, an account) go in SBATCH_* variables.
set -eu
kind=$1 n=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# `--parsable` prints `JOBID` or `JOBID;CLUSTER`.
submit() { sbatch --parsable "$@" | cut -d';' -f1; }
case $kind in
  corpus) array=$(submit --array=0-$((n - 1)) "$here/check-corpus.sbatch" "$out" "$@"); merge=check ;;
  mapping)
    gen=$(submit --array=0-$((n - 1)) "$here/gen-mapping.sbatch" "$out" "$@")
    array=$(submit --array=0-$((n - 1)) --dependency=afterok:"$gen" "$here/map-sweep.sbatch" "$out")
    merge=map ;;
  gpu) array=$(submit --array=0-$((n - 1)) "$here/gpu-campaign.sbatch" "$out" "$@"); merge=run ;;
  *) echo "submit.sh: the kind is corpus, mapping or gpu, not \`$kind'" >&2; exit 2 ;;
esac
submit --dependency=afterok:"$array" "$here/merge.sbatch" "$out" "$merge"
