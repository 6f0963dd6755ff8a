"""pytest plugin for test_gpu_lang_suites.py: with TILEC_TEST_ON_GPU=1 every kernel a
language-suite test launches on numpy arrays runs on the GPU instead of the tile
interpreter. Each array argument is copied to device memory (passed through
__cuda_array_interface__ with its numpy dtype, so every dtype the suites use travels as
is), the kernel runs on the GPU, and after a synchronisation the device bytes are copied
back into the caller's writable arrays. The suites' numpy references then check the GPU."""

import os

import numpy as np

from tilec.jit import JITFunction

_ON = os.environ.get("TILEC_TEST_ON_GPU", "0") not in ("", "0")


class DeviceArray:
    """Device memory holding a copy of a numpy array (kept alive by `buf`)."""

    def __init__(self, a, torch):
        self.host = a
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        self.buf = torch.from_numpy(flat.copy()).to("cuda")
        self.__cuda_array_interface__ = {
            "shape": a.shape, "typestr": a.dtype.str, "strides": None,
            "data": (self.buf.data_ptr(), not a.flags.writeable), "version": 3}

    def copy_back(self):
        if self.host.flags.writeable:
            data = self.buf.cpu().numpy()
            self.host.reshape(-1).view(np.uint8)[...] = data


def _launch_on_gpu(jitfn, grid, args, kwargs):
    import torch

    dev = []

    def move(v):
        if isinstance(v, np.ndarray) and v.ndim > 0:
            d = DeviceArray(v, torch)
            dev.append(d)
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
