#!/usr/bin/env bash
# A quick GPU look between full checks: build, then the memory-bound rows of
# gpu_kernels.py, the launch breakdown and gpu_copy.py (no tests). Output in $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${OUT:-/tmp/tilec-gpu-quick}
mkdir -p "$LOG"
PY=${PYTHON:-python3}
"$PY" -m pip install --no-build-isolation --no-deps -e . > "$LOG/install.log" 2>&1 ||
  { tail -30 "$LOG/install.log"; exit 1; }
for only in softmax LayerNorm; do
  "$PY" benchmarks/gpu_kernels.py --only "$only" --reps "${REPS:-200}" \
    --json "$LOG/kernels_$only.json" 2>&1 | grep -v "^GELU first\|^(\|^wrote"
done
"$PY" benchmarks/gpu_launch_breakdown.py --json "$LOG/launch.json" 2>&1
"$PY" benchmarks/gpu_copy.py --json "$LOG/copy.json" 2>&1 | grep -A6 "host time"
