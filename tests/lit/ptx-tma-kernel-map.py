# With --tma, a 2-D tl.make_tensor_descriptor builds its tensor map in the kernel when a K
# loop's wgmma ring copies its blocks by TMA: warp 0 zeroes 128 bytes of shared memory,
# thread 0 sets each field (innermost dim first; PTX ISA 8.6, whose ptxas reads the stride
# in bytes), the warp copies the map to the program's slot of global scratch (the kernel's
# last parameter) and fences it for the tensor-map proxy; the copies then read it there.
# TMA needs strides of whole 16-byte units: A's (K, i32:16) is proved so, B's (N, an i32
# without :16) is not, so B's map is built after a check that stops the kernel when it
# does not hold (the descriptor's contract, as in Triton): a trap, not __assertfail, in
# this kernel of wgmma dots (a call would serialise them), which the PTX header notes.
# CMD: tilec ptx %s:mm --signature "*fp16:16,*fp16:16,*fp32:16,i32:16,i32,i32:16" --constexpr BM=128 --constexpr BN=128 --constexpr BK=64 --num-stages 3 --arch sm_90a --tma
# CHECK: // tilec trap: {{.*}}ptx-tma-kernel-map.py:{{[0-9]+}}: tl.make_tensor_descriptor: the base must be 16-byte aligned
# CHECK: .version 8.6
# the trap's message and file are in the note above, not .global strings
# CHECK-NOT: .global .align 1 .b8
# CHECK: .param .u64 mm_param_6
# CHECK: ld.param.u64 %rd{{[0-9]+}}, [mm_param_6];
# CHECK: mul.wide.u32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 256;
# CHECK-NOT: __assertfail
# CHECK: st.shared.b32
# CHECK: bar.warp.sync
# CHECK: tensormap.replace.tile.global_address.shared::cta.b1024.b64
# CHECK: tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r{{[0-9]+}}], 1;
# CHECK: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r{{[0-9]+}}], 0, 64;
# CHECK: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r{{[0-9]+}}], 1, 128;
# CHECK: tensormap.replace.tile.global_stride.shared::cta.b1024.b64
# CHECK: tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r{{[0-9]+}}], 6;
# CHECK: tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r{{[0-9]+}}], 3;
# CHECK: tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r{{[0-9]+}}], 0;
# CHECK: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd{{[0-9]+}}], [%r{{[0-9]+}}], 128;
# CHECK: fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
# CHECK: @%p{{[0-9]+}} trap; // {{.*}}ptx-tma-kernel-map.py:{{[0-9]+}}: tl.make_tensor_descriptor
# CHECK: tensormap.replace.tile.global_address.shared::cta.b1024.b64
# CHECK: fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
# CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# CHECK: wgmma.mma_async.sync.aligned
import tilec
import tilec.language as tl


@tilec.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
