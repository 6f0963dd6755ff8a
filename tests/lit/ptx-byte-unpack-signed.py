# ptx-byte-unpack.py for signed bytes: each prmt sign-extends byte k (selector nibbles
# 8 | k above k: 0x8880 = 34944, 0x9991 = 39313, 0xaaa2 = 43682, 0xbbb3 = 48051), and the
# 16-bit element is its low half.
# CMD: tilec ptx %s:bytes_plus_one --signature "*i8:16,*i8:16" --constexpr BLOCK=2048 --num-warps 4 --arch sm_90a
# CHECK: ld.global.v4.b32 {%r37, %r38, %r39, %r40}
# CHECK-NEXT: prmt.b32 %r41, %r37, 0, 34944;
# CHECK-NEXT: cvt.s16.s32 %rs1, %r41;
# CHECK-NEXT: prmt.b32 %r42, %r37, 0, 39313;
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 43682;
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 48051;
import tilec as triton
import tilec.language as tl


@triton.jit
def bytes_plus_one(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x + 1)
