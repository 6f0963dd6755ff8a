"""What Triton programs import from Triton's native module, `triton._C.libtriton` (under
the drop-in switch this package answers that name): `nvidia.cublas.CublasLt`, the cuBLAS
binding tutorial 09 compares its kernels with."""

from . import nvidia

__all__ = ["nvidia"]
