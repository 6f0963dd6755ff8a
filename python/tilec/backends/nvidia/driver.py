"""`triton.backends.nvidia.driver`: the CUDA driver, active when tilec finds a GPU (through
its own libcuda loader, so without torch too). Device, stream and benchmarking queries
follow Triton's: torch's current device and stream when torch is loaded."""

from __future__ import annotations

import sys

from ... import _C
from ...testing import do_bench
from ..compiler import GPUTarget
from ..driver import GPUDriver


def _torch():
    import torch  # the torch device / stream queries need it, as in Triton

    return torch


def gpu_present() -> bool:
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


class CudaDriver(GPUDriver):
    backend = "cuda"

    def __init__(self):
        self.utils = CudaUtils()
        # by device index: a device's compute capability does not change in a process
        self._capability: dict = {}
        self._targets: dict = {}

    @staticmethod
    def is_active() -> bool:
        # With torch loaded, its answer first, as Triton's driver asks: in Inductor's compile
        # workers (forked after the parent initialised CUDA) torch answers from its cached
        # device count, where a fresh cuInit would fail.
        torch = sys.modules.get("torch")
        if torch is not None and getattr(torch, "cuda", None) is not None:
            try:
                if torch.cuda.is_available() and torch.version.hip is None:
                    return True
            except Exception:  # noqa: BLE001 - a broken torch CUDA: ask the driver
                pass
        return gpu_present()

    def get_current_device(self) -> int:
        if "torch" in sys.modules:
            return _torch().cuda.current_device()
        return _C.gpu_current_device()

    def set_current_device(self, device: int) -> None:
        _torch().cuda.set_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        return _torch().cuda.current_stream(device).cuda_stream

    def get_device_capability(self, device: int | None = None) -> tuple:
        if device is None:
            device = self.get_current_device()
        cap = self._capability.get(device) if type(device) is int else None
        if cap is None:
            if "torch" in sys.modules:  # no driver call (see is_active)
                cap = tuple(_torch().cuda.get_device_capability(device))
            else:
                cap = tuple(_C.gpu_device_props(int(device))["capability"])
            if type(device) is int:
                self._capability[device] = cap
        return cap

    def get_current_target(self) -> GPUTarget:
        """Of the current device. Tutorials ask it several times a launch (is_hip(),
        is_hopper(), ...): a device's capability is asked of torch (or the driver) once, and
        each call costs the current-device query and a dict lookup."""
        device = self.get_current_device()
        target = self._targets.get(device)
        if target is None:
            major, minor = self.get_device_capability(device)
            target = self._targets[device] = GPUTarget("cuda", major * 10 + minor, 32)
        return target

    def get_active_torch_device(self):
        return _torch().device("cuda", self.get_current_device())

    def get_device_interface(self):
        return _torch().cuda

    def get_benchmarker(self):
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A buffer larger than the L2 cache: clear_cache writes it between timed runs."""
        torch = _torch()
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    def clear_cache(self, cache) -> None:
        cache.zero_()


__all__ = ["CudaDriver", "CudaUtils", "gpu_present"]
