"""`triton.runtime.driver`: `driver.active` is the CUDA driver when tilec finds a GPU, else
the CPU driver (kernels then run on the tile interpreter over host arrays). Triton's
tutorials start with `DEVICE = triton.runtime.driver.active.get_active_torch_device()`
and size launches with `driver.active.utils.get_device_properties(...)`: both work here,
on either driver."""

from __future__ import annotations

from ..backends import backends
from ..backends.compiler import GPUTarget
from ..backends.cpu import CpuDriver
from ..backends.driver import DriverBase
from ..backends.nvidia.driver import CudaDriver


def _create_driver() -> DriverBase:
    """The first active driver: CUDA's when a GPU is found, else the CPU's (always active;
    registered last)."""
    for b in backends.values():
        if b.driver.is_active():
            return b.driver()
    return CpuDriver()


class DriverConfig:
    """`driver.active` (chosen at first use), `driver.default`, `set_active`, `reset_active`."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self) -> DriverBase:
        if self._default is None:
            self._default = _create_driver()
        return self._default

    @property
    def active(self) -> DriverBase:
        return self._active if self._active is not None else self.default

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = None


driver = DriverConfig()

__all__ = ["driver", "DriverConfig", "CudaDriver", "CpuDriver", "GPUTarget"]
