"""`triton.runtime.driver`: `driver.active` is the CUDA driver when tilec finds a GPU, else
the CPU driver (kernels then run on the tile interpreter over host arrays). Triton's
tutorials start with `DEVICE = triton.runtime.driver.active.get_active_torch_device()`
and size launches with `driver.active.utils.get_device_properties(...)`: both work here,
on either driver. The object is backends/_active.py's (the compiler asks it too)."""

from __future__ import annotations

from ..backends import backends  # noqa: F401 - importable from here before
from ..backends._active import DriverConfig, driver
from ..backends.compiler import GPUTarget
from ..backends.cpu import CpuDriver
from ..backends.driver import DriverBase  # noqa: F401 - importable from here before
from ..backends.nvidia.driver import CudaDriver

__all__ = ["driver", "DriverConfig", "CudaDriver", "CpuDriver", "GPUTarget"]
