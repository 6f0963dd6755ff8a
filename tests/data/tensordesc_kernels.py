"""Kernels whose parameters are host tensor descriptors (Triton's TensorDescriptor), for the
ahead-of-time paths: `tilec compile` (tests/python/test_cli_aot.py, tests/lit, examples/cpp)
and the C++ API (tests/cpp/api). Signatures spell them `tensordesc<fp32[32, 64]>`."""
import tilec as triton
import tilec.language as tl


@triton.jit
def desc_scale(src, dst, alpha, BM: tl.constexpr, BN: tl.constexpr):
    """dst = src * alpha, a BM x BN block per program: grid (cdiv(M, BM), cdiv(N, BN))."""
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    dst.store([pm, pn], src.load([pm, pn]) * alpha)


@triton.jit
def desc_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    """c = a @ b (fp16 in, fp32 accumulation, fp16 out); out-of-bounds loads read zero."""
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pm, k]), b_desc.load([k, pn]), acc)
    c_desc.store([pm, pn], acc.to(tl.float16))
