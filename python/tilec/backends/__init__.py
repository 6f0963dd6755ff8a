"""`triton.backends`: the compiler interface (`compiler.GPUTarget`, `BaseBackend`), the
driver interface (`driver.DriverBase`) and `backends`, Triton's registry of installed back
ends by name. tilec has one, "nvidia"."""

from __future__ import annotations

import dataclasses

from . import compiler, driver, nvidia
from .compiler import BaseBackend, GPUTarget, Language
from .driver import DriverBase, GPUDriver


@dataclasses.dataclass(frozen=True)
class Backend:
    compiler: type
    driver: type


backends = {"nvidia": Backend(nvidia.compiler.CUDABackend, nvidia.driver.CudaDriver)}

__all__ = ["backends", "Backend", "BaseBackend", "DriverBase", "GPUDriver", "GPUTarget",
           "Language", "compiler", "driver", "nvidia"]
