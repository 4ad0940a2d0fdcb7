#!/usr/bin/env bash
# Validate every kernel `ptx-litmus run` emits with NVIDIA's ptxas, without a
# GPU: installs ptxas 12.x and 13.x from PyPI (scripts/install-ptxas.sh), then
# runs the test that assembles each module of litmus/ (the compiled corpus
# included) and tests/conformance/litmus for its own target and for sm_90.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-ptxas.sh
cargo test --release --test gpu gpu_emit::ptxas_accepts_every_emitted_module -- --nocapture
