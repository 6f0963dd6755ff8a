"""`triton.backends`: the compiler interface (`compiler.GPUTarget`, `BaseBackend`), the
driver interface (`driver.DriverBase`) and `backends`, Triton's registry of installed back
ends by name: "nvidia", and "cpu" (the tile interpreter, triton-cpu's name)."""

from __future__ import annotations

import dataclasses

from . import compiler, cpu, driver, nvidia
from .compiler import BaseBackend, GPUTarget, Language
from .driver import DriverBase, GPUDriver


@dataclasses.dataclass(frozen=True)
class Backend:
    compiler: type
    driver: type


# CUDA first: the first active driver is the default one (the CPU's is always active)
backends = {"nvidia": Backend(nvidia.compiler.CUDABackend, nvidia.driver.CudaDriver),
            "cpu": Backend(cpu.CPUBackend, cpu.CpuDriver)}

__all__ = ["backends", "Backend", "BaseBackend", "DriverBase", "GPUDriver", "GPUTarget",
           "Language", "compiler", "cpu", "driver", "nvidia"]
