"""`CublasLt(workspace)`: Triton's cuBLASLt binding, with its methods `matmul(A, B, C)`
(C = A @ B.T) and `gemm(A, B, C, D, alpha, beta)` (D = alpha * A @ B.T + beta * C), for
torch CUDA tensors. tilec calls cuBLAS(Lt) through torch, which links it: `torch.matmul`
for fp16, bf16 and fp32 (fp32 with TF32 tensor cores, Triton's compute type for it),
`torch._scaled_mm` (cuBLASLt's fp8 GEMM, unit scales) for fp8 e4m3 / e5m2 operands, e4m3
with fast (imprecise) accumulation as Triton's binding asks: its results then match the
fp8 kernels' own wgmma accumulation (tutorial 09 compares them with atol 1 on fp8 outputs).
The workspace is kept as Triton's binding keeps it; torch manages cuBLAS's own."""

from __future__ import annotations

import sys


def _torch():
    torch = sys.modules.get("torch")  # a torch CUDA tensor means torch is imported
    if torch is None:
        raise TypeError("CublasLt works on torch CUDA tensors, and torch is not imported")
    return torch


class CublasLt:
    def __init__(self, workspace):
        torch = _torch()
        if not isinstance(workspace, torch.Tensor) or not workspace.is_cuda:
            raise TypeError("CublasLt(workspace): the workspace must be a torch CUDA tensor")
        self.workspace = workspace

    def _check(self, what, A, B, C):
        torch = _torch()
        for name, t in (("A", A), ("B", B), (what, C)):
            if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 2:
                raise TypeError(f"CublasLt: {name} must be a 2-D torch CUDA tensor")
        if A.shape[1] != B.shape[1]:
            raise ValueError(f"CublasLt: A is {tuple(A.shape)} and B is {tuple(B.shape)}; "
                             "B is given transposed (N x K), so their second dims must agree")
        if tuple(C.shape) != (A.shape[0], B.shape[0]):
            raise ValueError(f"CublasLt: {what} must be {A.shape[0]} x {B.shape[0]}, got "
                             f"{tuple(C.shape)}")
        if A.dtype != B.dtype:
            raise TypeError(f"CublasLt: A and B must have one dtype, got {A.dtype} and "
                            f"{B.dtype}")

    def _product(self, A, B, out_dtype):
        torch = _torch()
        if A.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            one = torch.ones((), device=A.device, dtype=torch.float32)
            return torch._scaled_mm(A, B.T, scale_a=one, scale_b=one, out_dtype=out_dtype,
                                    use_fast_accum=A.dtype == torch.float8_e4m3fn)
        return self._matmul(A, B)

    @staticmethod
    def _matmul(A, B, out=None):
        torch = _torch()
        tf32 = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = A.dtype == torch.float32 or tf32
        try:
            return torch.matmul(A, B.T) if out is None else torch.matmul(A, B.T, out=out)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = tf32

    def matmul(self, A, B, C):
        """C = A @ B.T."""
        self._check("C", A, B, C)
        torch = _torch()
        if A.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            C.copy_(self._product(A, B, C.dtype))
        else:
            self._matmul(A, B, C) if C.dtype == A.dtype else C.copy_(self._matmul(A, B))
        return C

    def gemm(self, A, B, C, D, alpha: float, beta: float):
        """D = alpha * (A @ B.T) + beta * C."""
        self._check("C", A, B, C)
        self._check("D", A, B, D)
        torch = _torch()
        prod = self._product(A, B, torch.float32 if A.dtype.itemsize == 1 else A.dtype)
        D.copy_(alpha * prod.float() + beta * C.float())
        return D


__all__ = ["CublasLt"]
