"""Whether the GPU tests can run: torch (None on the CPU-only CI image) and HAVE_GPU (torch
with CUDA, and tilec's driver layer finding a GPU)."""

import tilec._C as _C

try:
    import torch
except ImportError:  # the CPU-only CI image
    torch = None


def _have_gpu():
    if torch is None or not hasattr(_C, "gpu_driver_available"):
        return False
    ok, _ = _C.gpu_driver_available()
    return ok and _C.gpu_device_count() > 0 and torch.cuda.is_available()


HAVE_GPU = _have_gpu()


def sm90_torch(what="TMA"):
    """torch, for a GPU test that needs an sm_90 GPU (TMA, wgmma); skips the test otherwise."""
    import pytest
    if torch is None or not torch.cuda.is_available() or \
            torch.cuda.get_device_capability()[0] < 9:
        pytest.skip(f"{what} needs an sm_90 GPU")
    return torch


def small_int_operands(M, N, K, seed=0):
    """fp16 A (M, K) and B (K, N) of small integers, and their exact fp32 product."""
    import numpy as np
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


def randn_operands(torch, M, N, K, seed, c_dtype=None):
    """fp16 A (M, K) and B (K, N) of torch.randn on the GPU, and a NaN-filled C (M, N) of
    `c_dtype` (torch.float16 by default)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((M, K), device="cuda", generator=g).half()
    b = torch.randn((K, N), device="cuda", generator=g).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=c_dtype or torch.float16)
    return a, b, c


def grouped_operands(torch, shapes, seed, b_transposed=False):
    """Tutorial 08's inputs for (M, N, K) groups: fp16 A (M, K), B (K, N) or (N, K), a zero
    C (M, N) each, the device tables of their addresses (u64) and of the sizes (i32 M, N, K
    a group): (a, b, c, [a_ptrs, b_ptrs, c_ptrs], sizes)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = [torch.randn((m, k), device="cuda", generator=g).half() for m, n, k in shapes]
    b = [torch.randn((n, k) if b_transposed else (k, n), device="cuda", generator=g).half()
         for m, n, k in shapes]
    c = [torch.zeros((m, n), device="cuda", dtype=torch.float16) for m, n, k in shapes]
    ptrs = [torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.uint64)
            for ts in (a, b, c)]
    sizes = torch.tensor([v for s in shapes for v in s], device="cuda", dtype=torch.int32)
    return a, b, c, ptrs, sizes
