#!/bin/sh
# Regenerates ptx/NAME.clang.sm_70.ptx from src/*.cu with Debian's clang 14
# (not run by CI). clang 14 knows CUDA up to 11.5 and libcu++ supports clang
# from CCCL 2 on, so the pieces come from three PyPI packages:
#   pip install nvidia-cuda-nvcc-cu11 nvidia-cuda-runtime-cu11   (CUDA 11.8 headers, libdevice)
#   pip install nvidia-cuda-cccl-cu12                            (libcu++/CUB 2.x, in another venv)
# Usage: CUDA11=/path/to/site-packages/nvidia CCCL=/path/to/cuda_cccl/include ./regen-clang.sh [src/NAME.cu ...]
set -eu
cd "$(dirname "$0")"
CLANG=${CLANG:-clang++}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# A CUDA installation as clang looks for one: include/, nvvm/libdevice, bin/.
mkdir -p "$root/include" "$root/lib64"
for d in "$CUDA11/cuda_runtime/include" "$CUDA11/cuda_nvcc/include"; do
  for f in "$d"/*; do [ -e "$root/include/$(basename "$f")" ] || ln -s "$f" "$root/include/"; done
done
ln -s "$CUDA11/cuda_nvcc/bin" "$root/bin"
ln -s "$CUDA11/cuda_nvcc/nvvm" "$root/nvvm"
echo "CUDA Version 11.8.89" > "$root/version.txt"
# clang's CUDA wrapper includes curand's MTGP32 header; nothing here uses it.
echo "/* empty: curand is not used */" > "$root/include/curand_mtgp32_kernel.h"
"$CLANG" --version | head -1 > VERSIONS-clang.txt
grep -h "define CCCL_VERSION " "$CCCL/cuda/std/__cccl/version.h" >> VERSIONS-clang.txt
grep -h "define CUDA_VERSION " "$root/include/cuda.h" >> VERSIONS-clang.txt
# Sources given as arguments are the only ones compiled (default: all).
[ $# -gt 0 ] || set -- src/*.cu
for cu in "$@"; do
  base=$(basename "$cu" .cu)
  # libcu++'s type traits declare variadic functions in unevaluated contexts,
  # which clang 14 rejects in device code unless told otherwise.
  "$CLANG" -x cuda --cuda-path="$root" --cuda-gpu-arch=sm_70 --cuda-device-only -S -O3 -std=c++17 \
    -Wno-unknown-cuda-version -Xclang -fcuda-allow-variadic-functions -I"$CCCL" \
    "$cu" -o "ptx/$base.clang.sm_70.ptx"
done
