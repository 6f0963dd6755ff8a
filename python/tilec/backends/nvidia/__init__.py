"""`triton.backends.nvidia`: tilec's CUDA back end (compiler options) and driver."""

from . import compiler, driver

__all__ = ["compiler", "driver"]
