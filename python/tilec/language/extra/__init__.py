"""`tl.extra`: Triton's extra libraries: libdevice (CUDA's math library) and `cuda`;
`tl.extra.libdevice` and `tl.extra.cuda.libdevice` are the same module of stubs."""

from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
