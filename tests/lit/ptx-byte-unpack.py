# Bytes loaded four to a 32-bit word come out of it with one prmt each (ptxas: one PRMT),
# zero-extended for unsigned elements (selector 0x444k = 17472 + k) and sign-extended for
# signed ones (0xk' k' k' k with k' = 8 | k: 34944 for byte 0, 39313 for byte 1), not a
# shift, a conversion and a mask (two SASS instructions a byte).
# CMD: tilec ptx %s:bytes_plus_one --signature "*u8:16,*u8:16" --constexpr BLOCK=2048 --num-warps 4 --arch sm_90a
# CHECK: ld.global.v4.b32 {%r37, %r38, %r39, %r40}
# CHECK-NOT: and.b16
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 17472;
# CHECK-NOT: and.b16
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 17473;
# CHECK-NOT: and.b16
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 17474;
# CHECK-NOT: and.b16
# CHECK: prmt.b32 %r{{[0-9]+}}, %r37, 0, 17475;
import tilec as triton
import tilec.language as tl


@triton.jit
def bytes_plus_one(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x + 1)
