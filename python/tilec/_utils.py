"""`triton._utils`: paths into nested tuples and lists (how Triton addresses the leaves of
tuple arguments: `(2, 0)` is element 0 of argument 2) and the canonical type names of
Triton's signatures ("fp32", "*fp16", "u1", ...)."""

from __future__ import annotations

import functools
import operator

# Triton's limit on the elements of one tensor in a kernel
TRITON_MAX_TENSOR_NUMEL = 1 << 20


def _is_sequence(x) -> bool:
    return isinstance(x, (list, tuple))


def get_iterable_path(iterable, path):
    """The element of nested sequences at `path` (a tuple of indices; () is the whole)."""
    return functools.reduce(operator.getitem, path, iterable)


def set_iterable_path(iterable, path, value) -> None:
    """Replaces the element at `path` (not empty) of nested lists."""
    if not path:
        raise ValueError("set_iterable_path needs a non-empty path")
    get_iterable_path(iterable, path[:-1])[path[-1]] = value


def find_paths_if(iterable, pred) -> list:
    """The paths, depth first and in order, of the leaves (non-sequence elements) of nested
    tuples and lists for which `pred(path, leaf)` holds. A non-sequence `iterable` is a
    leaf at path ()."""
    found = []

    def visit(path, x):
        if _is_sequence(x):
            for i, e in enumerate(x):
                visit(path + (i,), e)
        elif pred(path, x):
            found.append(path)

    visit((), iterable)
    return found


def is_power_of_two(x) -> bool:
    return (x & (x - 1)) == 0


def validate_block_shape(shape) -> int:
    """The number of elements of a block shape; raises unless every dimension is a power
    of two and the total is at most TRITON_MAX_TENSOR_NUMEL."""
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"shape element {i} must be an int, got {type(d).__name__}")
        if d <= 0 or not is_power_of_two(d):
            raise ValueError(f"shape element {i} must be a power of 2, got {d}")
        numel *= d
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds the maximum tensor numel "
                         f"({TRITON_MAX_TENSOR_NUMEL})")
    return numel


def _canonical_names() -> dict:
    groups = {
        "u1": ("bool", "int1", "uint1", "i1"),  # Triton's bools are unsigned
        "fp8e4nv": ("float8e4nv", "float8_e4m3fn"),
        "fp8e5": ("float8e5", "float8_e5m2"),
        "fp8e4b15": ("float8e4b15",),
        "fp8e4b8": ("float8e4b8", "float8_e4m3fnuz"),
        "fp8e5b16": ("float8e5b16", "float8_e5m2fnuz"),
        "fp16": ("half", "float16"),
        "bf16": ("bfloat16",),
        "fp32": ("float", "float32"),
        "fp64": ("double", "float64"),
        "i8": ("int8",), "i16": ("int16",), "i32": ("int", "int32"), "i64": ("int64",),
        "u8": ("uint8",), "u16": ("uint16",), "u32": ("uint32",), "u64": ("uint64",),
        "void": ("void",),
    }
    out = {}
    for canonical, names in groups.items():
        for n in names + (canonical,):
            out[n] = canonical
    return out


# any spelling of a scalar type (torch's, numpy's, tl's, Triton's) -> Triton's signature name
type_canonicalisation_dict = _canonical_names()


def _bitwidth(canonical: str) -> int:
    if canonical == "void":
        return 0
    if canonical.startswith("fp8"):
        return 8
    return int(canonical.lstrip("iufpb"))


BITWIDTH_DICT = {name: _bitwidth(c) for name, c in type_canonicalisation_dict.items()}


def canonicalize_dtype(dtype) -> str:
    """"fp32" for torch.float32, tl.float32, "float32", ..."""
    return type_canonicalisation_dict[str(dtype).split(".")[-1]]


def canonicalize_ptr_dtype(dtype, is_const: bool) -> str:
    return ("*k" if is_const else "*") + canonicalize_dtype(dtype)


def get_primitive_bitwidth(dtype: str) -> int:
    return BITWIDTH_DICT[dtype]


def is_namedtuple(val) -> bool:
    """Whether `val` is a namedtuple class."""
    return isinstance(val, type) and issubclass(val, tuple) and hasattr(val, "_fields")


__all__ = ["TRITON_MAX_TENSOR_NUMEL", "get_iterable_path", "set_iterable_path", "find_paths_if",
           "is_power_of_two", "validate_block_shape", "type_canonicalisation_dict",
           "BITWIDTH_DICT", "canonicalize_dtype", "canonicalize_ptr_dtype",
           "get_primitive_bitwidth", "is_namedtuple"]
