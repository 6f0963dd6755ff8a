"""`triton._C.libtriton.nvidia`: the cuBLAS binding (`cublas.CublasLt`)."""

from . import cublas

__all__ = ["cublas"]
