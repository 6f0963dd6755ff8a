#!/usr/bin/env bash
# One device call of a session (run by the device tool in the repository root; carry
# ".triton", made by scripts/triton_subset.sh). Results go to $OUT, which comes back.
#   bash scripts/device_session.sh check        # gpu_check.sh: build, C++ and pytest GPU tests
#                                               # (logs in $OUT/check.tgz)
#   CAP=470 bash scripts/device_session.sh conf # Triton's suite on tilec (about 360 s)
#   bash scripts/device_session.sh t06 [ARGS]   # benchmarks/tutorial06.py (T06TARGETS)
#   bash scripts/device_session.sh ws           # warp specialisation (TILEC_WARP_SPECIALIZE):
#                                               # its GPU tests, tutorial 09's persistent rows,
#                                               # the seed attention with and without
#   bash scripts/device_session.sh ws2          # and tutorial 09 at 4096^3 fp16 beside cuBLAS
#                                               # (the matmul row; T09CFG: its config), tutorial
#                                               # 06's forward (NO_T06=1: not)
#   bash scripts/device_session.sh startup      # issue 22's compile-time and first-call rows
#   bash scripts/device_session.sh rows         # its other rows but tutorial 06's grid
#   bash scripts/device_session.sh bwdprof      # ncu: tutorial 06 / 05 backward kernels, tilec | Triton
#   bash scripts/device_session.sh bench        # tutorial 03's fp8 row (tutorials.py), the
#                                               # seed rows (gpu_kernels.py) and the seed
#                                               # attention's PTX A/B, each with a time limit
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/device-session}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) TRITON_SRC=$PWD/.triton
install() {
  local t0=$SECONDS
  $PY -m pip install --no-build-isolation --no-deps -e . > "$OUT/install.log" 2>&1 ||
    { tail -40 "$OUT/install.log"; exit 1; }
  echo "install $((SECONDS - t0)) s"
}
mode=${1:-check}
shift || true
case $mode in
  check) # its logs come back as one check.tgz: the device returns at most 8 files a call
    GPU_CHECK_STEPS="env install cpp_tests cpp_api pytest_gpu" OUT=$OUT/check \
      bash scripts/gpu_check.sh 2>&1 | tail -12
    tar -czf "$OUT/check.tgz" -C "$OUT" check && rm -rf "$OUT/check" ;;
  conf) # per-test durations: $OUT/tilec-results.jsonl.gz (the compile-time row)
    install
    bash scripts/conformance.sh --target tilec --mode gpu --cap "${CAP:-470}" \
      --out /tmp/conformance --json "$OUT/conformance-gpu.json" 2>&1 | tail -45
    gzip -c /tmp/conformance/gpu/tilec/results.jsonl > "$OUT/tilec-results.jsonl.gz" ;;
  t06)
    install
    timeout 560 $PY benchmarks/tutorial06.py --targets "${T06TARGETS:-tilec;triton}" \
      --json "$OUT/tutorial06.json" "$@" 2>&1 | tail -60 ;;
  ws)
    install
    # the register split's target only when its GPU tests passed (a wrong budget hangs)
    regs="tilec:TILEC_WARP_SPECIALIZE=all,TILEC_WARP_SPECIALIZE_REGS=1;"
    TILEC_ALWAYS_COMPILE=1 timeout 120 $PY -m pytest -q -p no:cacheprovider -m gpu \
      tests/python/test_warp_specialize.py > "$OUT/ws-tests.log" 2>&1 || regs=""
    tail -6 "$OUT/ws-tests.log"
    timeout 270 $PY benchmarks/tutorials.py --parts persistent --ks 512,4096 --dtypes fp16,fp8 \
      --t09-config '{"BLOCK_SIZE_N": 256, "num_stages": 3, "num_warps": 8}' \
      --targets "tilec;tilec:TILEC_WARP_SPECIALIZE=all;${regs}triton" \
      --json "$OUT/tutorial09-ws.json" 2>&1 | tail -20
    for ws in 0 all; do # the seed attention (cp.async rings: 4 + 4 warps) beside SDPA
      TILEC_WARP_SPECIALIZE=$ws TILEC_ALWAYS_COMPILE=1 timeout 80 $PY benchmarks/gpu_kernels.py --gpu-time \
        --only attention --json "$OUT/seed-attention-ws-$ws.json" 2>&1 | tail -4
    done ;;
  ws2) # REGS=1 adds the register split's target (only after `ws` showed its tests pass)
    install
    regs=$([ "${REGS:-0}" = 1 ] && echo "tilec:TILEC_WARP_SPECIALIZE=all,TILEC_WARP_SPECIALIZE_REGS=1;")
    cfg=${T09CFG:-'{"BLOCK_SIZE_N": 256, "num_stages": 3, "num_warps": 8}'}
    timeout 260 $PY benchmarks/tutorials.py --parts persistent --mn 4096 --ks 4096 --dtypes fp16 \
      --t09-config "$cfg" \
      --targets "tilec;tilec:TILEC_WARP_SPECIALIZE=all;${regs}triton" \
      --json "$OUT/tutorial09-ws-4096.json" 2>&1 | tail -14
    [ -n "${NO_T06:-}" ] && exit 0
    timeout 300 $PY benchmarks/tutorial06.py --modes fwd --n 1024,4096 \
      --targets "tilec;tilec:TILEC_WARP_SPECIALIZE=1;triton" --json "$OUT/tutorial06-ws.json" \
      2>&1 | tail -24 ;;
  bench)
    install
    timeout 270 $PY benchmarks/tutorials.py --parts matmul --dtypes fp8 \
      --json "$OUT/tutorials.json" 2>&1 | tail -8
    timeout 170 $PY benchmarks/gpu_kernels.py --gpu-time --json "$OUT/gpu_kernels.json" 2>&1 | tail -18
    timeout 100 $PY benchmarks/attention_ptx_ab.py --ns 4096 --reps 30 2>&1 | tail -20 ;;
  startup) # issue 22's compile-time row (Triton's test_dot / test_dot3d, cold caches, both
    # compilers on this machine; per-test durations come back) and its first-call row
    # (tutorial 06 with its autotuning, fresh processes)
    install
    TILEC_CT=/tmp/compile-time
    timeout 300 bash scripts/conformance.sh --target both --mode gpu --files test_core.py \
      -k "test_dot" --cap 130 --out $TILEC_CT --json "$OUT/compile-time.json" 2>&1 | tail -22
    for t in tilec triton; do
      gzip -c $TILEC_CT/gpu/$t/results.jsonl > "$OUT/compile-time-$t.jsonl.gz"
    done
    timeout 330 $PY benchmarks/tutorial06.py --autotune --n 4096 --modes fwd \
      --targets "tilec;triton" --json "$OUT/tutorial06-autotune.json" 2>&1 | tail -16 ;;
  rows) # the other rows of issue 22 but tutorial 06's grid: tutorial 03 FP8 and 05's layer
    # norm, the seed kernels (matmul, attention) by GPU time, GELU beside CUDA C++
    install
    timeout 230 $PY benchmarks/tutorials.py --parts matmul,layernorm --sizes 8192 --dtypes fp8 \
      --json "$OUT/tutorials-fp8-layernorm.json" 2>&1 | tail -14
    timeout 170 $PY benchmarks/gpu_kernels.py --gpu-time --json "$OUT/gpu_kernels.json" 2>&1 | tail -18
    timeout 80 $PY benchmarks/gpu_gelu_cuda.py --json "$OUT/gelu_cuda.json" 2>&1 | tail -6 ;;
  bwdprof) # ncu, tilec | Triton side by side: tutorial 06's backward kernels (D 64, N 1024)
    # and tutorial 05's layer-norm backward kernels (N 8192): the rows nearest 1.0 x
    install
    T06="python3 scripts/profile_t06.py --mode bwd --d 64 --n 1024"
    T05="python3 scripts/profile_t05.py --n 8192"
    for pair in "attn_bwd|regex:^_attn_bwd\$|$T06" "attn_pre|regex:_attn_bwd_preprocess|$T06" \
        "ln_dx|regex:_layer_norm_bwd_dx_fused|$T05" "ln_dwdb|regex:_layer_norm_bwd_dwdb|$T05"; do
      IFS='|' read -r name k cmd <<< "$pair"
      echo "== $name"
      A_K=$k B_K=$k A_CMD=$cmd B_CMD=$cmd A_ENV=TILEC_AS_TRITON=1 B_ENV="" NO_SOURCE=1 \
        OUT=$OUT/$name timeout 150 bash scripts/ncu_pair.sh 2>&1 | tail -40
    done ;;
  *) echo "device_session.sh: modes check | conf | t06 | ws | ws2 | bench | startup | rows | bwdprof" >&2
     exit 2 ;;
esac
