"""`triton.runtime.driver`: `driver.active` is the CUDA driver when tilec finds a GPU, else
the CPU driver (kernels then run on the tile interpreter over host arrays). Triton's
tutorials start with `DEVICE = triton.runtime.driver.active.get_active_torch_device()`
and size launches with `driver.active.utils.get_device_properties(...)`: both work here,
on either driver."""

from __future__ import annotations

import numpy as np

from ..backends import backends
from ..backends.compiler import GPUTarget
from ..backends.driver import DriverBase
from ..backends.nvidia.driver import CudaDriver
from ..testing import do_bench


def _torch():
    import torch  # torch.device needs it

    return torch


class CpuUtils:
    def get_device_properties(self, device=None) -> dict:
        """The interpreter runs one program at a time, with no registers or shared memory
        to budget: one "multiprocessor", and no limits (0) where Triton reports sizes."""
        return {"max_shared_mem": 0, "max_num_regs": 0, "multiprocessor_count": 1,
                "warpSize": 32, "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0}


class CpuDriver(DriverBase):
    """No GPU: kernels run on the tile interpreter over numpy arrays and CPU tensors. Not a
    back end of `triton.backends.backends` (libraries would take it for triton-cpu)."""

    backend = "cpu"

    def __init__(self):
        self.utils = CpuUtils()

    @staticmethod
    def is_active() -> bool:
        return True

    def get_current_device(self) -> str:
        return "cpu"

    def set_current_device(self, device) -> None:
        if device != "cpu":
            raise ValueError(f"the CPU driver has only the device 'cpu', not {device!r}")

    def get_current_stream(self, device=None):
        return None

    def get_device_capability(self, device=None) -> tuple:
        return ("cpu", 0)

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", 0, 32)

    def get_active_torch_device(self):
        return _torch().device("cpu")

    def get_device_interface(self):
        return _torch().cpu

    def get_benchmarker(self):
        return do_bench

    def get_empty_cache_for_benchmark(self):
        return np.empty(64 * 1024 * 1024 // 4, dtype=np.int32)

    def clear_cache(self, cache) -> None:
        cache[...] = 0


def _create_driver() -> DriverBase:
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
