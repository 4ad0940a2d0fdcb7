#!/usr/bin/env bash
# Install NVIDIA's ptxas from PyPI into target/ptxas/, where
# `cargo test --test gpu gpu_emit::` finds it (no GPU needed):
#   target/ptxas/cuda12/bin/ptxas  from nvidia-cuda-nvcc-cu12 (the last CUDA with sm_70)
#   target/ptxas/cuda13/bin/ptxas  from nvidia-cuda-nvcc (CUDA 13: sm_75 and newer)
# Each comes from a virtual environment (target/ptxas/venv12, venv13); the
# bin/ptxas names are symbolic links into the wheels. Downloads ~150 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/ptxas
install() { # NAME PACKAGE WHEEL_DIR
  local venv="$dest/venv$1"
  if [ ! -x "$venv/bin/pip" ]; then python3 -m venv "$venv"; fi
  "$venv/bin/pip" install -q "$2"
  local bin
  bin=$(ls "$venv"/lib/python3*/site-packages/nvidia/"$3"/bin/ptxas | head -1)
  mkdir -p "$dest/cuda$1/bin"
  ln -sf "$(cd "$(dirname "$bin")" && pwd)/ptxas" "$dest/cuda$1/bin/ptxas"
  "$dest/cuda$1/bin/ptxas" --version | grep -m1 release
}
install 12 nvidia-cuda-nvcc-cu12 cuda_nvcc
install 13 nvidia-cuda-nvcc cu13
