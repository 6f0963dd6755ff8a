# tl.sort of 1024 fp32 on 4 warps: Triton's bitonic network, 55 exchange steps; each fetches
# the partner (in-thread, shfl.sync.bfly across lanes, shared memory across warps), compares
# and selects. The half-indicators are bits of each element's own column index, so no
# small i1 tile is moved between layouts (that took 16640 st.shared.u8 before).
# CMD: tilec ptx %s:sort1d --signature "*fp32:16,*fp32:16" --constexpr N=1024 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry sort1d(
# CHECK: ld.global.v4.b32
# CHECK: shfl.sync.bfly.b32
# CHECK: setp.gt.f32
# CHECK: selp.f32
# CHECK-NOT: st.shared.u8
# CHECK: st.global.v4.b32
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def sort1d(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.sort(tl.load(X + offs)))
