"""`triton.backends`: only what user code imports from it (compiler.GPUTarget)."""

from . import compiler

__all__ = ["compiler"]
