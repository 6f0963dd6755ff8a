#!/usr/bin/env bash
# Attention A/B on a GPU: the seed fused attention with the wgmma overlap pass on and off
# (TILEC_WGMMA_OVERLAP, lower/OverlapWgmma.h), beside torch and Triton, plus the GPU dot
# and seed-kernel tests. Run by hand on the device: bash scripts/gpu_attn_ab.sh
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
$PY -m pip install --no-build-isolation --no-deps -e . > /tmp/pip.log 2>&1 || { tail -30 /tmp/pip.log; exit 1; }
for ov in 0 1; do # a cache directory each: kernels are not keyed by the variable
  echo "== TILEC_WGMMA_OVERLAP=$ov"
  TILEC_CACHE_DIR=$(mktemp -d) TILEC_WGMMA_OVERLAP=$ov timeout 120 $PY benchmarks/gpu_kernels.py --only attention \
    --json /tmp/attn_$ov.json 2>&1 | grep -E "attention|Error|error" | tail -4
done
[ -n "${SKIP_TESTS:-}" ] || timeout 200 $PY -m pytest -q -m gpu tests/python/test_gpu_dot.py tests/python/test_gpu_seed_kernels.py 2>&1 | tail -4
for ov in 0 1; do
  echo "== register caps, TILEC_WGMMA_OVERLAP=$ov"
  TILEC_CACHE_DIR=$(mktemp -d) TILEC_WGMMA_OVERLAP=$ov timeout 120 $PY benchmarks/attention_variants.py 2>&1 | tail -8
done
