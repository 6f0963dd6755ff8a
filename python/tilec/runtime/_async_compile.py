"""`triton.runtime._async_compile`, where Triton keeps AsyncCompileMode and its
`active_mode` (tilec/_async_compile.py; the JIT imports it before this package exists)."""

from .._async_compile import AsyncCompileMode, FutureKernel, active_mode

__all__ = ["AsyncCompileMode", "FutureKernel", "active_mode"]
