#!/usr/bin/env bash
# Install NVIDIA's nvcc 13.5 with the libcu++ (CCCL) headers from PyPI into
# target/nvcc/, for `ptx-litmus map --nvcc` (no GPU needed):
#   target/nvcc/bin/nvcc  runs the wheel's nvcc (found by `cargo test --test c11_map`;
#                         give it to map with --nvcc=target/nvcc/bin/nvcc or PTXL_NVCC)
# The wheels: the compiler driver and ptxas (nvidia-cuda-nvcc), its front end
# headers (nvidia-cuda-crt), NVVM (nvidia-nvvm), the runtime headers
# (nvidia-cuda-runtime) and libcu++/CUB/Thrust (nvidia-cuda-cccl). nvcc also
# needs a host C++ compiler (g++) on PATH. Downloads ~200 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/nvcc
venv="$dest/venv"
if [ ! -x "$venv/bin/pip" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q nvidia-cuda-nvcc==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-nvvm==13.5.37 \
  nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl
real=$(ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc | head -1)
real=$(cd "$(dirname "$real")" && pwd)/nvcc
mkdir -p "$dest/bin"
# A wrapper, not a link: nvcc finds its tools and nvcc.profile beside the path it is run by.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" > "$dest/bin/nvcc"
chmod +x "$dest/bin/nvcc"
"$dest/bin/nvcc" --version | grep -m1 release
