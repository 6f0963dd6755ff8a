"""`tl.extra`: Triton's extra libraries. Only libdevice (CUDA's math library) exists here;
`tl.extra.libdevice` and `tl.extra.cuda.libdevice` are the same module of stubs."""

from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
