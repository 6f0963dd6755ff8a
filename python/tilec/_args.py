"""Classifying launch arguments: the specialisation of each parameter (the compile cache
key), the run-time value handed to the interpreter and the buffers pointers may touch."""

from __future__ import annotations

import sys

import numpy as np

from . import _C
from .errors import CompilationError, CompileErrorCause
from ._interface import KernelInterface
from ._tensors import MockTensor, TensorWrapper
from .language import core
from .tools.tensor_descriptor import TensorDescriptor, check_block_types

_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63
_UINT64_END = 1 << 64

# numpy dtype name / torch dtype name -> Tile IR dtype name
_NUMPY_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "float32": "fp32", "float64": "fp64",
    "bfloat16": "bf16",  # ml_dtypes' numpy bfloat16, when the user has it
}
_TORCH_DTYPES = _C.torch_dtype_names()  # str(torch dtype) -> Tile IR dtype name: C++'s table


class ArrayArg:
    """A pointer argument: the address the kernel receives and the byte range
    [lo, lo + nbytes) that the view may touch."""

    __slots__ = ("ptr", "dtype", "lo", "nbytes", "aligned", "writable")

    def __init__(self, ptr, dtype, lo, nbytes, writable=True):
        self.ptr = ptr
        self.dtype = dtype
        self.lo = lo
        self.nbytes = nbytes
        self.aligned = ptr % 16 == 0
        self.writable = writable


def _extent(ptr: int, shape, strides, itemsize: int):
    """(lowest address, bytes) of the memory a strided view can address."""
    lo = hi = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return ptr, 0
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return ptr + lo, hi - lo + itemsize


_NUMPY_BY_DTYPE = {}  # np.dtype -> Tile IR name, filled on first sight (dtype.name is slow)


def _numpy_dtype(name: str, dtype) -> str:
    dt = _NUMPY_BY_DTYPE.get(dtype)
    if dt is None:
        if not dtype.isnative:  # kernels read memory in the machine's byte order
            order = "big" if dtype.byteorder == ">" else "little"
            raise TypeError(f"argument '{name}': the array's dtype '{dtype.str}' is "
                            f"{order}-endian, not this machine's byte order, so a kernel would "
                            f"read and write garbage: pass {name}.astype({name}.dtype."
                            "newbyteorder('='))")
        dt = _NUMPY_DTYPES.get(dtype.name)
        if dt is None:
            raise TypeError(f"argument '{name}': numpy arrays of dtype {dtype} cannot be passed "
                            "to a kernel (supported: bool, int8-64, uint8-64, float16/32/64)")
        _NUMPY_BY_DTYPE[dtype] = dt
    return dt


def _numpy_arg(name: str, a: np.ndarray) -> ArrayArg:
    dt = _numpy_dtype(name, a.dtype)
    ptr = a.__array_interface__["data"][0]
    flags = a.flags
    if flags.c_contiguous:
        lo, nbytes = ptr, a.nbytes
    else:
        lo, nbytes = _extent(ptr, a.shape, a.strides, a.itemsize)
    return ArrayArg(ptr, dt, lo, nbytes, flags.writeable)


def _torch_arg(name: str, t) -> ArrayArg:
    dev = t.device.type
    if dev != "cpu":
        raise ValueError(
            f"argument '{name}' is a {dev} tensor, but tilec runs kernels only on the CPU tile "
            f"interpreter for now (GPU code generation is not built yet): pass '{name}.cpu()' "
            "or a numpy array")
    dt = _TORCH_DTYPES.get(str(t.dtype))
    if dt is None:
        raise TypeError(f"argument '{name}': torch tensors of dtype {t.dtype} cannot be passed "
                        "to a kernel")
    ptr = t.data_ptr()
    isz = t.element_size()
    if t.is_contiguous():
        lo, nbytes = ptr, t.numel() * isz
    else:
        lo, nbytes = _extent(ptr, t.shape, [s * isz for s in t.stride()], isz)
    return ArrayArg(ptr, dt, lo, nbytes, True)


def element_dtype(name: str, dtype) -> str:
    """The Tile IR name of an element type given as a tl dtype, a torch dtype or a numpy
    dtype (what `reinterpret` and MockTensor hold)."""
    if isinstance(dtype, core.dtype) and not isinstance(dtype, (core.pointer_type,
                                                                 core.block_type)):
        if dtype.name != "void":
            reason = dtype.unsupported_reason()
            if reason is not None:  # a tensor reinterpreted as another GPU's fp8 type: as
                # Triton, whose compile refuses the type, a CompilationError on any path
                err = CompilationError(f"error: argument '{name}': {reason}", reason)
                err.__cause__ = CompileErrorCause(reason)
                raise err
            return dtype.ir_type
    elif str(dtype) in _TORCH_DTYPES:
        return _TORCH_DTYPES[str(dtype)]
    else:
        try:
            return _numpy_dtype(name, np.dtype(dtype))
        except TypeError:
            pass
    raise TypeError(f"argument '{name}': {dtype!r} is not an element type a kernel can "
                    "address")


def _wrapper_arg(name: str, w: TensorWrapper) -> ArrayArg:
    """A pointer to the wrapper's dtype over its base's memory."""
    base = array_arg(name, w.base)
    if base is None:
        raise TypeError(f"argument '{name}': the TensorWrapper's base is {_describe(w.base)}, "
                        "not an array")
    return ArrayArg(base.ptr, element_dtype(name, w.dtype), base.lo, base.nbytes,
                    base.writable)


def array_arg(name: str, x):
    """An ArrayArg when `x` is an array-like the kernel can address, else None.
    Raises for arrays that live on a GPU or have an unsupported dtype."""
    if isinstance(x, np.ndarray):
        return _numpy_arg(name, x)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch_arg(name, x)
    if isinstance(x, TensorWrapper):
        return _wrapper_arg(name, x)
    if isinstance(x, MockTensor):  # no memory: compiled by warmup, never addressed
        return ArrayArg(0, element_dtype(name, x.dtype), 0, 0, False)
    if hasattr(x, "__cuda_array_interface__"):
        raise ValueError(
            f"argument '{name}' lives in GPU memory ({type(x).__name__}), but tilec runs "
            "kernels only on the CPU tile interpreter for now: pass a host (numpy) array")
    if hasattr(x, "__array_interface__") and not isinstance(x, (np.generic, core.dtype)):
        return _numpy_arg(name, np.asarray(x))
    return None


class DescArg:
    """A TensorDescriptor argument of the interpreter path: its base (an ArrayArg) and the
    run-time shape and strides the kernel receives (the last stride is 1, not passed)."""

    __slots__ = ("base", "shape", "strides")

    def __init__(self, base, shape, strides):
        self.base = base
        self.shape = shape
        self.strides = strides


def desc_key(name: str, d, dtype: str, aligned: bool):
    """(specialisation key, shape, strides but the last) of TensorDescriptor `d` whose base
    holds `dtype`. Its fields are checked again here: a pre_hook may have set them since
    the descriptor was made (the fused-attention tutorial sets block_shape)."""
    where = f"argument '{name}' (a TensorDescriptor)"
    rank = len(d.shape)
    if len(d.strides) != rank or len(d.block_shape) != rank or not 0 < rank <= 5:
        raise ValueError(f"{where}: shape {list(d.shape)}, strides {list(d.strides)} and "
                         f"block_shape {list(d.block_shape)} must have one rank from 1 to 5")
    check_block_types(d.block_shape, f"{where}: block_shape")
    shape = tuple(int(n) for n in d.shape)
    strides = tuple(int(s) for s in d.strides)
    for i, s in enumerate(strides):
        if not _INT64_MIN <= s < _INT64_END:
            raise ValueError(f"{where}: stride {i} = {s} does not fit in int64")
    block = tuple(int(b) for b in d.block_shape)
    # the value rules: runtime/ArgRules.h, which the C++ launch fast path applies too
    nan, shape16, strides16 = _C.descriptor_key(where, dtype, aligned, shape, strides, block,
                                                d.padding)
    key = ("d", dtype, block, nan, shape16, strides16)
    return key, shape, strides[:-1]


def desc_arg(name: str, d):
    """(key, DescArg) of a TensorDescriptor over host memory."""
    arr = array_arg(name, d.base)
    if arr is None:
        raise TypeError(f"argument '{name}': the TensorDescriptor's base is "
                        f"{_describe(d.base)}, not an array")
    key, shape, strides = desc_key(name, d, arr.dtype, arr.aligned)
    return key, DescArg(arr, shape, strides)


def tuple_arg(name: str, v: tuple, specialize_ints: bool, leaf):
    """(key, run-time values) of a tuple argument: each element specialised by `leaf` (the
    interpreter's or the GPU's rule) as an argument of its own; tl.constexpr elements,
    dtypes, strings and @jit functions are compile-time values. A NamedTuple keeps its
    class: the kernel reads its fields by name."""
    keys, values = [], []
    for i, e in enumerate(v):
        sub = f"{name}[{i}]"
        if isinstance(e, (core.constexpr, core.dtype, str)) or _is_jit(e) or \
                is_named_tuple_class(e):
            keys.append(("c", _ckey(constexpr_value(sub, e))))
            values.append(None)
            continue
        r = leaf(sub, e, False, specialize_ints)
        keys.append(r[0])
        values.append(r[1])
    return ("t", type(v) if is_named_tuple(v) else None, tuple(keys)), tuple(values)


class IntOverflowError(OverflowError, ValueError):
    """An int argument that fits no kernel int type: Triton's OverflowError (and the
    ValueError tilec raised before, for callers that catch that)."""


def _int_key(name: str, v: int, specialize_ints: bool, align: bool = True) -> tuple:
    """("i", type, divisible by 16, equal to 1) of an int argument: the rule the C++ launch
    fast path keys launches with (runtime/ArgRules.h, through _C.int_spec). Without
    `align` (do_not_specialize_on_alignment) divisibility is not specialised."""
    spec = _C.int_spec(v, specialize_ints)
    if spec is None:
        raise IntOverflowError(f"argument '{name}' = {v} does not fit in 64 bits")
    if not align and spec[1]:
        spec = (spec[0], False, spec[2])
    return ("i",) + spec


def is_named_tuple(v) -> bool:
    """An instance of a typing.NamedTuple / collections.namedtuple class."""
    return isinstance(v, tuple) and hasattr(type(v), "_fields")


def is_named_tuple_class(v) -> bool:
    return isinstance(v, type) and issubclass(v, tuple) and hasattr(v, "_fields")


def _jit_key(fn):
    """A @jit function passed as a value: keyed by its name and source text, so an edit
    between runs misses the disk cache."""
    jit = fn.jit_function
    return ("jit", jit.__module__, jit.__qualname__, jit.src)


def _ckey(v):
    """A hashable key that tells 1, 1.0 and True apart (they hash alike in Python)."""
    if isinstance(v, tuple):
        head = ("namedtuple", type(v).__qualname__) if is_named_tuple(v) else ("tuple",)
        return head + tuple(_ckey(e) for e in v)
    if isinstance(v, core.dtype):
        # an unsupported fp8 type keys by name: the compile reports it (_sources._wire)
        return ("dtype", v.ir_type if v.unsupported_reason() is None else v.name)
    if _is_jit(v):
        return _jit_key(v)
    if getattr(v, "_tilec_builtin", None):
        return ("builtin", v._tilec_builtin)
    if is_named_tuple_class(v):
        return ("namedtuple-class", v.__qualname__, tuple(v._fields))
    return (type(v).__name__, v)


def _is_jit(v) -> bool:
    return isinstance(v, KernelInterface)


def constexpr_value(name: str, v):
    """The host value of a constexpr argument, checked to be one the compiler accepts."""
    if isinstance(v, core.constexpr):
        v = v.value
    if v is None or isinstance(v, (bool, int, float, str, core.dtype)) or _is_jit(v) or \
            is_named_tuple_class(v) or getattr(v, "_tilec_builtin", None):
        return v  # (a builtin: `func=tl.extra.cuda.globaltimer`, as Triton takes it)
    if isinstance(v, np.generic) and not isinstance(v, np.ndarray):
        return v.item()
    if is_named_tuple(v):
        return type(v)(*(constexpr_value(name, e) for e in v))
    if isinstance(v, (tuple, list)):
        return tuple(constexpr_value(name, e) for e in v)
    what = type(v).__name__
    if array_arg_safe(v):
        what = "an array"
    raise TypeError(f"argument '{name}' is a constexpr parameter and must be an int, float, "
                    f"bool, str, None, dtype or a tuple of those, got {what}")


def array_arg_safe(v) -> bool:
    try:
        return array_arg("", v) is not None
    except (TypeError, ValueError):
        return True


_STRING_TYPES = {"i1": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
                 "u1": "i1", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
                 "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64",
                 "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5"}


def annotation_type(annotation):
    """('pointer' | 'scalar', Tile IR dtype) for a typed parameter (`n: tl.int64`,
    `x: tl.pointer_type(tl.float32)`, or Triton's strings "*fp32", "i32"), else None."""
    if isinstance(annotation, core.pointer_type):
        return "pointer", annotation.element_ty.ir_type
    if isinstance(annotation, core.dtype) and not isinstance(annotation, core.block_type):
        return ("scalar", annotation.ir_type) if annotation.name != "void" else None
    if isinstance(annotation, str):
        a = annotation.strip()
        if a.startswith("*") and a[1:] in _STRING_TYPES:
            return "pointer", _STRING_TYPES[a[1:]]
        if a in _STRING_TYPES:
            return "scalar", _STRING_TYPES[a]
    return None


def _describe(v) -> str:
    if isinstance(v, (np.ndarray,)) or hasattr(v, "__array_interface__") or \
            hasattr(v, "data_ptr"):
        return f"an array ({type(v).__name__})"
    return f"a {type(v).__name__}"


def _scalar(name, v, dt, specialize_ints=True, align=True):
    """A scalar argument of a typed parameter (`n: tl.int64`). An int keeps its declared
    type and is specialised, as Triton does, on divisibility by 16 (unless not to be) and
    gets a variant of its own for the value 1, which is not folded (the key's 5th item)."""
    if dt == "i1":
        if not isinstance(v, (bool, np.bool_, int, np.integer)):
            raise TypeError(f"argument '{name}' is declared int1 but got {_describe(v)}")
        return ("b",), bool(v)
    if dt.startswith(("i", "u")):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"argument '{name}' is declared {dt} but got {_describe(v)}")
        v = int(v)
        bits = int(dt[1:])
        lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if dt[0] == "i" else (0, 1 << bits)
        if not lo <= v < hi:
            raise IntOverflowError(f"argument '{name}' = {v} does not fit in {dt}")
        if not specialize_ints:
            return ("i", dt, False, False), v
        return ("i", dt, align and v % 16 == 0, False) + (("one",) if v == 1 else ()), v
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
        raise TypeError(f"argument '{name}' is declared {dt} but got {_describe(v)}")
    return ("f", dt), float(v)


# Specialisation of one parameter: (key, run-time value). The key is part of the compile
# cache key; the run-time value is what the interpreter receives (an ArrayArg for
# pointers, None for compile-time parameters).
def specialize(name: str, v, is_constexpr: bool, specialize_ints: bool, typed=None,
               align: bool = True):
    t = type(v)
    if is_constexpr:
        if t is int or t is bool or t is str or t is float or v is None:
            return ("c", (t.__name__, v)), None
        return ("c", _ckey(constexpr_value(name, v))), None
    if typed is None:
        if t is np.ndarray:
            arr = _numpy_arg(name, v)
            return ("p", arr.dtype, arr.aligned and align), arr
        if t is int:
            return _int_key(name, v, specialize_ints, align), v
    else:
        kind, dt = typed
        if kind == "scalar":
            if v is None:
                return ("n",), None
            return _scalar(name, v, dt, specialize_ints, align)
        arr = array_arg(name, v) if v is not None else None
        if arr is None:
            raise TypeError(f"argument '{name}' is declared a pointer to {dt} but got "
                            f"{_describe(v) if v is not None else 'None'}")
        if arr.dtype != dt:
            raise TypeError(f"argument '{name}' is declared a pointer to {dt} but the array "
                            f"holds {arr.dtype}")
        return ("p", arr.dtype, arr.aligned and align), arr
    if v is None:
        return ("n",), None
    if t is bool or isinstance(v, np.bool_):
        return ("b",), bool(v)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        return _int_key(name, v, specialize_ints, align), v
    if t is float or isinstance(v, np.floating):
        return ("f",), float(v)
    if isinstance(v, core.constexpr):
        return ("c", _ckey(constexpr_value(name, v))), None
    if isinstance(v, TensorDescriptor):
        return desc_arg(name, v)
    if isinstance(v, tuple):
        return tuple_arg(name, v, specialize_ints, specialize)
    if _is_jit(v) or is_named_tuple_class(v):  # compile-time values, as in Triton
        return ("c", _ckey(v)), None
    arr = array_arg(name, v)
    if arr is not None:
        return ("p", arr.dtype, arr.aligned and align), arr
    if isinstance(v, core.dtype):
        raise TypeError(f"argument '{name}' is a dtype ({v}); a dtype can only be passed to "
                        "a tl.constexpr parameter")
    raise TypeError(f"argument '{name}' has type {type(v).__name__}, which cannot be passed to "
                    "a kernel (expected an array, a tensor, an int, a float, a bool or None)")
