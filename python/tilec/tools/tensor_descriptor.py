"""`triton.tools.tensor_descriptor.TensorDescriptor`: a tensor in memory described for a
kernel parameter that uses it as a tensor descriptor (`desc.load([m, n])` in the kernel).

The checks are Triton's (it asserts them; tilec raises ValueError / TypeError): rank 1 to 5
with as many strides and block dimensions as shape entries, a 16-byte aligned base,
strides (but the last) in whole 16-byte units, a last stride of 1, positive shape entries,
a block shape of powers of two, padding "zero" or "nan" (nan for floating dtypes only).
The base may be a numpy array, a torch tensor (CPU or CUDA) or any object with
`__array_interface__` / `__cuda_array_interface__`. The block shape and padding are part
of the kernel's specialisation: an autotuner pre_hook may change `block_shape` between
launches, and the next launch compiles the variant it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

import numpy as np

from .. import _C

_MAX_RANK = 5


def _base_facts(base):
    """(address, element bytes, is floating point) of an array-like; TypeError otherwise."""
    data_ptr = getattr(base, "data_ptr", None)
    dtype = getattr(base, "dtype", None)
    if callable(data_ptr) and hasattr(dtype, "is_floating_point"):  # torch (tl dtypes lack it)
        return data_ptr(), dtype.itemsize, bool(dtype.is_floating_point)
    if callable(data_ptr) and hasattr(dtype, "primitive_bitwidth"):  # a TensorWrapper
        return data_ptr(), dtype.primitive_bitwidth // 8, dtype.is_floating()
    for attr in ("__array_interface__", "__cuda_array_interface__"):
        iface = getattr(base, attr, None)
        if isinstance(iface, dict):
            dt = np.dtype(iface["typestr"])
            return iface["data"][0], dt.itemsize, dt.kind == "f"
    raise TypeError(f"TensorDescriptor: base must be an array or a tensor, got "
                    f"{type(base).__name__}")


def check_block_types(block_shape, what="block_shape"):
    """TypeError unless every entry of the block shape is an int."""
    for i, d in enumerate(block_shape):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{what} element {i} must be an int, got {type(d).__name__}")


def check_block_shape(block_shape, what="block_shape"):
    """Triton's validate_block_shape: ints that are powers of two, at most 2**20 elements
    (the rule of runtime/ArgRules.h, which launches apply again)."""
    if not all(type(d) is int for d in block_shape):  # bools, numpy ints, anything else
        check_block_types(block_shape, what)
        block_shape = [int(d) for d in block_shape]
    _C.check_block_shape(what, block_shape)


# Block shapes of plain ints that passed check_block_shape (the rule is ArgRules.h's; this
# only remembers its answers). bools and numpy ints never enter: `type(d) is int` keys.
_GOOD_BLOCKS = set()


def _known_good(shape, strides, block, elem_bytes):
    """Whether a descriptor needs no further check: every block entry a plain int and the
    block shape seen good before, shape entries positive, strides but the last whole
    16-byte units."""
    for d in block:
        if type(d) is not int:
            return False
    if tuple(block) not in _GOOD_BLOCKS:
        return False
    try:
        for n in shape:
            if n <= 0:
                return False
        for s in strides[:-1]:
            if (s * elem_bytes) % 16:
                return False
    except TypeError:  # not numbers: the full checks say what
        return False
    return True


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        # A launch path: tutorial 06 makes four descriptors a call. The common case (a
        # zero-padded descriptor of ints whose block shape passed before) is checked in one
        # pass; anything else, and every failure, goes through the checks that name it.
        shape, strides, block = self.shape, self.strides, self.block_shape
        rank = len(shape)
        facts = _base_facts(self.base)
        if (0 < rank <= _MAX_RANK and len(strides) == rank and len(block) == rank
                and not facts[0] % 16 and strides[-1] == 1 and self.padding == "zero"
                and _known_good(shape, strides, block, facts[1])):
            return
        self._check(*facts)

    def _check(self, ptr, elem_bytes, is_float):
        rank = len(self.shape)
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"TensorDescriptor: rank mismatch: shape {list(self.shape)}, "
                             f"strides {list(self.strides)}, block_shape "
                             f"{list(self.block_shape)}")
        if not 0 < rank <= _MAX_RANK:
            raise ValueError(f"TensorDescriptor: the rank must be 1 to {_MAX_RANK}, got {rank}")
        if ptr % 16 and type(self.base).__name__ not in ("FakeTensor", "FunctionalTensor"):
            raise ValueError(f"TensorDescriptor: the base must be 16-byte aligned (its "
                             f"address is {ptr:#x})")
        check_block_shape(self.block_shape)
        for i, s in enumerate(self.strides[:-1]):
            if (int(s) * elem_bytes) % 16:
                raise ValueError(f"TensorDescriptor: strides must be 16-byte aligned: stride "
                                 f"{i} is {s} elements of {elem_bytes} bytes")
        for i, n in enumerate(self.shape):
            if int(n) <= 0:
                raise ValueError(f"TensorDescriptor: shape must be positive, shape[{i}] is {n}")
        if int(self.strides[-1]) != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous "
                             f"(stride 1), got stride {self.strides[-1]}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: illegal value for padding: {self.padding!r} "
                             "(expected 'zero' or 'nan')")
        if self.padding == "nan" and not is_float:
            raise ValueError("TensorDescriptor: padding option `nan` is only supported for "
                             "floating point tensors")
        if all(type(d) is int for d in self.block_shape):
            _GOOD_BLOCKS.add(tuple(self.block_shape))

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero"):
        """A descriptor of the whole of `tensor` (its shape and strides in elements)."""
        stride = getattr(tensor, "stride", None)
        if callable(stride):  # torch
            return TensorDescriptor(tensor, tensor.shape, stride(), block_shape, padding)
        if any(s % tensor.itemsize for s in tensor.strides):  # numpy: strides in bytes
            raise ValueError(f"TensorDescriptor.from_tensor: strides {tensor.strides} (bytes) "
                             f"are not whole elements of {tensor.itemsize} bytes")
        strides = tuple(s // tensor.itemsize for s in tensor.strides)
        return TensorDescriptor(tensor, tensor.shape, strides, block_shape, padding)


__all__ = ["TensorDescriptor"]
