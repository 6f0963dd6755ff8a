# A tensor descriptor's load is a block pointer's: a tile of 64-bit element pointers,
# every dimension bounds-checked. With the row stride and shape divisible by 16 (the last
# stride is 1 by construction), a thread moves 16 contiguous fp16 bytes per access, as a
# tensor-of-pointers copy does; masked-off rows and columns are predicated off.
# CMD: tilec ptx %s:copy_tile --signature "*fp16:16,*fp16:16,i32:16,i32:16" --constexpr BM=64 --constexpr BN=64 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry copy_tile(
# CHECK: setp.lt.s32 %p{{[0-9]+}}
# CHECK: @%p{{[0-9]+}} ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
# CHECK-NOT: ld.global.b16
# CHECK: @%p{{[0-9]+}} ld.global.v4.b32
# CHECK: @%p{{[0-9]+}} st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
# CHECK-NOT: st.global.b16
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def copy_tile(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    yd.store([pm, pn], xd.load([pm, pn]))
