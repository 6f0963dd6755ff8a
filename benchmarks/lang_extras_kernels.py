"""Kernels for benchmarks/gpu_lang_extras.py: Triton's seeded-dropout tutorial (tl.rand)
and a matmul through block pointers (tl.make_block_ptr / tl.advance). IMPL names the
implementation (tilec or triton), as in tests/data/seed_kernels.py."""
import importlib
import os

IMPL = os.environ.get("IMPL", "tilec")
triton = importlib.import_module(IMPL)
tl = importlib.import_module(IMPL + ".language")


@triton.jit
def seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    output = tl.where(random > p, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, out, p, seed):
    n = x.numel()
    seeded_dropout_kernel[(triton.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                            stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size_m
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0),
                             (BLOCK_M, BLOCK_K), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N),
                             (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_bp, boundary_check=(0, 1))
        b = tl.load(b_bp, boundary_check=(0, 1))
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, (BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn),
                             (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc.to(tl.float16), boundary_check=(0, 1))


def block_ptr_matmul(a, b, c, bm=128, bn=256, bk=64, warps=8, stages=3):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    block_ptr_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                  b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                  BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                                  num_stages=stages)


@triton.jit
def row_sort_kernel(x_ptr, y_ptr, N: tl.constexpr):
    off = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(y_ptr + off, tl.sort(tl.load(x_ptr + off)))


def row_sort(x, y, num_warps=4):
    row_sort_kernel[(x.shape[0],)](x, y, N=x.shape[1], num_warps=num_warps)


@triton.jit
def desc_matmul_kernel(a_desc, b_desc, c_desc, M, N, K, GROUP_M: tl.constexpr):
    """The block-pointer matmul through host tensor descriptors (Triton uses TMA for them
    on Hopper; tilec lowers them as block pointers)."""
    BLOCK_M: tl.constexpr = a_desc.block_shape[0]
    BLOCK_K: tl.constexpr = a_desc.block_shape[1]
    BLOCK_N: tl.constexpr = b_desc.block_shape[1]
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size_m
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


def desc_matmul(a, b, c, bm=128, bn=256, bk=64, warps=8, stages=3):
    td = importlib.import_module(IMPL + ".tools.tensor_descriptor")
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    desc_matmul_kernel[grid](td.TensorDescriptor.from_tensor(a, [bm, bk]),
                             td.TensorDescriptor.from_tensor(b, [bk, bn]),
                             td.TensorDescriptor.from_tensor(c, [bm, bn]), M, N, K, GROUP_M=8,
                             num_warps=warps, num_stages=stages)
