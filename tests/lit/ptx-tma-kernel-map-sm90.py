# Tensor maps are built in the kernel only for sm_90a (tensormap.replace is an sm_90a
# instruction): on plain sm_90 a tl.make_tensor_descriptor's store stays an ordinary one,
# where a host descriptor's would be a TMA store (ptx-tma-store.py), and no scratch
# parameter is added.
# CMD: tilec ptx %s:k --signature "*fp32:16,*fp32:16,i32:16,i32:16" --constexpr BM=64 --constexpr BN=64 --arch sm_90 --tma
# CHECK: .target sm_90
# CHECK-NOT: .param .u64 k_param_4
# CHECK-NOT: tensormap
# CHECK-NOT: cp.async.bulk
# CHECK: st.global
import tilec
import tilec.language as tl


@tilec.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    yd.store([m, n], xd.load([m, n]) + 1)
