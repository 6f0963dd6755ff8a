"""`triton.runtime.driver`: `driver.active` is the CUDA driver when tilec finds a GPU, else
the CPU driver (kernels then run on the tile interpreter over host arrays). Triton's
tutorials start with `DEVICE = triton.runtime.driver.active.get_active_torch_device()`
and size launches with `driver.active.utils.get_device_properties(...)`: both work here,
on either driver."""

from __future__ import annotations

import sys

from .. import _C
from ..backends.compiler import GPUTarget


def _torch():
    import torch  # the torch device / stream queries need it, as in Triton

    return torch


def _gpu_present() -> bool:
    if not hasattr(_C, "gpu_driver_available"):
        return False
    ok, _ = _C.gpu_driver_available()
    return ok and _C.gpu_device_count() > 0


class CudaUtils:
    def get_device_properties(self, device: int) -> dict:
        """Triton's keys: max_shared_mem (bytes a program may opt in to), max_num_regs (per
        block), multiprocessor_count, warpSize, sm_clock_rate / mem_clock_rate (kHz),
        mem_bus_width (bits)."""
        p = _C.gpu_device_props(int(device))
        return {"max_shared_mem": p["max_shared_mem"],
                "max_num_regs": p["max_registers_per_block"],
                "multiprocessor_count": p["multiprocessor_count"], "warpSize": 32,
                "sm_clock_rate": p["sm_clock_rate"], "mem_clock_rate": p["mem_clock_rate"],
                "mem_bus_width": p["mem_bus_width"]}


class CudaDriver:
    backend = "cuda"

    def __init__(self):
        self.utils = CudaUtils()

    @staticmethod
    def is_active() -> bool:
        return _gpu_present()

    def get_current_device(self) -> int:
        if "torch" in sys.modules:
            return _torch().cuda.current_device()
        return _C.gpu_current_device()

    def set_current_device(self, device: int) -> None:
        _torch().cuda.set_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        torch = _torch()
        return torch.cuda.current_stream(device).cuda_stream

    def get_device_capability(self, device: int | None = None) -> tuple:
        p = _C.gpu_device_props(self.get_current_device() if device is None else int(device))
        return tuple(p["capability"])

    def get_current_target(self) -> GPUTarget:
        major, minor = self.get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, 32)

    def get_active_torch_device(self):
        return _torch().device("cuda", self.get_current_device())

    def get_device_interface(self):
        return _torch().cuda

    def get_benchmarker(self):
        from ..testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A buffer larger than the L2 cache: clear_cache writes it between timed runs."""
        return _torch().empty(256 * 1024 * 1024 // 4, dtype=_torch().int32, device="cuda")

    def clear_cache(self, cache) -> None:
        cache.zero_()


class CpuUtils:
    def get_device_properties(self, device=None) -> dict:
        """The interpreter runs one program at a time, with no registers or shared memory
        to budget: one "multiprocessor", and no limits (0) where Triton reports sizes."""
        return {"max_shared_mem": 0, "max_num_regs": 0, "multiprocessor_count": 1,
                "warpSize": 32, "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0}


class CpuDriver:
    """No GPU: kernels run on the tile interpreter over numpy arrays and CPU tensors."""

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
        from ..testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self):
        import numpy as np

        return np.empty(64 * 1024 * 1024 // 4, dtype=np.int32)

    def clear_cache(self, cache) -> None:
        cache[...] = 0


class DriverConfig:
    """`driver.active` (chosen at first use), `driver.default`, `set_active`, `reset_active`."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = CudaDriver() if CudaDriver.is_active() else CpuDriver()
        return self._default

    @property
    def active(self):
        return self._active if self._active is not None else self.default

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = None


driver = DriverConfig()

__all__ = ["driver", "DriverConfig", "CudaDriver", "CpuDriver", "GPUTarget"]
