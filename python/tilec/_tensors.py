"""Host stand-ins for tensors in launches (Triton's `triton.runtime.jit` names):

- `TensorWrapper` (made by `reinterpret(tensor, dtype)`): the same memory seen with another
  element type. As a kernel argument it is a pointer to `dtype` over the base's memory
  (_args.py on the host, _gpu.py on a GPU). The base is a torch tensor (on any device) or
  a numpy array.
- `MockTensor`: a dtype and a shape with no memory, for `kernel.warmup(torch.float32, ...)`.
"""

from __future__ import annotations

import numpy as np


def _is_numpy(x) -> bool:
    return isinstance(x, np.ndarray)


class TensorWrapper:
    """`base` seen as elements of `dtype` (a tl dtype): shape, strides and device are the
    base's."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.data = base.data
        self.device = "cpu" if _is_numpy(base) else base.device
        self.shape = base.shape

    def data_ptr(self) -> int:
        if _is_numpy(self.base):
            return self.base.__array_interface__["data"][0]
        return self.base.data_ptr()

    def stride(self, *dim):
        b = self.base
        if _is_numpy(b):
            strides = tuple(s // b.itemsize for s in b.strides)
            return strides[dim[0]] if dim else strides
        return b.stride(*dim)

    def numel(self) -> int:
        return self.base.size if _is_numpy(self.base) else self.base.numel()

    def element_size(self) -> int:
        return self.base.itemsize if _is_numpy(self.base) else self.base.element_size()

    def dim(self) -> int:
        return len(self.shape)

    def cpu(self) -> "TensorWrapper":
        return self if _is_numpy(self.base) else TensorWrapper(self.base.cpu(), self.dtype)

    def clone(self) -> "TensorWrapper":
        return TensorWrapper(self.base.copy() if _is_numpy(self.base) else self.base.clone(),
                             self.dtype)

    def to(self, device) -> "TensorWrapper":
        if _is_numpy(self.base):
            if str(device) != "cpu":
                raise ValueError(f"a TensorWrapper over a numpy array stays on the CPU, not "
                                 f"{device!r}")
            return self
        return TensorWrapper(self.base.to(device), self.dtype)

    def copy_(self, other) -> "TensorWrapper":
        """Copies the elements (bits) of another TensorWrapper into this one."""
        src = other.base if isinstance(other, TensorWrapper) else other
        if _is_numpy(self.base):
            np.copyto(self.base, np.asarray(src))
        else:
            self.base.copy_(src)
        return self

    def new_empty(self, sizes) -> "TensorWrapper":
        if _is_numpy(self.base):
            return TensorWrapper(np.empty(sizes, dtype=self.base.dtype), self.dtype)
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"

    __repr__ = __str__


def reinterpret(tensor, dtype):
    """`tensor`'s memory seen as elements of `dtype` (a tl dtype): a TensorWrapper; a
    TensorWrapper is rewrapped (its base unwrapped when `dtype` is the base's own)."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr") or _is_numpy(tensor):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__name__}: expected a tensor or a numpy "
                    "array")


class MockTensor:
    """A tensor with a dtype and a shape but no memory (its data_ptr is 0, which counts as
    16-byte aligned): warmup compiles for it without allocating."""

    @staticmethod
    def wrap_dtype(arg):
        """A MockTensor for a torch dtype, anything else unchanged."""
        if type(arg).__name__ == "dtype" and type(arg).__module__ == "torch":
            return MockTensor(arg)
        return arg

    def __init__(self, dtype, shape=None):
        self.dtype = dtype
        self.shape = [1] if shape is None else list(shape)

    def stride(self) -> tuple:
        out, n = [], 1
        for size in reversed(self.shape):
            out.append(n)
            n *= size
        return tuple(reversed(out))

    @staticmethod
    def data_ptr() -> int:
        return 0

    @staticmethod
    def ptr_range() -> int:
        return 0


__all__ = ["TensorWrapper", "reinterpret", "MockTensor"]
