"""`triton.runtime.jit`: tilec's @jit machinery under Triton's module name."""

from ..jit import JITFunction, KernelInterface, jit

__all__ = ["JITFunction", "KernelInterface", "jit"]
