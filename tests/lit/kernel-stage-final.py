# After the pipeline: x*1 and x+0 are gone, the two program_ids are one, and the zeros
# plus 2.0 is a constant tile (the same kernel as kernel-stage-frontend.py).
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=64
# CHECK: tt.func @k(%out: ptr<fp32>) {
# CHECK-NEXT: %0 = program_id {axis = 0} : i32
# CHECK-NEXT: %1 = arange {end = 64, start = 0} : tile<64xi32>
# CHECK-NEXT: %2 = addptr %out, %0 : ptr<fp32>, i32 -> ptr<fp32>
# CHECK-NEXT: %3 = addptr %2, %0 : ptr<fp32>, i32 -> ptr<fp32>
# CHECK-NOT: program_id
# CHECK-NOT: mul
# CHECK: %6 = constant {value = 2.0} : tile<64xfp32>
# CHECK-NEXT: store %5, %6
# CHECK-NEXT: return
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr):
    a = tl.program_id(0) * 1
    b = tl.program_id(0) + 0
    offs = tl.arange(0, BLOCK)
    x = tl.zeros((BLOCK,), dtype=tl.float32) + 2.0
    tl.store(out + a + b + offs, x * 1.0)
