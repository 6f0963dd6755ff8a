"""`triton.backends.compiler`: the target of a compilation and the interface of a
compiler back end. tilec has one back end, `backends.nvidia.compiler.CUDABackend`; it
takes Triton's options and attributes and compiles through tilec's pipeline."""

from __future__ import annotations

import abc
import dataclasses
import enum
import hashlib

from ..language.extra.cuda import libdevice


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    backend: str  # "cuda", or "cpu" for the tile interpreter
    arch: int | str  # compute capability as an int (90 for sm_90); 0 on the CPU
    warp_size: int


class Language(enum.Enum):
    """The language of a kernel's source."""
    TRITON = 0
    GLUON = 1


class BaseBackend(abc.ABC):
    """A compiler back end for the targets `supports_target` accepts."""

    supports_native_tensor_specialization = True

    def __init__(self, target: GPUTarget) -> None:
        if not self.supports_target(target):
            raise ValueError(f"{type(self).__name__} does not compile for {target}")
        self.target = target

    @staticmethod
    @abc.abstractmethod
    def supports_target(target: GPUTarget) -> bool:
        ...

    @abc.abstractmethod
    def hash(self) -> str:
        """Identifies the back end and its target in cache keys."""

    @abc.abstractmethod
    def parse_options(self, options: dict):
        """The back end's options object from a dict of launch/compile options."""

    @abc.abstractmethod
    def add_stages(self, stages: dict, options, language=None) -> None:
        ...

    @abc.abstractmethod
    def load_dialects(self, context) -> None:
        ...

    @abc.abstractmethod
    def get_module_map(self) -> dict:
        ...

    # Specialisation of arguments: "D" marks a value divisible by 16 (a 16-byte aligned
    # pointer); parse_attr turns it into the attributes of a signature entry.
    @staticmethod
    def parse_attr(desc: str) -> list:
        if not isinstance(desc, str):
            raise TypeError(f"parse_attr expects a str, got {type(desc).__name__}")
        return [["tt.divisibility", 16]] if "D" in desc else []

    @staticmethod
    def get_int_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg % 16 == 0 else ""

    @staticmethod
    def get_tensor_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg.data_ptr() % 16 == 0 else ""


class TilecBackend(BaseBackend):
    """What tilec's back ends share: Triton's metadata packing and module map, and no MLIR
    (tilec's stages are C++ passes)."""

    def pack_metadata(self, metadata) -> tuple:
        return (metadata.num_warps, metadata.num_ctas, metadata.shared)

    def get_codegen_implementation(self, options=None) -> dict:
        return {}

    def get_module_map(self) -> dict:
        return {"triton.language.extra.libdevice": libdevice}

    def load_dialects(self, context) -> None:
        """tilec has no MLIR dialects to load."""

    def add_stages(self, stages: dict, options, language=None) -> None:
        raise NotImplementedError(
            "tilec's compilation stages are C++ passes, not MLIR pass pipelines: compile with "
            "triton.compile(ASTSource(...)) (or tilec.compile) and read CompiledKernel.asm")


class OptionsBase:
    """Checks and the hash every back end's (frozen dataclass) options share."""

    def __post_init__(self):
        w = self.num_warps
        if not isinstance(w, int) or w <= 0 or w & (w - 1):
            raise ValueError(f"num_warps must be a power of 2, got {w!r}")
        if isinstance(self.extern_libs, dict):
            object.__setattr__(self, "extern_libs", tuple(self.extern_libs.items()))

    def hash(self) -> str:
        key = "_".join(f"{k}-{v}" for k, v in sorted(self.__dict__.items()))
        return hashlib.sha256(key.encode()).hexdigest()


__all__ = ["GPUTarget", "Language", "BaseBackend", "TilecBackend", "OptionsBase"]
