# The seed grouped fp16 matmul: a run-time loop over K with three carried values;
# the loop-invariant parts of the masks and pointer increments are hoisted out of it.
# CMD: tilec ir %s:matmul_kernel --signature "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32" --constexpr BLOCK_SIZE_M=32 --constexpr BLOCK_SIZE_N=32 --constexpr BLOCK_SIZE_K=16 --constexpr GROUP_SIZE_M=8
# CHECK: tt.func @matmul_kernel(%a_ptr: ptr<fp16>, %b_ptr: ptr<fp16>, %c_ptr: ptr<fp16>, %M: i32, %N: i32, %K: i32,
# CHECK: min
# CHECK: = constant {value = 0.0} : tile<32x32xfp32>
# CHECK: cmp {{%[0-9]+}}, {{%[0-9]+}} {pred = "lt"} : tile<32x1xi32> -> tile<32x1xi1>
# CHECK: mul {{%[0-9]+}}, %stride_ak : i32
# CHECK: = for {{%[0-9]+}}, %K, {{%[0-9]+}}, {{.*}} -> tile<32x16xptr<fp16>>, tile<32x32xfp32>, tile<16x32xptr<fp16>> {
# CHECK-NEXT: ^bb({{.*}}: i32, {{.*}}: tile<32x16xptr<fp16>>, {{.*}}: tile<32x32xfp32>, {{.*}}: tile<16x32xptr<fp16>>):
# CHECK-NOT: stride_ak
# CHECK: load {{.*}} -> tile<32x16xfp16>
# CHECK: load {{.*}} -> tile<16x32xfp16>
# CHECK: dot {{.*}} : tile<32x16xfp16>, tile<16x32xfp16>, tile<32x32xfp32> -> tile<32x32xfp32>
# CHECK: yield
# CHECK-NEXT: }
# CHECK: cast {{%[0-9]+}}#1 : tile<32x32xfp32> -> tile<32x32xfp16>
# CHECK: store
import tilec as triton
import tilec.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a_mask = (offs_am[:, None] < M) & ((k + offs_k[None, :]) < K)
        b_mask = ((k + offs_k[:, None]) < K) & (offs_bn[None, :] < N)
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
