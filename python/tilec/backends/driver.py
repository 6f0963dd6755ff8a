"""`triton.backends.driver`: the interface of a driver (what `triton.runtime.driver.active`
is). tilec's drivers: `backends.nvidia.driver.CudaDriver` and, without a GPU,
`backends.cpu.CpuDriver`."""

from __future__ import annotations

import abc

from .. import _fastpath, knobs


class DriverBase(abc.ABC):

    @classmethod
    @abc.abstractmethod
    def is_active(cls) -> bool:
        ...

    @abc.abstractmethod
    def get_current_target(self):
        ...

    @abc.abstractmethod
    def get_active_torch_device(self):
        ...

    @abc.abstractmethod
    def get_benchmarker(self):
        """The function that times kernels (do_bench's signature)."""

    def set_interpret_mode(self, enabled: bool) -> None:
        """Later launches run on the CPU tile interpreter (torch CUDA tensors copied to the
        host and back), as TILEC_INTERPRET=1 does; False goes back to the GPU."""
        knobs.runtime.interpret = bool(enabled)
        _fastpath.drop()  # launches bound in C++ would skip the switch

    def map_python_to_cpp_type(self, ty: str) -> str:
        """The C type of a Triton signature type ("*fp32" -> "CUdeviceptr", "i32" ->
        "int32_t"), as the launchers Triton generates declare their arguments."""
        if ty.startswith("*"):
            return "CUdeviceptr"
        return _C_TYPES.get(ty, ty)


_C_TYPES = {"i1": "int8_t", "u1": "uint8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t",
            "i64": "int64_t", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t",
            "u64": "uint64_t", "fp16": "double", "bf16": "double", "fp32": "double",
            "fp64": "double", "nvTmaDesc": "CUtensorMap"}


class GPUDriver(DriverBase):
    """A driver of a GPU whose streams and devices torch manages (Triton's base of the
    CUDA and HIP drivers)."""


__all__ = ["DriverBase", "GPUDriver"]
