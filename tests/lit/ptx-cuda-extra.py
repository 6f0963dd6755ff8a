# tl.extra.cuda: gdc_wait is griddepcontrol.wait, ahead of the first load it orders (sm_90);
# globaltimer and smid read %globaltimer (64-bit) and %smid; num_threads is a constexpr;
# gdc_launch_dependents after the stores.
# CMD: tilec ptx %s:scaled --signature "*fp32:16,*fp32:16,*i64:16" --constexpr N=256 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry scaled(
# CHECK: griddepcontrol.wait;
# CHECK-NOT: ld.global
# CHECK: mov.u64 %rd{{[0-9]+}}, %globaltimer;
# CHECK: ld.global
# CHECK: mov.u32 %r{{[0-9]+}}, %smid;
# CHECK: st.global
# CHECK: griddepcontrol.launch_dependents;
# CHECK: ret;
import tilec as triton
import tilec.language as tl
from triton.language.extra.cuda import gdc_wait


@triton.jit
def scaled(X, Y, T, N: tl.constexpr):
    gdc_wait()
    t0 = tl.extra.cuda.globaltimer()
    off = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(X + off)
    tl.store(Y + off, x * (tl.extra.cuda.num_threads() + tl.extra.cuda.smid()))
    tl.store(T + tl.program_id(0), t0)
    tl.extra.cuda.gdc_launch_dependents()
