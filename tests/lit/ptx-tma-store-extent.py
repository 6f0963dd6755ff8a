# A TMA store writes whole 16-byte units of the inner dimension, so past an inner extent of
# any other size (an H200 does; Triton 3.6's descriptor stores write there). Without the
# ":16" fact (the shape entries multiples of 16) the store stays an ordinary masked one.
# CMD: tilec ptx %s:k --signature "tensordesc<fp16[64,64]>,tensordesc<fp16[64,64]>" --constexpr BM=64 --constexpr BN=64 --arch sm_90a --tma
# CHECK-NOT: cp.async.bulk.tensor.2d.global
# CHECK: st.global
# CHECK-NOT: cp.async.bulk.tensor.2d.global
import tilec
import tilec.language as tl


@tilec.jit
def k(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dst.store([m, n], src.load([m, n]) * 2)
