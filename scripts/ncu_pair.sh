#!/usr/bin/env bash
# ncu on two kernels side by side (run on the device): stall reasons per issued instruction
# and pipe use of each ($OUT/m_a.txt, m_b.txt, printed as two columns), plus the first
# one's per-SASS source counters ($OUT/a_src.csv.gz; read with ncu's CSV columns).
#   bash scripts/ncu_pair.sh attention   # the seed attention (tilec) | torch's SDPA, N 4096
#   bash scripts/ncu_pair.sh t09         # tutorial 09's fp8 tma_persistent, K 512: tilec | Triton
#   bash scripts/ncu_pair.sh matmul      # the seed matmul (tilec) | cuBLAS, fp16 4096^3
# Or set A_K / A_CMD / B_K / B_CMD (kernel regex, command) yourself; A_ENV / B_ENV are put
# in front of each command, NCU_ARGS to every ncu run. NO_SOURCE=1 skips the source counters.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/ncu-pair}
mkdir -p "$OUT"
case ${1:-} in
  attention)
    A_K=regex:fused_attention A_CMD="python3 scripts/profile_attention.py --which seed"
    B_K=regex:flash B_CMD="python3 scripts/profile_attention.py --which sdpa" ;;
  t09)
    T="python3 scripts/profile_t09.py --kernel tma_persistent --dtype fp8 --k 512"
    A_K=regex:matmul_kernel_tma_persistent A_CMD="$T" A_ENV="TILEC_AS_TRITON=1"
    B_K=regex:matmul_kernel_tma_persistent B_CMD="$T" B_ENV="" ;;
  matmul)  # profiled from the script's cudaProfilerStart, after the seed's autotuning
    NCU_ARGS="--profile-from-start off"
    A_K=regex:matmul_kernel A_CMD="python3 scripts/profile_matmul.py --which tilec"
    B_K="regex:nvjet|gemm|xmma" B_CMD="python3 scripts/profile_matmul.py --which cublas" ;;
esac
: "${A_K:?}" "${A_CMD:?}" "${B_K:?}" "${B_CMD:?}"
st=""
for r in barrier long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle \
    not_selected selected dispatch_stall lg_throttle membar no_instruction branch_resolving \
    sleeping misc drain tex_throttle; do
  st="$st,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
M="sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"
M="$M,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,sm__inst_issued.sum,sm__cycles_elapsed.max,smsp__issue_active.avg.pct_of_peak_sustained_active"
M="$M,launch__registers_per_thread,launch__occupancy_limit_registers$st"
for w in a b; do
  if [ $w = a ]; then k=$A_K c=$A_CMD e=${A_ENV:-}; else k=$B_K c=$B_CMD e=${B_ENV:-}; fi
  env $e ncu --clock-control none ${NCU_ARGS:-} -k "$k" --launch-skip 3 --launch-count 1 --metrics "$M" \
    $c > "$OUT/m_$w.txt" 2>&1
done
if [ -z "${NO_SOURCE:-}" ]; then
  env ${A_ENV:-} ncu --clock-control none ${NCU_ARGS:-} -k "$A_K" --launch-skip 3 --launch-count 1 \
    --section SourceCounters --section WarpStateStats -f -o /tmp/a_ncu $A_CMD > /dev/null 2>&1
  ncu -i /tmp/a_ncu.ncu-rep --page source --csv --print-source sass | gzip > "$OUT/a_src.csv.gz"
fi
grep -hE "TFLOP|Error|error" "$OUT/m_a.txt" "$OUT/m_b.txt" | head -4
paste <(grep -E "^ +(sm|smsp|launch)__" "$OUT/m_a.txt" | awk '{print $1, $NF}') \
  <(grep -E "^ +(sm|smsp|launch)__" "$OUT/m_b.txt" | awk '{print $NF}')
