#!/bin/sh
# Regenerates the .ptx files of this folder from src/*.cu (not run by CI).
# Needs nvcc: `pip install nvidia-cuda-nvcc nvidia-cuda-cccl` ships one under
# site-packages/nvidia/cu13/bin, and a host g++. Usage: NVCC=/path/to/nvcc ./regen.sh
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" --version | tail -2 > VERSIONS.txt
g++ --version | head -1 >> VERSIONS.txt
for cu in src/*.cu; do
  base=$(basename "$cu" .cu)
  for arch in sm_75 sm_90; do
    "$NVCC" -ptx -O3 -arch=$arch "$cu" -o "ptx/$base.$arch.ptx"
    "$NVCC" -ptx -O3 -rdc=true -arch=$arch "$cu" -o "ptx/$base.$arch.rdc.ptx"
  done
done
