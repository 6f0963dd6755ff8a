"""The kernel language (`import tilec.language as tl`): dtypes, `constexpr`, loop
classes and every builtin's name. Builtins are compiled from the kernel's source by the
C++ front end; calling one on the host raises a clear error."""

from . import _stubs
from .core import (DTYPES, PropagateNan, bfloat16, block_type, builtin, const, constexpr,
                   constexpr_type, dtype, float8e4b8, float8e4b15, float8e4nv, float8e5,
                   float8e5b16, float16, float32, float64, int1, int8, int16, int32, int64,
                   must_use_result, pi32_t, pointer_type, range, static_range, str_to_ty,
                   tensor, tensor_descriptor, tensor_descriptor_base, uint8, uint16, uint32,
                   uint64, void)
from .._utils import TRITON_MAX_TENSOR_NUMEL
from . import core, math, random, standard
from . import extra

_top, _math = _stubs.builtin_names()
# Triton defines most builtins in `core` (tl.core.view is tl.view): core serves them through
# its module __getattr__, so they never shadow Python's builtins (tuple, min, ...) there
_stubs.install(core._BUILTINS, _top)
globals().update({n: f for n, f in core._BUILTINS.items() if n not in globals()})
# tl.exp and tl.math.exp name the same builtin, as in Triton.
_stubs.install(globals(), _math, "math.")
del _top, _math

__all__ = [n for n in globals() if not n.startswith("_")] + ["target_info"]


def __getattr__(name):
    # tl.target_info is imported on first use: its constexpr functions need tilec.jit,
    # which imports this package
    if name == "target_info":
        import importlib
        return importlib.import_module(__name__ + ".target_info")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
