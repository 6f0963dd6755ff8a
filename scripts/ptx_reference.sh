#!/usr/bin/env bash
# The PTX of the reference kernels a code-generation change is checked against (tutorial 06
# backward D 64 / 128; forward fp16 / fp8e5, D 64 / 128, STAGE 1 / 3 with host tensor
# descriptors; the warp_specialize forward with in-kernel descriptors, their tensor maps
# built by the kernel, D 64 / 128; the seed attention on sm_90a and sm_80; tutorial 03's
# matmul in fp16 and fp8), printed by build-test/tilec without a GPU:
#   bash scripts/ptx_reference.sh OUT_DIR             # one .ptx a kernel
#   bash scripts/ptx_reference.sh --compare DIR1 DIR2 # which differ
# A change meant to leave code generation alone shows "same" for all 16; one that changes
# them needs a GPU check (scripts/gpu_check.sh). Needs .triton (scripts/triton_subset.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--compare" ]; then
  for f in "$2"/*.ptx; do
    b=$(basename "$f")
    if cmp -s "$f" "$3/$b"; then echo "same $b"; else echo "DIFF $b"; fi
  done
  exit 0
fi
O=${1:?usage: ptx_reference.sh OUT_DIR | --compare DIR1 DIR2}
mkdir -p "$O"
TILEC=${TILEC:-./build-test/tilec}
T=.triton/python/tutorials/06-fused-attention.py
export TILEC_AS_TRITON=1
B="*fp16:16,*fp16:16,*fp16:16,fp32,*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:1,i32,i32:16"
for D in 64 128; do
  "$TILEC" ptx $T:_attn_bwd --signature "$B" --constexpr BLOCK_M1=32 --constexpr BLOCK_N1=128 \
    --constexpr BLOCK_M2=128 --constexpr BLOCK_N2=32 --constexpr BLK_SLICE_FACTOR=2 \
    --constexpr HEAD_DIM=$D --num-warps 4 --num-stages 5 --arch sm_90a > "$O/bwd$D.ptx"
  for DT in fp16 fp8e5; do
    for ST in 1 3; do
      FP8=$([ $DT = fp8e5 ] && echo True || echo False)
      # fp8's v is stored transposed (the tutorial's descriptor of shape [D, N])
      # ":16": shapes and strides divisible by 16, and --tma, as the tutorial's launches
      # compile them (without, the q load and o store go element by element)
      VD=$([ $DT = fp8e5 ] && echo "tensordesc<$DT[$D,64]>:16" || echo "tensordesc<$DT[64,$D]>:16")
      S="fp32,*fp32:16,i32,i32,tensordesc<$DT[128,$D]>:16,tensordesc<$DT[64,$D]>:16,$VD"
      S="$S,tensordesc<$DT[128,$D]>:16,i32:16"
      "$TILEC" ptx $T:_attn_fwd --signature "$S" --constexpr HEAD_DIM=$D --constexpr BLOCK_M=128 \
        --constexpr BLOCK_N=64 --constexpr FP8_OUTPUT=$FP8 --constexpr STAGE=$ST \
        --constexpr warp_specialize=False --constexpr IS_HOPPER=True --num-warps 4 --tma \
        --num-stages 3 --arch sm_90a > "$O/fwd_${DT}_${D}_$ST.ptx"
    done
  done
  S="fp32,*fp32:16,i32,i32,*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16"
  "$TILEC" ptx $T:_attn_fwd --signature "$S" --constexpr HEAD_DIM=$D --constexpr BLOCK_M=128 \
    --constexpr BLOCK_N=64 --constexpr FP8_OUTPUT=False --constexpr STAGE=1 \
    --constexpr warp_specialize=True --constexpr IS_HOPPER=True --num-warps 4 --num-stages 3 --tma \
    --arch sm_90a > "$O/ws_$D.ptx"
done
SA="*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1"
SA="$SA,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32,i32,i32"
for A in sm_90a sm_80; do
  "$TILEC" ptx tests/data/seed_kernels.py:fused_attention_kernel --signature "$SA" \
    --constexpr BLOCK_M=128 --constexpr BLOCK_N=64 --constexpr BLOCK_K=64 --num-warps 4 \
    --num-stages 3 --arch $A > "$O/seed_$A.ptx"
done
# tutorial 03's matmul at the configs its autotuner picks on an H200: fp16 and fp8 (e5m2)
T3=.triton/python/tutorials/03-matrix-multiplication.py
SM="*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1"
for DT in fp16 fp8e5; do
  BK=$([ $DT = fp8e5 ] && echo 128 || echo 64)
  "$TILEC" ptx $T3:matmul_kernel --signature "${SM/\*fp16:16,\*fp16:16/*$DT:16,*$DT:16}" \
    --constexpr BLOCK_SIZE_M=128 --constexpr BLOCK_SIZE_N=256 --constexpr BLOCK_SIZE_K=$BK \
    --constexpr GROUP_SIZE_M=8 --constexpr 'ACTIVATION=""' --num-warps 8 --num-stages 3 \
    --arch sm_90a > "$O/matmul03_$DT.ptx"
done
ls "$O" | wc -l
