# tl.histogram of 4096 int32 values into 256 bins on 4 warps: the bins are zeroed in shared
# memory in the layout the store wants (two per thread, one v2 store), a barrier, then per
# value one unsigned range check (negative values are huge) and a predicated
# red.shared.add.u32 of 1 at its bin, a barrier, and each thread reads its two bins back.
# CMD: tilec ptx %s:hist --signature "*i32:16,*i32:16" --constexpr N=4096 --constexpr B=256 --num-warps 4 --arch sm_90a
# CHECK: st.shared.v2.b32 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
# CHECK-NEXT: bar.sync 0;
# CHECK: setp.lt.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, 256;
# CHECK-NEXT: mad.lo.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 4, %r{{[0-9]+}};
# CHECK-NEXT: @%p{{[0-9]+}} red.shared.add.u32 [%r{{[0-9]+}}], %r{{[0-9]+}};
# CHECK: bar.sync 0;
# CHECK: ld.shared.b32
# CHECK: st.global.v2.b32
import tilec as triton
import tilec.language as tl


@triton.jit
def hist(X, H, N: tl.constexpr, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(H + tl.arange(0, B), tl.histogram(x, B))
