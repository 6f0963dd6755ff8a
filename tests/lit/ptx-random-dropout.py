# tl.rand as Philox rounds on 32-bit words: the seed's sign-extended 64 bits split into the
# two key words, each round a mul.hi.u32 and xors per live counter (those of the zero
# counters fold away), then the word's magnitude scaled to [0, 1).
# CMD: tilec ptx %s:dropout --signature "*fp32:16,*fp32:16,i32,fp32,i32" --constexpr BLOCK=128 --num-warps 4 --arch sm_90a
# CHECK: ld.param.s32 %r{{[0-9]+}}, [dropout_param_4];
# CHECK: cvt.s64.s32 %rd{{[0-9]+}}, %r{{[0-9]+}};
# CHECK: shr.u64
# CHECK: mul.hi.u32
# CHECK: xor.b32
# CHECK: mul.hi.u32
# CHECK: xor.b32
# CHECK: cvt.rn.f32.s32
# CHECK: st.global
import tilec as triton
import tilec.language as tl


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs, 2) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
