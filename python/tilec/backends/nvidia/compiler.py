"""`triton.backends.nvidia.compiler`: Triton's CUDA options and back end over tilec's
pipeline. The options object is Triton's (Inductor reads and builds it); tilec's code
generator uses num_warps, num_stages, debug, enable_fp_fusion, maxnreg and arch, and
`triton.compile` (compiler/compiler.py) compiles with them. The MLIR stages Triton's back
end adds (`add_stages`) have no counterpart: tilec's stages are C++ passes."""

from __future__ import annotations

import dataclasses
from typing import Optional

from ... import _C, knobs
from ..._options import capability_of, check_num_ctas
from ..compiler import GPUTarget, OptionsBase, TilecBackend


@dataclasses.dataclass(frozen=True)
class CUDAOptions(OptionsBase):
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 3
    warp_size: int = 32
    maxnreg: Optional[int] = None
    ptx_version: Optional[int] = None
    ptx_options: Optional[str] = None
    ir_override: Optional[str] = None
    enable_fp_fusion: bool = True
    enable_reflect_ftz: bool = True
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    supported_fp8_dtypes: tuple = ("fp8e5", "fp8e4b15")
    deprecated_fp8_dot_operand_dtypes: tuple = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: Optional[int] = None
    extern_libs: Optional[tuple] = None
    debug: bool = False
    backend_name: str = "cuda"
    sanitize_overflow: bool = True
    arch: Optional[str] = None
    instrumentation_mode: str = ""


class CUDABackend(TilecBackend):
    binary_ext = "cubin"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cuda"

    def hash(self) -> str:
        return f"tilec-{_C.__version__}-{self.target.arch}"

    def get_target_name(self, options) -> str:
        return f"cuda:{capability_of(options.arch)}"

    def parse_options(self, opts: dict) -> CUDAOptions:
        args = {"arch": knobs.runtime.override_arch or f"sm{self.target.arch}"}
        args.update({k: v for k, v in opts.items()
                     if k in CUDAOptions.__dataclass_fields__ and v is not None})
        cc = capability_of(args["arch"])
        check_num_ctas(args.get("num_ctas", 1), cc)
        if "supported_fp8_dtypes" not in args:
            fp8 = set(CUDAOptions.supported_fp8_dtypes) | ({"fp8e4nv"} if cc >= 89 else set())
            args["supported_fp8_dtypes"] = tuple(sorted(fp8))
        if "deprecated_fp8_dot_operand_dtypes" not in args and cc >= 90:
            args["deprecated_fp8_dot_operand_dtypes"] = ("fp8e4b15",)
        args.setdefault("enable_fp_fusion", knobs.language.default_fp_fusion)
        args.setdefault("ptx_options", knobs.nvidia.ptxas_options)
        args["max_num_imprecise_acc_default"] = 2**30 if cc == 90 else 0
        return CUDAOptions(**args)


__all__ = ["CUDAOptions", "CUDABackend", "capability_of"]
