"""pytest plugin for test_gpu_lang_suites.py: with TILEC_TEST_ON_GPU=1 every kernel a
language-suite test launches on numpy arrays runs on the GPU instead of the tile
interpreter. Each array argument (and each TensorDescriptor's base) is copied to device
memory (passed through __cuda_array_interface__ with its numpy dtype, so every dtype the
suites use travels as is; a `reinterpret` wrapper keeps its dtype over the device copy), the kernel runs on the GPU, and after a synchronisation the
device bytes are copied back into the caller's writable arrays. The suites' numpy
references then check the GPU."""

import copy
import ctypes
import os

import numpy as np

from tilec._tensors import TensorWrapper
from tilec.jit import JITFunction
from tilec.tools.tensor_descriptor import TensorDescriptor

_ON = os.environ.get("TILEC_TEST_ON_GPU", "0") not in ("", "0")


try:  # numpy >= 2
    from numpy.lib.array_utils import byte_bounds as _byte_bounds
except ImportError:
    _byte_bounds = np.byte_bounds


def _footprint(a):
    """The bytes a (possibly strided) array spans, as a uint8 array over its memory, and the
    offset of its first element in them."""
    low, high = _byte_bounds(a)
    span = np.ctypeslib.as_array((ctypes.c_uint8 * (high - low)).from_address(low))
    return span, a.__array_interface__["data"][0] - low


class DeviceArray:
    """Device memory holding a copy of the bytes a numpy array spans (kept alive by `buf`):
    a strided view keeps its strides, as the kernel's own stride arguments expect."""

    def __init__(self, a, torch):
        self.host = a
        span, first = _footprint(a)
        self.buf = torch.from_numpy(span.copy()).to("cuda")
        self.__cuda_array_interface__ = {
            "shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
            "data": (self.buf.data_ptr() + first, not a.flags.writeable), "version": 3}

    def copy_back(self):
        if self.host.flags.writeable:
            span, _ = _footprint(self.host)
            span[...] = self.buf.cpu().numpy()


def _launch_on_gpu(jitfn, grid, args, kwargs):
    import torch

    dev = []

    def move(v):
        if isinstance(v, np.ndarray) and v.ndim > 0:
            d = DeviceArray(v, torch)
            dev.append(d)
            return d
        if isinstance(v, TensorWrapper):  # triton.reinterpret: its dtype, the device copy
            w = copy.copy(v)
            w.base, w.device = move(v.base), "cuda"
            return w
        if isinstance(v, TensorDescriptor):  # the same descriptor over the device copy
            d = copy.copy(v)  # not rebuilt: the launch, not the constructor, checks its fields
            d.base = move(v.base)
            return d
        return v

    args = [move(a) for a in args]
    kwargs = {k: move(v) for k, v in kwargs.items()}
    result = jitfn.run(*args, grid=grid, warmup=False, **kwargs)
    torch.cuda.synchronize()
    for d in dev:
        d.copy_back()
    return result


if _ON:
    def _getitem(self, grid):
        return lambda *args, **kwargs: _launch_on_gpu(self, grid, args, kwargs)

    JITFunction.__getitem__ = _getitem
