"""`triton.runtime.jit`: tilec's @jit machinery (jit.py) under Triton's module name, the
host tensor stand-ins (_tensors.py) and Triton's argument specialisation,
`native_specialize_impl`, which libraries (Inductor) call to build an ASTSource's signature
and attributes the way a launch would."""

from __future__ import annotations

import numpy as np

from .. import _C
from .._jit_cache import JitFunctionInfo
from .._tensors import MockTensor, TensorWrapper, reinterpret
from .._utils import canonicalize_dtype, canonicalize_ptr_dtype, type_canonicalisation_dict
from ..backends.compiler import BaseBackend
from ..jit import (ConstexprFunction, JITCallable, JITFunction, KernelInterface, KernelParam,
                   constexpr_function, jit)
from ..language import core
from ..tools.tensor_descriptor import TensorDescriptor


def _divisibility(backend, value: int, specialize: bool, align: bool):
    if not specialize:
        return None
    return "D" if align and value % 16 == 0 else ""


def native_specialize_impl(backend, arg, is_const: bool = False, specialize_value: bool = True,
                           align: bool = True):
    """(signature type, specialisation) of one argument, as Triton's launch computes them:
    ("*fp16", "D") for a 16-byte aligned fp16 tensor, ("i32", "") for an int, ("constexpr",
    1) for the int 1, ("u1", None) for a bool, ("fp32", None) for a float, ("constexpr",
    None) for None, tuples element by element. "D" means divisible by 16; `backend` is a
    BaseBackend (class or instance) for tensors it specialises itself."""
    if isinstance(arg, bool):
        return "u1", None
    if isinstance(arg, int):
        if specialize_value and arg == 1:
            return "constexpr", arg
        spec = _C.int_spec(arg, False)  # i32 / i64 / u64: runtime/ArgRules.h
        if spec is None:
            raise OverflowError("integer to be specialized too large to represent")
        return spec[0], _divisibility(backend, arg, specialize_value, align)
    if isinstance(arg, float):
        return "fp32", None
    if arg is None:
        return "constexpr", None
    if isinstance(arg, tuple):
        if not arg:
            return arg, arg
        parts = [native_specialize_impl(backend, a) for a in arg]
        tys, keys = tuple(p[0] for p in parts), tuple(p[1] for p in parts)
        if hasattr(arg, "_fields"):  # a namedtuple keeps its type
            tys, keys = type(arg)(*tys), type(arg)(*keys)
        return tys, keys
    if isinstance(arg, core.constexpr):
        return "constexpr", arg
    if isinstance(arg, TensorDescriptor):
        block = str([int(b) for b in arg.block_shape])
        return f"tensordesc<{canonicalize_dtype(arg.base.dtype)}{block}>", None
    if isinstance(arg, JITCallable):
        return "constexpr", arg.cache_key
    if isinstance(arg, np.ndarray):
        ptr = arg.__array_interface__["data"][0]
        return canonicalize_ptr_dtype(arg.dtype, is_const), \
            _divisibility(backend, ptr, specialize_value, align)
    if hasattr(arg, "data_ptr"):
        ty = canonicalize_ptr_dtype(arg.dtype, is_const)
        if not specialize_value:
            return ty, None
        if getattr(backend, "supports_native_tensor_specialization", True):
            return ty, _divisibility(backend, arg.data_ptr(), True, align)
        return ty, backend.get_tensor_specialization(arg, align=align)
    raise TypeError(f"cannot specialize an argument of type {type(arg).__name__}")


def mangle_type(arg, specialize: bool = False) -> str:
    """The signature type of an argument ("*fp32", "i64", "constexpr", ...)."""
    return native_specialize_impl(BaseBackend, arg, False, specialize, True)[0]


def get_jit_fn_file_line(fn):
    """(file, line of the `def`) of a @jit function, or of the one an @autotune /
    @heuristics object wraps."""
    base = fn
    while not isinstance(base, JITCallable):
        base = base.fn
    line = base.first_line
    for i, text in enumerate(base.raw_src):
        if text.lstrip().startswith("def "):
            line += i
            break
    return base.file, line


__all__ = ["ConstexprFunction", "JITCallable", "JITFunction", "constexpr_function", "KernelInterface", "KernelParam", "JitFunctionInfo",
           "jit", "TensorWrapper", "reinterpret", "MockTensor", "type_canonicalisation_dict",
           "native_specialize_impl", "mangle_type", "get_jit_fn_file_line"]
