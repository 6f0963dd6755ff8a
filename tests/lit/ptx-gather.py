# tl.gather of a [128, 64] fp32 tile along axis 0: the source is staged row-major in shared
# memory (16-byte stores, 4 warps' worth of rows apart), one barrier, then per element an
# and (the index masked to the 128 rows), one mad onto a per-thread base (the index times
# a row's 256 bytes) and one ld.shared with the element's column as an immediate offset.
# CMD: tilec ptx %s:gather_rows --signature "*fp32:16,*i32:16,*fp32:16" --constexpr BM=128 --constexpr BN=64 --num-warps 4 --arch sm_90a
# CHECK: .extern .shared .align 16 .b8 global_smem[];
# CHECK: st.shared.v4.b32 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
# CHECK: st.shared.v4.b32 [%r{{[0-9]+}}+2048]
# CHECK-NOT: ld.shared
# CHECK: bar.sync 0;
# CHECK: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 127;
# CHECK: mad.lo.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 4, %r{{[0-9]+}};
# CHECK-NEXT: mad.lo.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 256, %r{{[0-9]+}};
# CHECK-NEXT: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 127;
# CHECK-NEXT: mad.lo.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 256, %r{{[0-9]+}};
# CHECK: ld.shared.b32 %r{{[0-9]+}}, [%r{{[0-9]+}}+4];
# CHECK-NOT: bar.sync
# CHECK: st.global.v4.b32
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def gather_rows(S, I, O, BM: tl.constexpr, BN: tl.constexpr):
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    src = tl.load(S + offs)
    idx = tl.load(I + offs)
    tl.store(O + offs, tl.gather(src, idx, 0))
