#!/usr/bin/env bash
# Validate every kernel `ptx-litmus run --emit` writes with NVIDIA's ptxas,
# without a GPU: ptxas comes from the PyPI wheel nvidia-cuda-nvcc-cu12,
# installed into a virtual environment. Not part of CI (it downloads ~100 MB).
#
#   scripts/validate-ptx.sh [LITMUS_DIR...]     (default: litmus/ and tests/conformance/litmus/)
#
# Modules whose .target is sm_70 are assembled for sm_70 and sm_90; modules
# that need sm_90 (clusters, .cluster scope) for sm_90 only.
# Environment: VENV (default target/ptxas-venv), OUT (default target/ptx-validate).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-target/ptxas-venv}
OUT=${OUT:-target/ptx-validate}
if [ $# -eq 0 ]; then
  set -- litmus tests/conformance/litmus
fi

ptxas=$(ls "$VENV"/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas 2>/dev/null | head -1 || true)
if [ -z "$ptxas" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q nvidia-cuda-nvcc-cu12
  ptxas=$(ls "$VENV"/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas | head -1)
fi
"$ptxas" --version | tail -1

cargo build --release -q
rm -rf "$OUT"
i=0
for dir in "$@"; do
  i=$((i + 1))
  # One folder per input: test names may repeat between collections.
  ./target/release/ptx-litmus run --emit "$OUT/$i" "$dir" > "$OUT.$i.log" || true
  echo "$dir: $(grep -c '^Emitted' "$OUT.$i.log" || true) emitted, $(grep -c '^Skipped' "$OUT.$i.log" || true) skipped"
done

pass=0; fail=0; modules=0
for f in "$OUT"/*/*.ptx; do
  modules=$((modules + 1))
  target=$(awk '/^\.target/ {print $2; exit}' "$f")
  archs="sm_90"
  [ "$target" = "sm_70" ] && archs="sm_70 sm_90"
  for a in $archs; do
    if "$ptxas" --gpu-name "$a" "$f" -o /dev/null 2> "$f.$a.err"; then
      pass=$((pass + 1)); rm -f "$f.$a.err"
    else
      fail=$((fail + 1)); echo "FAIL $a $f"; head -5 "$f.$a.err"
    fi
  done
done
echo "modules: $modules; ptxas runs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
