"""TILEC_INTERPRET=1 (or Triton's own TRITON_INTERPRET=1): kernels given torch CUDA tensors
run on the CPU tile interpreter instead of the GPU, over host copies of the tensors'
storages that are written back after the launch (so views, offsets and aliasing arguments
behave as on the GPU), as Triton's interpreter mode does. Read on every launch that goes
through Python: a kernel that already launched on a GPU keeps its C++ fast path, so set it
before the first launch (Triton reads it when the kernel is decorated)."""

from __future__ import annotations

import sys

from . import _C, knobs
from ._tensors import TensorWrapper


def enabled() -> bool:
    """TILEC_INTERPRET (tilec's flag rule), or `knobs.runtime.interpret` (TRITON_INTERPRET
    by Triton's rule, or the knob set in Python)."""
    return _C.env_flag("TILEC_INTERPRET") or knobs.runtime.interpret


def run_on_host(jitfn, grid, warmup, args, kwargs):
    """jitfn.run over host copies of the GPU tensors in args/kwargs, written back after."""
    torch = sys.modules.get("torch")
    storages = {}  # device storage address -> (device storage, host copy)

    def to_host(name, v):
        if isinstance(v, TensorWrapper):
            return TensorWrapper(to_host(name, v.base), v.dtype)
        if torch is not None and isinstance(v, torch.Tensor) and v.is_cuda:
            dev = v.untyped_storage()
            if dev.data_ptr() not in storages:
                storages[dev.data_ptr()] = (dev, dev.cpu())
            host = storages[dev.data_ptr()][1]
            return torch.empty(0, dtype=v.dtype).set_(host, v.storage_offset(), v.size(),
                                                      v.stride())
        if isinstance(v, tuple):  # a tuple argument: its tensors too (NamedTuples keep class)
            elems = [to_host(f"{name}[{i}]", e) for i, e in enumerate(v)]
            return type(v)(*elems) if hasattr(type(v), "_fields") else tuple(elems)
        if hasattr(v, "__cuda_array_interface__") or type(v).__name__ == "PyCapsule":
            raise ValueError(f"argument '{name}' is a GPU array, and TILEC_INTERPRET=1 runs "
                             "kernels on the CPU: pass a torch tensor (copied to the host and "
                             "back) or a host array")
        return v

    names = list(jitfn.arg_names)
    host_args = tuple(to_host(names[i] if i < len(names) else "?", a)
                      for i, a in enumerate(args))
    host_kwargs = {k: to_host(k, v) for k, v in kwargs.items()}
    try:
        return jitfn.run(*host_args, grid=grid, warmup=warmup, **host_kwargs)
    finally:
        if not warmup:
            for dev, host in storages.values():
                dev.copy_(host)
