#!/bin/sh
# Regenerates the .ptx files of this folder from src/*.cu (not run by CI).
# Needs nvcc: `pip install nvidia-cuda-nvcc nvidia-cuda-cccl` ships one under
# site-packages/nvidia/cu13/bin, and a host g++. Usage: NVCC=/path/to/nvcc ./regen.sh [src/NAME.cu ...]
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" --version | tail -2 > VERSIONS.txt
g++ --version | head -1 >> VERSIONS.txt
# Sources given as arguments are the only ones compiled (default: all).
[ $# -gt 0 ] || set -- src/*.cu
for cu in "$@"; do
  base=$(basename "$cu" .cu)
  # Asynchronous copies (issue 42): cp.async needs sm_80, bulk copies sm_90a.
  if [ "$base" = ASYNC ]; then
    for arch in sm_80 sm_90a; do "$NVCC" -ptx -O3 -arch=$arch "$cu" -o "ptx/$base.$arch.ptx"; done
    continue
  fi
  for arch in sm_75 sm_90; do
    "$NVCC" -ptx -O3 -arch=$arch "$cu" -o "ptx/$base.$arch.ptx"
    "$NVCC" -ptx -O3 -rdc=true -arch=$arch "$cu" -o "ptx/$base.$arch.rdc.ptx"
  done
done
