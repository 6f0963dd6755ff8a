"""The CPU back end, `triton.backends.backends["cpu"]` (triton-cpu's name): its target
`GPUTarget("cpu", 0, 32)` is what `driver.active` reports without a GPU, and
`triton.compile` builds the kernel for the tile interpreter (compiler/host.py), so code
that compiles through Triton's API (Inductor's Triton back end for CPU tensors,
`torch._inductor.config.cpu_backend = "triton"`) runs on tilec, with or without a GPU."""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from .. import _C
from ..testing import do_bench
from .compiler import GPUTarget, OptionsBase, TilecBackend
from .driver import DriverBase


@dataclasses.dataclass(frozen=True)
class CPUOptions(OptionsBase):
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 3
    warp_size: int = 32
    maxnreg: Optional[int] = None
    enable_fp_fusion: bool = True
    enable_reflect_ftz: bool = True
    debug: bool = False
    backend_name: str = "cpu"
    sanitize_overflow: bool = True
    supported_fp8_dtypes: tuple = ("fp8e4nv", "fp8e5", "fp8e4b15")
    deprecated_fp8_dot_operand_dtypes: tuple = ()
    default_dot_input_precision: str = "ieee"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    extern_libs: Optional[tuple] = None
    arch: str = "cpu"
    instrumentation_mode: str = ""


class CPUBackend(TilecBackend):
    binary_ext = "tileir"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cpu"

    def hash(self) -> str:
        return f"tilec-{_C.__version__}-cpu"

    def get_target_name(self, options) -> str:
        return "cpu"

    def parse_options(self, opts: dict) -> CPUOptions:
        return CPUOptions(**{k: v for k, v in opts.items()
                             if k in CPUOptions.__dataclass_fields__ and v is not None})


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
    """Kernels run on the tile interpreter over numpy arrays and CPU tensors: the active
    driver when there is no GPU, and the one torch's Inductor switches to for the Triton
    kernels of CPU tensors (`triton.backends.backends["cpu"]`, as with triton-cpu)."""

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


__all__ = ["CPUBackend", "CPUOptions", "CpuDriver", "CpuUtils"]
